import assert from "node:assert/strict";
import { awc, tempRepo } from "./support/harness.ts";
import { createCompileDouble } from "./support/compile_double.ts";
import { startGitHubServer } from "./support/github_server.ts";

const sha = (c: string) => c.repeat(40);

const LOCK = {
  entries: {
    "actions/checkout@v6.0.1": { repo: "actions/checkout", version: "v6.0.1", sha: sha("1") },
    "actions/cache/restore@v5.0.4": { repo: "actions/cache/restore", version: "v5.0.4", sha: sha("2") },
    "octo/tagged@v1.2.0": { repo: "octo/tagged", version: "v1.2.0", sha: sha("3") },
    "octo/locked@v2.0.0": {
      repo: "octo/locked",
      version: "v2.0.0",
      sha: sha("4"),
      action_description: "kept when unchanged",
    },
  },
};

const WORKFLOW = `---
on: issues
steps:
  - uses: actions/checkout@v6.0.1
  - uses: octo/tagged@v1.2.0
---
Body
`;

function server() {
  return startGitHubServer({
    token: "t0ken",
    repos: {
      "actions/checkout": {
        releases: [
          { tag_name: "v7.0.0" },
          { tag_name: "v6.1.0-rc.1", prerelease: true },
          { tag_name: "v6.0.2" },
          { tag_name: "v6.0.1" },
          { tag_name: "v5.9.9" },
        ],
        refs: { "v6.0.2": { sha: sha("a"), type: "tag" }, "v7.0.0": { sha: sha("c"), type: "commit" } },
        tagObjects: { [sha("a")]: { sha: sha("b"), type: "commit" } },
      },
      "actions/cache": {
        releases: [{ tag_name: "v5.0.5" }],
        refs: { "v5.0.5": { sha: sha("d"), type: "commit" } },
      },
      "octo/tagged": {
        releases: [],
        tags: [{ name: "v1.3.0", sha: sha("e") }, { name: "v1.1.0", sha: sha("f") }, {
          name: "main",
          sha: sha("9"),
        }],
      },
      "octo/locked": { releases: [{ tag_name: "v2.0.0" }, { tag_name: "v1.9.0" }] },
    },
  });
}

async function repoWithLock() {
  return await tempRepo({
    ".github/aw/actions-lock.json": JSON.stringify(LOCK, null, 2) + "\n",
    ".github/workflows/triage.md": WORKFLOW,
  });
}

Deno.test("update-actions moves pins within the major, peels annotated tags, falls back to tags", async () => {
  await using github = server();
  await using repo = await repoWithLock();
  const double = createCompileDouble();
  const env = { GITHUB_TOKEN: "t0ken", GITHUB_API_URL: github.url };
  const result = await awc(["update-actions"], { cwd: repo.path, env, compile: double.compile });
  assert.equal(result.code, 0, result.stderr);
  const lock = JSON.parse(await Deno.readTextFile(`${repo.path}/.github/aw/actions-lock.json`));
  assert.deepEqual(Object.keys(lock.entries), [
    "actions/cache/restore@v5.0.5",
    "actions/checkout@v6.0.2",
    "octo/locked@v2.0.0",
    "octo/tagged@v1.3.0",
  ]);
  assert.equal(lock.entries["actions/checkout@v6.0.2"].sha, sha("b"), "annotated tag peeled to its commit");
  assert.equal(
    lock.entries["actions/cache/restore@v5.0.5"].sha,
    sha("d"),
    "sub-path action resolved on its repo",
  );
  assert.equal(lock.entries["octo/tagged@v1.3.0"].sha, sha("e"), "tags used when there are no releases");
  assert.equal(lock.entries["octo/locked@v2.0.0"].action_description, "kept when unchanged");
  assert.match(result.stderr, /octo\/tagged: no GitHub Releases found, falling back to tag scanning/);
  const md = await Deno.readTextFile(`${repo.path}/.github/workflows/triage.md`);
  assert.match(md, /uses: actions\/checkout@v6\.0\.2\n {2}- uses: octo\/tagged@v1\.3\.0/);
  assert.equal(double.calls.length, 1, "recompiled after updating");
  assert.ok(await Deno.stat(`${repo.path}/.github/workflows/triage.lock.yml`));
});

Deno.test("update-actions --major crosses majors and never downgrades", async () => {
  await using github = server();
  await using repo = await repoWithLock();
  const env = { GITHUB_TOKEN: "t0ken", GITHUB_API_URL: github.url };
  const result = await awc(["update-actions", "--major", "--no-compile"], { cwd: repo.path, env });
  assert.equal(result.code, 0, result.stderr);
  const lock = JSON.parse(await Deno.readTextFile(`${repo.path}/.github/aw/actions-lock.json`));
  assert.equal(lock.entries["actions/checkout@v7.0.0"].sha, sha("c"));
  assert.ok(lock.entries["octo/locked@v2.0.0"], "v1.9.0 is older: no downgrade");
  assert.equal(Object.keys(lock.entries).length, 4);
});

