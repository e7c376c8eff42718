/**
 * The CLI with the real compiler core (compiler/mod.ts) end to end: init → compile → --check → edits.
 */
import assert from "node:assert/strict";
import { compile } from "../../compiler/mod.ts";
import { awc, git, tempRepo, writeFiles } from "./support/harness.ts";

const HELLO = `---
on:
  workflow_dispatch:
permissions:
  contents: read
---
Say hello.
`;

Deno.test({
  name:
    "with the real core, init then compile writes a lock that --check accepts until the frontmatter changes",
  fn: async () => {
    await using repo = await tempRepo({});
    assert.equal((await awc(["init"], { cwd: repo.path, compile })).code, 0);
    await writeFiles(repo.path, { ".github/workflows/hello.md": HELLO });
    const compiled = await awc(["compile"], { cwd: repo.path, compile });
    assert.equal(compiled.code, 0, compiled.stderr);
    const lock = await Deno.readTextFile(`${repo.path}/.github/workflows/hello.lock.yml`);
    assert.match(lock, /^# gh-aw-metadata: \{/);
    await git(repo.path, "add", "-A");
    await git(repo.path, "commit", "-q", "-m", "hello");
    assert.equal((await awc(["compile", "--check"], { cwd: repo.path, compile })).code, 0);
    await writeFiles(repo.path, {
      ".github/workflows/hello.md": HELLO.replace("Say hello.", "Say goodbye."),
    });
    const bodyOnly = await awc(["compile", "--check"], { cwd: repo.path, compile });
    assert.equal(bodyOnly.code, 0, bodyOnly.stdout);
    await writeFiles(repo.path, {
      ".github/workflows/hello.md": HELLO.replace("contents: read", "issues: read"),
    });
    const stale = await awc(["compile", "--check"], { cwd: repo.path, compile });
    assert.equal(stale.code, 1);
    assert.match(stale.stdout, /the frontmatter of \.github\/workflows\/hello\.md changed/);
  },
});
