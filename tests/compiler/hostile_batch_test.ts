/**
 * Issue 19 item 12: one hostile or failing workflow never crashes a batch. A YAML alias bomb is a located
 * diagnostic (no stack trace), an unexpected failure of one workflow becomes that workflow's diagnostic, and
 * every other workflow of the run still compiles.
 */
import assert from "node:assert/strict";
import { compile } from "../../compiler/mod.ts";

const FINE = "---\non: issues\npermissions: read-all\nengine: copilot\n---\n# Fine\nSay hello.\n";
const BOMB = [
  "---",
  "on: issues",
  'a: &a ["x","x","x","x","x","x","x","x","x"]',
  "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
  "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
  "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
  "---",
  "# Bomb",
  "Hello.",
  "",
].join("\n");

function reader(files: Record<string, string>, failOn?: string) {
  return (path: string) => {
    if (path === failOn) return Promise.reject(new Error("disk on fire"));
    return Promise.resolve(files[path]);
  };
}

Deno.test("a YAML alias bomb is a located diagnostic and the other workflows still compile", async () => {
  const files = { ".github/workflows/bomb.md": BOMB, ".github/workflows/fine.md": FINE };
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: Object.keys(files),
    readFile: reader(files),
  });
  const bomb = result.workflows.find((w) => w.source.endsWith("bomb.md"))!;
  const fine = result.workflows.find((w) => w.source.endsWith("fine.md"))!;
  assert.equal(bomb.lockContent, undefined);
  assert.deepEqual(bomb.diagnostics.map((d) => [d.code, d.line]), [["yaml-alias-limit", 4]]);
  assert.ok(!/at \w+ \(|\.ts:\d+/.test(bomb.diagnostics[0].message), "no stack trace");
  assert.ok(fine.lockContent?.includes('name: "Fine"'), "the other workflow compiled");
});

Deno.test("an unexpected failure of one workflow is its diagnostic, never the batch's end", async () => {
  const importing = "---\non: issues\nengine: copilot\nimports:\n  - shared/tools.md\n---\n# Uses\nHi.\n";
  const files = { ".github/workflows/a.md": importing, ".github/workflows/b.md": FINE };
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: Object.keys(files),
    readFile: reader(files, ".github/workflows/shared/tools.md"),
  });
  const failed = result.workflows.find((w) => w.source.endsWith("a.md"))!;
  assert.equal(failed.lockContent, undefined);
  assert.equal(failed.diagnostics[0].code, "workflow-failed");
  assert.match(failed.diagnostics[0].message, /disk on fire/);
  assert.ok(result.workflows.find((w) => w.source.endsWith("b.md"))!.lockContent, "b.md still compiled");
});

Deno.test("size limits: a source over 1 MiB is refused unread, a lock over 512,000 bytes is not written", async () => {
  const huge = `---\non: issues\nengine: copilot\n---\n# Huge\n${"word ".repeat(220_000)}\n`;
  const bigLock = `---\non: issues\nengine: copilot\nsteps:\n${
    Array.from({ length: 4000 }, (_, i) => `  - name: step ${i}\n    run: echo "${"x".repeat(100)} ${i}"\n`)
      .join("")
  }---\n# Big\nDo it.\n`;
  const files = {
    ".github/workflows/huge.md": huge,
    ".github/workflows/big.md": bigLock,
    ".github/workflows/fine.md": FINE,
  };
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: Object.keys(files),
    readFile: reader(files),
  });
  const byName = (name: string) => result.workflows.find((w) => w.source.endsWith(name))!;
  assert.equal(byName("huge.md").diagnostics[0].code, "source-too-large");
  assert.match(byName("huge.md").diagnostics[0].message, /1,100,\d{3} bytes; the limit is 1,048,576/);
  const big = byName("big.md");
  assert.equal(big.lockContent, undefined);
  assert.equal(big.diagnostics.at(-1)?.code, "lock-too-large", JSON.stringify(big.diagnostics));
  assert.match(big.diagnostics.at(-1)!.message, /the limit is 512,000/);
  assert.ok(byName("fine.md").lockContent);
});
