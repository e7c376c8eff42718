import assert from "node:assert/strict";
import { awc, git, tempRepo, writeFiles } from "./support/harness.ts";
import { createCompileDouble } from "./support/compile_double.ts";

const TRIAGE = `---
on: issues
imports:
  - shared/tone.md
---
Triage the issue.
`;
const DIGEST = `---
on: daily
---
Write a digest.
`;
const TONE = `---
tools:
  github: {}
---
Be kind.
`;
const FILES = {
  ".github/workflows/triage.md": TRIAGE,
  ".github/workflows/digest.md": DIGEST,
  ".github/workflows/shared/tone.md": TONE,
};

/** A repository whose lock files are compiled and committed. */
async function compiledRepo() {
  const repo = await tempRepo(FILES);
  const result = await awc(["compile"], { cwd: repo.path });
  assert.equal(result.code, 0, result.stderr);
  await git(repo.path, "add", "-A");
  await git(repo.path, "commit", "-q", "-m", "locks");
  return repo;
}

Deno.test("compile writes a lock file beside each workflow and rewrites only changed ones", async () => {
  await using repo = await tempRepo(FILES);
  const first = await awc(["compile"], { cwd: repo.path });
  assert.equal(first.code, 0);
  assert.match(first.stderr, /compiled 2\/2 workflow\(s\); 2 file\(s\) written/);
  const lock = await Deno.readTextFile(`${repo.path}/.github/workflows/triage.lock.yml`);
  assert.match(lock, /^# gh-aw-metadata: /);
  const before = (await Deno.stat(`${repo.path}/.github/workflows/digest.lock.yml`)).mtime;

  await writeFiles(repo.path, {
    ".github/workflows/triage.md": TRIAGE.replace("on: issues", "on: pull_request"),
  });
  const second = await awc(["compile"], { cwd: repo.path });
  assert.match(second.stderr, /1 file\(s\) written: \.github\/workflows\/triage\.lock\.yml/);
  assert.deepEqual((await Deno.stat(`${repo.path}/.github/workflows/digest.lock.yml`)).mtime, before);
});

Deno.test("compile passes the flags to the core and resolves the root from a subdirectory", async () => {
  await using repo = await tempRepo(FILES);
  const double = createCompileDouble();
  const result = await awc(
    ["compile", "triage", "digest.md", "--action-mode", "dev", "--ghes", "--schedule-seed", "octo/other"],
    { cwd: `${repo.path}/.github/workflows`, compile: double.compile },
  );
  assert.equal(result.code, 0, result.stderr);
  const call = double.calls[0];
  assert.equal(call.repoRoot, await Deno.realPath(repo.path));
  assert.deepEqual(
    call.workflows,
    ["triage", ".github/workflows/digest.md"],
    "names pass, files become root-relative",
  );
  assert.equal(call.actionMode, "dev");
  assert.equal(call.ghes, true);
  assert.equal(call.scheduleSeed, "octo/other");
  assert.equal(call.resolveAction, undefined, "no token means offline resolution");
});

Deno.test("compile prints located diagnostics and exits 1 on an error", async () => {
  await using repo = await tempRepo({
    ".github/workflows/bad.md": "---\non: issues\nfail: unknown key 'tirggers'\n---\nBody\n",
  });
  const result = await awc(["compile"], { cwd: repo.path });
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /\.github\/workflows\/bad\.md:3:1: error: unknown key 'tirggers'\n {2}hint: remove the fail key/,
  );
});

Deno.test("compile --json prints machine-readable diagnostics on stdout only", async () => {
  await using repo = await tempRepo({
    ".github/workflows/bad.md": "---\non: issues\nfail: broken\n---\nBody\n",
    ".github/workflows/good.md": DIGEST,
  });
  const result = await awc(["compile", "--json"], { cwd: repo.path });
  assert.equal(result.code, 1);
  const report = JSON.parse(result.stdout);
  assert.deepEqual(report.workflows.map((w: { workflow: string; valid: boolean }) => [w.workflow, w.valid]), [
    [".github/workflows/bad.md", false],
    [".github/workflows/good.md", true],
  ]);
  assert.equal(report.workflows[0].diagnostics[0].code, "test-failure");
  assert.equal(result.stderr, "");
});

