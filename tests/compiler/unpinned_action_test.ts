/** Issue 19 item 11: an action that cannot be pinned offline is an error located at its `uses:` line. */
import assert from "node:assert/strict";
import { compile } from "../../compiler/mod.ts";

Deno.test("an unpinnable action is located at its uses: line and column", async () => {
  const files: Record<string, string> = {
    ".github/workflows/w.md": [
      "---",
      "on: issues",
      "engine: copilot",
      "steps:",
      "  - name: Prepare",
      "    uses: example-org/not-a-known-action@v3",
      "---",
      "# W",
      "Do.",
      "",
    ].join("\n"),
  };
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: [".github/workflows/w.md"],
    readFile: (path) => Promise.resolve(files[path]),
  });
  const workflow = result.workflows[0];
  assert.equal(workflow.lockContent, undefined);
  const error = workflow.diagnostics.find((d) => d.code === "unpinned-action");
  assert.ok(error, JSON.stringify(workflow.diagnostics));
  assert.deepEqual([error.line, error.column], [6, 11]);
  assert.match(error.message, /example-org\/not-a-known-action@v3/);
});
