/**
 * gh-aw turns the agent job's own steps into its typed WorkflowStep, whose `env` holds strings only: a number
 * or boolean an author wrote unquoted comes out as quoted text (`INACTIVE_DAYS: "365"`).
 */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const WORKFLOW = `---
on: workflow_dispatch
steps:
  - name: Run report
    env:
      INACTIVE_DAYS: 365
      DRY_RUN: true
      TOPICS: [keep, template]
      LABEL: plain
      EMPTY:
    run: echo "$INACTIVE_DAYS"
---
Summarise.
`;

Deno.test("the agent job's own step env values are written as strings", async () => {
  const { lock } = await compileOne(WORKFLOW);
  assert(lock.includes('          INACTIVE_DAYS: "365"\n'), "a number becomes quoted text");
  assert(lock.includes('          DRY_RUN: "true"\n'), "a boolean becomes quoted text");
  const step = (parse(lock).jobs.agent.steps as { name?: string; env?: Record<string, unknown> }[])
    .find((s) => s.name === "Run report")!;
  assertEquals(step.env, {
    DRY_RUN: "true",
    INACTIVE_DAYS: "365",
    LABEL: "plain",
    TOPICS: '["keep","template"]',
  });
});
