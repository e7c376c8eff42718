/** Issue 19 item 10: failure issues expire after aw.json's setting, else gh-aw's default of 168 hours. */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compile } from "../../compiler/mod.ts";

const WORKFLOW = "---\non: issues\nengine: copilot\nsafe-outputs:\n  add-comment:\n---\n# W\nComment.\n";

async function expiryOf(files: Record<string, string>): Promise<string | undefined> {
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: [".github/workflows/w.md"],
    readFile: (path) => Promise.resolve(files[path]),
  });
  const lock = result.workflows[0].lockContent;
  assert.ok(lock, JSON.stringify(result.workflows[0].diagnostics));
  const steps = Object.values(
    parse(lock).jobs as Record<string, { steps?: { env?: Record<string, string> }[] }>,
  )
    .flatMap((job) => job.steps ?? []);
  return steps.map((s) => s.env?.GH_AW_ACTION_FAILURE_ISSUE_EXPIRES_HOURS).find((v) => v !== undefined);
}

Deno.test("without aw.json, failure issues expire after 168 hours; aw.json's setting wins", async () => {
  assert.equal(await expiryOf({ ".github/workflows/w.md": WORKFLOW }), "168");
  assert.equal(
    await expiryOf({
      ".github/workflows/w.md": WORKFLOW,
      ".github/workflows/aw.json": JSON.stringify({ maintenance: { action_failure_issue_expires: 12 } }),
    }),
    "12",
  );
});
