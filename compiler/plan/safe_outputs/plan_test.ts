import { assert, assertEquals } from "../../test_assert.ts";
import { planSafeOutputs } from "./plan.ts";
import { splitSafeOutputs } from "../../source/safe_outputs_section.ts";

Deno.test("safe outputs with only reporting types are configured and still create issues automatically", () => {
  const p = planSafeOutputs(splitSafeOutputs({ noop: null }), "w", "w.md", []);
  assertEquals(p.configured, true);
  assertEquals(p.autoCreateIssue, true);
  assertEquals(p.tools, ["create_issue", "missing_tool", "missing_data", "noop"]);
  assert(p.threatDetection);
  const none = planSafeOutputs(undefined, "w", "w.md", []);
  assertEquals(none.configured, false);
  assertEquals(none.tools, ["create_issue"]);
  const jobs = planSafeOutputs(splitSafeOutputs({ jobs: { "b-job": {}, "a-job": {} } }), "w", "w.md", []);
  assertEquals(jobs.tools.slice(-2), ["a_job", "b_job"]);
});
