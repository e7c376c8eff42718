import assert from "node:assert/strict";
import { awc, tempRepo, writeFiles } from "./support/harness.ts";

Deno.test("init prepares a repository with the default engine's files and is idempotent", async () => {
  await using repo = await tempRepo({ ".gitattributes": "*.png binary\n" });
  const first = await awc(["init"], { cwd: repo.path });
  assert.equal(first.code, 0, first.stderr);
  for (
    const file of [
      ".github/aw/README.md",
      ".gitattributes",
      ".github/workflows/aw.json",
      ".github/agents/agentic-workflows.md",
      ".github/workflows/copilot-setup-steps.yml",
    ]
  ) assert.match(first.stdout, new RegExp(`wrote ${file.replace(/\./g, "\\.")}`));
  assert.equal(
    await Deno.readTextFile(`${repo.path}/.gitattributes`),
    "*.png binary\n.github/workflows/*.lock.yml linguist-generated=true merge=ours\n",
  );
  assert.equal(await Deno.readTextFile(`${repo.path}/.github/workflows/aw.json`), "{}\n");
  assert.match(await Deno.readTextFile(`${repo.path}/.github/aw/README.md`), /Dependabot/);

  const second = await awc(["init"], { cwd: repo.path });
  assert.equal(second.code, 0);
  assert.equal(second.stdout, "already initialised: nothing to do\n");
});

Deno.test("init --engine claude writes only that engine's files", async () => {
  await using repo = await tempRepo({});
  const result = await awc(["init", "--engine", "claude"], { cwd: repo.path });
  assert.equal(result.code, 0);
  assert.ok(await Deno.stat(`${repo.path}/.claude/agents/agentic-workflows.md`));
  await assert.rejects(Deno.stat(`${repo.path}/.github/agents/agentic-workflows.md`), Deno.errors.NotFound);
  await assert.rejects(
    Deno.stat(`${repo.path}/.github/workflows/copilot-setup-steps.yml`),
    Deno.errors.NotFound,
  );
  const bad = await awc(["init", "--engine", "gpt"], { cwd: repo.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--engine must be one of copilot, claude, codex, gemini, crush/);
});

Deno.test("init detects an enterprise server host from the origin remote and writes ghes: true", async () => {
  await using repo = await tempRepo({}, "git@ghe.acme.test:platform/tools.git");
  await writeFiles(repo.path, { ".github/workflows/aw.json": '{\n  "maintenance": false\n}\n' });
  const result = await awc(["init"], { cwd: repo.path });
  assert.equal(result.code, 0);
  assert.match(result.stderr, /GitHub Enterprise Server detected \(ghe\.acme\.test\)/);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${repo.path}/.github/workflows/aw.json`)), {
    maintenance: false,
    ghes: true,
  });
  assert.equal((await awc(["init"], { cwd: repo.path })).stdout, "already initialised: nothing to do\n");
});

Deno.test("init treats github.com and GHE.com data residency hosts as not enterprise server", async () => {
  await using repo = await tempRepo({}, "https://github.com/octo/demo.git");
  await awc(["init"], { cwd: repo.path, env: { GH_HOST: "octo.ghe.com" } });
  assert.equal(await Deno.readTextFile(`${repo.path}/.github/workflows/aw.json`), "{}\n");
  const viaEnv = await awc(["init"], { cwd: repo.path, env: { GITHUB_SERVER_URL: "https://git.corp.test" } });
  assert.match(viaEnv.stderr, /git\.corp\.test/);
});

Deno.test("init notes the Dependabot configuration and refuses a folder outside git", async () => {
  await using repo = await tempRepo({
    ".github/dependabot.yml":
      "version: 2\nupdates:\n  - package-ecosystem: github-actions\n    directory: /\n",
  });
  const result = await awc(["init"], { cwd: repo.path });
  assert.match(result.stderr, /note: \.github\/dependabot\.yml updates GitHub Actions/);
  const outside = await Deno.makeTempDir();
  try {
    const refused = await awc(["init"], { cwd: outside });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not inside a git repository/);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});
