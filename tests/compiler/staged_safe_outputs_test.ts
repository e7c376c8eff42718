/** `safe-outputs.staged`: the run previews its outputs, so nothing is checked out or pushed for them. */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

/** The `safe_outputs:` job's text (up to the next job). */
function safeOutputsJob(lock: string): string {
  const start = lock.indexOf("\n  safe_outputs:\n");
  const next = /\n {2}[a-z_][a-z0-9_-]*:\n/.exec(lock.slice(start + 1));
  return lock.slice(start, next ? start + 1 + next.index : lock.length);
}

Deno.test("a staged safe_outputs job keeps the type outputs but no code-push checkout", async () => {
  const md = "---\non: workflow_dispatch\npermissions:\n  contents: read\nsafe-outputs:\n  staged: true\n" +
    "  create-issue:\n  create-pull-request:\n---\n# Task\n";
  const { lock } = await compileOne(md);
  const job = safeOutputsJob(lock);
  assertEquals(
    job.includes(
      "      created_issue_number: ${{ steps.process_safe_outputs.outputs.created_issue_number }}\n",
    ),
    true,
  );
  assertEquals(
    job.includes("      created_pr_url: ${{ steps.process_safe_outputs.outputs.created_pr_url }}\n"),
    true,
  );
  for (
    const absent of [
      "Download patch artifact",
      "Checkout repository",
      "Configure Git credentials",
      "GH_AW_CI_TRIGGER_TOKEN",
      "Restore actions folder",
    ]
  ) {
    assertEquals(job.includes(absent), false, absent);
  }
  assertEquals(lock.includes("GH_AW_CI_TRIGGER_TOKEN"), false);
  // The handler step announces staged mode right after its config.
  assertEquals(
    /GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG: "[^\n]*"\n {10}GH_AW_SAFE_OUTPUTS_STAGED: "true"\n/.test(job),
    true,
  );
});
