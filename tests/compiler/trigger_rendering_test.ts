import { assert } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const schedule = "  schedule:\n    - cron: 'daily around 9:00'\n";

Deno.test("a fuzzy schedule gets its # Friendly format comment", async () => {
  const { lock } = await compileOne(`---\non:\n${schedule}  workflow_dispatch:\n---\nHi\n`);
  assert(lock.includes("    # Friendly format: daily around 9:00 (scattered)\n"), lock.slice(0, 3000));
});

Deno.test("with a command trigger or stop-after gh-aw v0.76 writes no # Friendly format comment", async () => {
  for (
    const extra of [
      "  slash_command:\n    name: tidy\n",
      "  label_command:\n    name: dev\n",
      "  stop-after: +1mo\n",
      "  reaction: eyes\n",
    ]
  ) {
    const { lock } = await compileOne(`---\non:\n${schedule}${extra}  workflow_dispatch:\n---\nHi\n`);
    assert(/cron: "\d+ \d+ \* \* \*"\n/.test(lock), `the schedule is still scattered (${extra.trim()})`);
    assert(!lock.includes("# Friendly format"), `no comment with ${extra.trim()}`);
  }
});

Deno.test("the aw_context input gh-aw adds is double-quoted; one the author declared is written as declared", async () => {
  const added = await compileOne("---\non:\n  workflow_dispatch:\n---\nHi\n");
  assert(
    added.lock.includes('description: "Agent caller context (used internally by Agentic Workflows)."\n'),
    "the added input",
  );
  const declared = await compileOne(
    '---\non:\n  workflow_dispatch:\n    inputs:\n      aw_context:\n        description: Agent caller context (used internally by Agentic Workflows).\n        required: false\n        type: string\n        default: ""\n---\nHi\n',
  );
  assert(
    declared.lock.includes("description: Agent caller context (used internally by Agentic Workflows).\n"),
    "the author's input, plain",
  );
});