Deno.test("update-actions --dry-run shows the diff and writes nothing", async () => {
  await using github = server();
  await using repo = await repoWithLock();
  const before = await Deno.readTextFile(`${repo.path}/.github/aw/actions-lock.json`);
  const env = { GITHUB_TOKEN: "t0ken", GITHUB_API_URL: github.url };
  const result = await awc(["update-actions", "--dry-run"], { cwd: repo.path, env });
  assert.equal(result.code, 0);
  assert.match(
    result.stdout,
    new RegExp(`- actions/checkout@v6.0.1 ${sha("1")}\n\\+ actions/checkout@v6.0.2 ${sha("b")}`),
  );
  assert.match(result.stdout, /would update uses: in \.github\/workflows\/triage\.md/);
  assert.equal(await Deno.readTextFile(`${repo.path}/.github/aw/actions-lock.json`), before);
  assert.equal(await Deno.readTextFile(`${repo.path}/.github/workflows/triage.md`), WORKFLOW);
});

Deno.test("update-actions keeps cached refs with a warning when the token cannot resolve tags", async () => {
  await using github = server();
  github.state.faults.push({ path: /\/git\/ref\/tags\//, status: 403, message: "Resource not accessible" });
  github.state.repos["octo/tagged"].releases = "forbidden";
  await using repo = await repoWithLock();
  const env = { GITHUB_TOKEN: "t0ken", GITHUB_API_URL: github.url };
  const result = await awc(["update-actions", "--no-compile"], { cwd: repo.path, env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /warning: actions\/checkout@v6\.0\.1: .*forbidden \(403\).*; keeping the cached ref v6\.0\.1 \(1{40}\)/,
  );
  assert.match(
    result.stderr,
    /octo\/tagged: cannot list releases \(forbidden\), falling back to tag scanning/,
  );
  const lock = JSON.parse(await Deno.readTextFile(`${repo.path}/.github/aw/actions-lock.json`));
  assert.ok(lock.entries["actions/checkout@v6.0.1"]);
  assert.ok(lock.entries["octo/tagged@v1.3.0"], "the tags API needs no ref lookup");
});

Deno.test("update-actions retries server errors and secondary rate limits, and follows pagination", async () => {
  await using github = server();
  const many = Array.from({ length: 150 }, (_, i) => ({ tag_name: `v6.0.${i + 3}` }));
  const checkout = github.state.repos["actions/checkout"];
  checkout.releases = [...many, { tag_name: "v6.0.1" }];
  checkout.refs = { "v6.0.152": { sha: sha("7"), type: "commit" } };
  github.state.faults.push(
    { path: /\/repos\/actions\/checkout\/releases/, status: 502, times: 1 },
    {
      path: /\/repos\/actions\/cache\/releases/,
      status: 403,
      headers: { "retry-after": "0" },
      message: "You have exceeded a secondary rate limit",
      times: 1,
    },
  );
  await using repo = await repoWithLock();
  const env = { GITHUB_TOKEN: "t0ken", GITHUB_API_URL: github.url };
  const result = await awc(["update-actions", "--no-compile"], { cwd: repo.path, env });
  assert.equal(result.code, 0, result.stderr);
  const lock = JSON.parse(await Deno.readTextFile(`${repo.path}/.github/aw/actions-lock.json`));
  assert.equal(lock.entries["actions/checkout@v6.0.152"].sha, sha("7"), "found on the second page");
  assert.ok(lock.entries["actions/cache/restore@v5.0.5"]);
  assert.ok(
    github.state.requests.some((r) => r.includes("/repos/actions/checkout/releases?per_page=100&page=2")),
  );
});

Deno.test("update-actions explains a rejected token and exits 1 only for unusable input", async () => {
  await using github = server();
  await using repo = await repoWithLock();
  const env = { GITHUB_TOKEN: "wrong", GITHUB_API_URL: github.url };
  const result = await awc(["update-actions", "--no-compile"], { cwd: repo.path, env });
  assert.equal(result.code, 0);
  assert.match(result.stderr, /token in GITHUB_TOKEN\/GH_TOKEN was rejected \(401\)/);
  assert.doesNotMatch(result.stderr + result.stdout, /wrong/, "the token never reaches the output");

  await Deno.writeTextFile(`${repo.path}/.github/aw/actions-lock.json`, "{ nope");
  const broken = await awc(["update-actions"], { cwd: repo.path, env });
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /actions-lock\.json is not valid JSON/);
});

Deno.test("update-actions without an actions-lock.json has nothing to do", async () => {
  await using repo = await tempRepo({ "README.md": "x" });
  const result = await awc(["update-actions"], { cwd: repo.path });
  assert.equal(result.code, 0);
  assert.match(result.stderr, /not found: nothing to update/);
});
