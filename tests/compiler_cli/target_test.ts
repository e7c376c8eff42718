/**
 * Issue 29 B: `awc compile --gh-aw-version`, the target chosen from the repository's locks, `--check`
 * reporting locks made for another release, and `awc upgrade` moving a repository to the newest target.
 */
import assert from "node:assert/strict";
import { compile } from "../../compiler/mod.ts";
import { awc, tempRepo } from "./support/harness.ts";
import { startGitHubServer } from "./support/github_server.ts";
import { NEWEST_TARGET, repoTarget, targetFor } from "../../compiler/targets/mod.ts";

const FILES = { ".github/workflows/triage.md": "---\non: issues\nengine: copilot\n---\nTriage the issue.\n" };
const LOCK = ".github/workflows/triage.lock.yml";
const read = (root: string, p: string) => Deno.readTextFile(`${root}/${p}`);

Deno.test("targetFor names the supported releases and refuses blocked and unknown ones", () => {
  for (const v of ["v0.87.4", "0.87.4", "v0.76.1"]) {
    const found = targetFor(v);
    assert.ok("target" in found && found.target.version === (v.startsWith("v") ? v : `v${v}`), v);
  }
  const blocked = targetFor("v0.84.0");
  assert.ok(
    "error" in blocked && /blocked/.test(blocked.error) && /v0\.76\.1, v0\.87\.4/.test(blocked.error),
  );
  const unknown = targetFor("v0.91.7");
  assert.ok("error" in unknown && /not supported/.test(unknown.error) && /v0\.87\.4/.test(unknown.error));
  assert.ok("error" in targetFor("latest"));
});

Deno.test("repoTarget: the flag, else the locks when they agree on a supported release, else the newest", () => {
  const lock = (v: string) => `# gh-aw-metadata: {"schema_version":"v4","compiler_version":"${v}"}\n`;
  const setup = "uses: github/gh-aw-actions/setup@46d564922b082d0db93244972e8005ea6904ee5f # v0.76.1\n";
  const pick = (flag: string | undefined, locks: string[]) => {
    const r = repoTarget(flag, locks);
    return "error" in r ? r.error : `${r.target.version} ${r.from}`;
  };
  assert.equal(pick(undefined, [lock("v0.87.4"), lock("v0.87.4")]), "v0.87.4 locks");
  assert.equal(pick(undefined, [setup, setup]), "v0.76.1 locks");
  assert.equal(pick(undefined, [setup, lock("v0.87.4")]), `${NEWEST_TARGET.version} newest`);
  assert.equal(pick(undefined, [lock("v0.91.7")]), `${NEWEST_TARGET.version} newest`);
  assert.equal(pick(undefined, []), `${NEWEST_TARGET.version} newest`);
  assert.equal(pick("v0.76.1", [lock("v0.87.4")]), "v0.76.1 flag");
  assert.match(pick("v0.83.0", []), /blocked/);
});

Deno.test("compile --gh-aw-version: an unsupported or blocked release is a usage error naming the supported ones", async () => {
  await using repo = await tempRepo(FILES);
  for (const v of ["v0.84.2", "v0.99.0"]) {
    const run = await awc(["compile", "--gh-aw-version", v], { cwd: repo.path, compile });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /supported: v0\.76\.1, v0\.87\.4/);
  }
});

