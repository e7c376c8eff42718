/** The safe_outputs checkouts of code-pushing outputs: gh-aw ANDs the event test onto all the types at once. */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const RUN = "(!cancelled()) && needs.agent.result != 'skipped'";
const has = (t: string) => `${RUN} && contains(needs.agent.outputs.output_types, '${t}')`;
const COMMENT =
  "(github.event_name == 'issue_comment' || github.event_name == 'pull_request_review_comment')";
const NOT_COMMENT =
  "github.event_name != 'issue_comment' && github.event_name != 'pull_request_review_comment'";

Deno.test("with two code-pushing outputs the checkouts test the event once, after both types", async () => {
  const md = "---\non: workflow_dispatch\npermissions:\n  contents: read\nsafe-outputs:\n" +
    "  create-pull-request:\n  push-to-pull-request-branch:\n---\n# Task\n";
  const { lock } = await compileOne(md);
  const either = `${has("create_pull_request")} || ${has("push_to_pull_request_branch")}`;
  assertEquals(
    lock.includes(
      `      - name: Checkout repository (trusted default branch for comment events)\n        if: (${either}) && ${COMMENT}\n`,
    ),
    true,
  );
  assertEquals(
    lock.includes(`      - name: Checkout repository\n        if: (${either}) && ${NOT_COMMENT}\n`),
    true,
  );
  assertEquals(lock.includes(`      - name: Configure Git credentials\n        if: ${either}\n`), true);
});

Deno.test("with one code-pushing output the checkout condition has no parentheses", async () => {
  const md =
    "---\non: workflow_dispatch\npermissions:\n  contents: read\nsafe-outputs:\n  create-pull-request:\n" +
    "---\n# Task\n";
  const { lock } = await compileOne(md);
  assertEquals(lock.includes(`        if: ${has("create_pull_request")} && ${COMMENT}\n`), true);
});