Deno.test("compile --check passes on fresh locks and reports a missing lock", async () => {
  await using repo = await compiledRepo();
  const fresh = await awc(["compile", "--check"], { cwd: repo.path });
  assert.equal(fresh.code, 0, fresh.stdout);
  assert.match(fresh.stdout, /2 lock file\(s\) up to date/);

  await Deno.remove(`${repo.path}/.github/workflows/digest.lock.yml`);
  const missing = await awc(["compile", "--check"], { cwd: repo.path });
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /missing: \.github\/workflows\/digest\.lock\.yml/);
  await assert.rejects(Deno.stat(`${repo.path}/.github/workflows/digest.lock.yml`), Deno.errors.NotFound);
});

Deno.test("compile --check catches an edited frontmatter and names the file", async () => {
  await using repo = await compiledRepo();
  await writeFiles(repo.path, { ".github/workflows/digest.md": DIGEST.replace("daily", "weekly") });
  const result = await awc(["compile", "--check"], { cwd: repo.path });
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /stale: \.github\/workflows\/digest\.lock\.yml\n {2}- the frontmatter of \.github\/workflows\/digest\.md changed/,
  );
  assert.doesNotMatch(result.stdout, /triage\.lock\.yml/);
  assert.equal(
    await Deno.readTextFile(`${repo.path}/.github/workflows/digest.md`),
    DIGEST.replace("daily", "weekly"),
    "--check writes nothing",
  );
});

Deno.test("compile --check catches an edited shared import's frontmatter in its dependents", async () => {
  await using repo = await compiledRepo();
  await writeFiles(repo.path, {
    ".github/workflows/shared/tone.md": TONE.replace("github: {}", "bash: true"),
  });
  const result = await awc(["compile", "--check", "--json"], { cwd: repo.path });
  assert.equal(result.code, 1);
  const report = JSON.parse(result.stdout);
  const triage = report.locks.find((l: { workflow: string }) => l.workflow === ".github/workflows/triage.md");
  assert.equal(triage.status, "frontmatter");
  assert.deepEqual(triage.reasons, ["the frontmatter of imported .github/workflows/shared/tone.md changed"]);
  const digest = report.locks.find((l: { workflow: string }) => l.workflow === ".github/workflows/digest.md");
  assert.equal(digest.status, "fresh");
});

Deno.test("compile --check catches a hand-edited lock file", async () => {
  await using repo = await compiledRepo();
  const path = `${repo.path}/.github/workflows/triage.lock.yml`;
  await Deno.writeTextFile(path, (await Deno.readTextFile(path)).replace("name:", "name: # tweaked\nname2:"));
  const result = await awc(["compile", "--check"], { cwd: repo.path });
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /stale: \.github\/workflows\/triage\.lock\.yml\n {2}- .*differs from the compiler's output/,
  );
});

Deno.test("compile --check passes after a body-only edit and says why", async () => {
  await using repo = await compiledRepo();
  await writeFiles(repo.path, {
    ".github/workflows/triage.md": TRIAGE.replace("Triage the issue.", "Label it."),
  });
  const result = await awc(["compile", "--check"], { cwd: repo.path });
  assert.equal(result.code, 0, result.stdout);
  assert.match(
    result.stdout,
    /ok: \.github\/workflows\/triage\.lock\.yml\n {2}- only the Markdown body .* loaded at run time/,
  );
});

Deno.test("compile --watch recompiles only the workflows depending on a changed import", async () => {
  await using repo = await compiledRepo();
  const double = createCompileDouble();
  const controller = new AbortController();
  const running = awc(["compile", "--watch"], {
    cwd: repo.path,
    compile: double.compile,
    signal: controller.signal,
  });
  try {
    // Edit only after the first compile has read its inputs, or it would see the edit itself.
    await waitFor(() => double.completed() === 1);
    await writeFiles(repo.path, {
      ".github/workflows/shared/tone.md": TONE.replace("github: {}", "edit: true"),
    });
    await waitFor(() => double.calls.length === 2);
    assert.deepEqual(double.calls[1].workflows, [".github/workflows/triage.md"]);
    await writeFiles(repo.path, { ".github/workflows/new.md": DIGEST });
    await waitFor(() => double.calls.length === 3);
    assert.deepEqual(double.calls[2].workflows, [".github/workflows/new.md"]);
  } finally {
    controller.abort();
  }
  const result = await running;
  assert.equal(result.code, 0);
  assert.match(
    result.stderr,
    /\[watch\] compiled \.github\/workflows\/triage\.md; wrote \.github\/workflows\/triage\.lock\.yml/,
  );
  assert.ok(await Deno.stat(`${repo.path}/.github/workflows/new.lock.yml`));
});

async function waitFor(condition: () => boolean, ms = 5000) {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > ms) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