Deno.test("compile targets the locks' release, else the newest; --check reports locks of another release", async () => {
  await using repo = await tempRepo(FILES);
  // No lock yet: the newest release.
  assert.equal((await awc(["compile"], { cwd: repo.path, compile })).code, 0);
  let lock = await read(repo.path, LOCK);
  assert.match(lock, /"compiler_version":"v0\.87\.4"/);
  assert.match(lock, /github\/gh-aw-actions\/setup@ea4b911d44a5336c74325a122a5fd9110b45ff06 # v0\.87\.4/);
  assert.match(lock, /actions\/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7\.0\.1/);
  // Pinned to v0.76.1, later compiles stay there.
  assert.equal((await awc(["compile", "--gh-aw-version", "v0.76.1"], { cwd: repo.path, compile })).code, 0);
  assert.equal((await awc(["compile"], { cwd: repo.path, compile })).code, 0);
  lock = await read(repo.path, LOCK);
  assert.doesNotMatch(lock, /compiler_version/);
  assert.match(lock, /github\/gh-aw-actions\/setup@46d564922b082d0db93244972e8005ea6904ee5f # v0\.76\.1/);
  assert.equal((await awc(["compile", "--check"], { cwd: repo.path, compile })).code, 0);
  // Checked against another release: the lock is reported as made for v0.76.1.
  const check = await awc(["compile", "--check", "--gh-aw-version", "v0.87.4"], { cwd: repo.path, compile });
  assert.equal(check.code, 1);
  assert.match(check.stdout, /other version: \.github\/workflows\/triage\.lock\.yml/);
  assert.match(check.stdout, /compiled for gh-aw v0\.76\.1, the target is v0\.87\.4/);
});

Deno.test("upgrade moves the repository to the newest release and records its pins", async () => {
  await using repo = await tempRepo(FILES);
  assert.equal((await awc(["compile", "--gh-aw-version", "v0.76.1"], { cwd: repo.path, compile })).code, 0);
  const run = await awc(["upgrade", "--no-self", "--no-actions"], { cwd: repo.path, compile });
  assert.equal(run.code, 0, run.stderr);
  assert.match(await read(repo.path, LOCK), /"compiler_version":"v0\.87\.4"/);
  const pins = JSON.parse(await read(repo.path, ".github/aw/actions-lock.json")).entries;
  assert.equal(pins["github/gh-aw-actions/setup@v0.87.4"].sha, "ea4b911d44a5336c74325a122a5fd9110b45ff06");
  assert.equal(pins["actions/checkout@v7.0.1"].sha, "3d3c42e5aac5ba805825da76410c181273ba90b1");
  assert.match(run.stderr, /gh-aw v0\.87\.4: \d+ action pin\(s\) recorded/);
  // Now on the newest release, --check is clean.
  assert.equal((await awc(["compile", "--check"], { cwd: repo.path, compile })).code, 0);
});

Deno.test("update-actions recompiles for the release the locks are on, not the library default", async () => {
  const sha = (c: string) => c.repeat(40);
  await using github = startGitHubServer({
    repos: {
      "octo/tool": {
        releases: [{ tag_name: "v1.1.0" }],
        refs: { "v1.1.0": { sha: sha("b"), type: "commit" } },
      },
    },
  });
  await using repo = await tempRepo({
    ".github/aw/actions-lock.json": JSON.stringify({
      entries: { "octo/tool@v1.0.0": { repo: "octo/tool", version: "v1.0.0", sha: sha("a") } },
    }),
    ".github/workflows/triage.md":
      "---\non: issues\nengine: copilot\nsteps:\n  - uses: octo/tool@v1.0.0\n---\nTriage the issue.\n",
  });
  assert.equal((await awc(["compile", "--gh-aw-version", "v0.87.4"], { cwd: repo.path, compile })).code, 0);
  const run = await awc(["update-actions"], { cwd: repo.path, compile, env: { GITHUB_API_URL: github.url } });
  assert.equal(run.code, 0, run.stderr);
  const lock = await read(repo.path, LOCK);
  assert.match(lock, /octo\/tool@b{40} # v1\.1\.0/);
  assert.match(lock, /"compiler_version":"v0\.87\.4"/);
});

Deno.test("locks of different releases: compile warns and uses the newest", async () => {
  await using repo = await tempRepo({
    ...FILES,
    ".github/workflows/other.md": "---\non: issues\nengine: copilot\n---\nOther.\n",
  });
  assert.equal(
    (await awc(["compile", "triage.md", "--gh-aw-version", "v0.76.1"], {
      cwd: `${repo.path}/.github/workflows`,
      compile,
    }))
      .code,
    0,
  );
  assert.equal(
    (await awc(["compile", "other.md", "--gh-aw-version", "v0.87.4"], {
      cwd: `${repo.path}/.github/workflows`,
      compile,
    }))
      .code,
    0,
  );
  const run = await awc(["compile"], { cwd: repo.path, compile });
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /warning: the existing locks were compiled for gh-aw v0\.76\.1, v0\.87\.4; compiling for v0\.87\.4/,
  );
  assert.match(await read(repo.path, LOCK), /"compiler_version":"v0\.87\.4"/);
});
