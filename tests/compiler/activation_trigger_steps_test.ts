/** The activation steps the triggers ask for: reaction/comment guards and the order of the trigger steps. */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

/** The `if:` of the activation step named `name`. */
function stepIf(lock: string, name: string): string {
  const at = lock.indexOf(`      - name: ${name}\n`);
  return /\n {8}if: ([^\n]*)\n/.exec(lock.slice(at, lock.indexOf("\n      - name:", at + 10)))?.[1] ?? "";
}

Deno.test("a label command's reaction and comment guards read no aw_context (only the slash router sets it)", async () => {
  const md =
    "---\non:\n  workflow_dispatch:\n  label_command:\n    name: smoke\n    events: [pull_request]\n" +
    "  reaction: eyes\n  status-comment: true\n---\n# Task\n";
  const { lock } = await compileOne(md);
  for (const name of ["Add eyes reaction for immediate feedback", "Add comment with workflow run link"]) {
    const cond = stepIf(lock, name);
    assertEquals(cond.startsWith("github.event_name == 'issues' || "), true, name);
    assertEquals(cond.includes("aw_context"), false, name);
  }
});

Deno.test("a centralized slash command's reaction guard also accepts the router's dispatch", async () => {
  const md =
    "---\non:\n  slash_command:\n    name: fix\n    strategy: centralized\n  reaction: eyes\n---\n# Task\n";
  const { lock } = await compileOne(md);
  assertEquals(stepIf(lock, "Add eyes reaction for immediate feedback").includes("aw_context"), true);
});

Deno.test("experiment variants are picked after the status comment and the label removal", async () => {
  const md =
    "---\non:\n  workflow_dispatch:\n  label_command:\n    name: smoke\n    events: [pull_request]\n" +
    "  status-comment: true\nexperiments:\n  tone: [formal, casual]\n---\n# Task\n";
  const { lock } = await compileOne(md);
  const at = (name: string) => lock.indexOf(`      - name: ${name}\n`);
  assertEquals(at("Add comment with workflow run link") > 0, true);
  assertEquals(at("Add comment with workflow run link") < at("Remove trigger label"), true);
  assertEquals(at("Remove trigger label") < at("Restore experiment state from git"), true);
});

Deno.test("the completion comment is told the custom safe-output jobs, as the handler is", async () => {
  const md = "---\non:\n  issues:\n    types: [opened]\n  status-comment: true\nsafe-outputs:\n  jobs:\n" +
    "    send-slack-message:\n      description: Stub\n      runs-on: ubuntu-latest\n      steps:\n" +
    "        - run: echo hi\n---\n# Task\n";
  const { lock } = await compileOne(md);
  const conclusion = lock.slice(lock.indexOf("\n  conclusion:\n"), lock.indexOf("\n  detection:\n"));
  const step = conclusion.slice(conclusion.indexOf("- name: Update reaction comment with completion status"));
  assertEquals(
    /\n {10}GH_AW_SAFE_OUTPUT_JOBS: "\{\\"send_slack_message\\":\\"\\"\}"\n {8}with:\n/.test(step),
    true,
  );
});
