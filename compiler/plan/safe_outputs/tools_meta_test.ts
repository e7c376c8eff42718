import { assertEquals } from "../../test_assert.ts";
import { toolsMetaJson } from "./tools_meta.ts";
import { planSafeOutputs } from "./plan.ts";
import { splitSafeOutputs } from "../../source/safe_outputs_section.ts";

function meta(raw: Record<string, unknown>) {
  const so = planSafeOutputs(splitSafeOutputs(raw), "wf", "wf.md", []);
  return JSON.parse(toolsMetaJson(so));
}

Deno.test("constraint suffixes state the effective limits, prefixes and labels of each enabled tool", () => {
  const m = meta({
    "create-issue": { "title-prefix": "[x] ", labels: ["a", "b"] },
    "add-labels": { allowed: ["bug"] },
    "remove-labels": { allowed: ["smoke", "wip"], max: 1 },
  });
  assertEquals(m.description_suffixes, {
    add_labels: ' CONSTRAINTS: Only these labels are allowed: ["bug"].',
    create_issue:
      ' CONSTRAINTS: Maximum 1 issue(s) can be created. Title will be prefixed with "[x] ". Labels ["a" "b"] will be automatically added.',
    remove_labels:
      " CONSTRAINTS: Maximum 1 label(s) can be removed. Only these labels can be removed: [smoke wip].",
  });
  assertEquals(m.repo_params, {});
  assertEquals(m.dynamic_tools, []);
});

Deno.test("a bare body: allows body updates while bare title: and status: are not announced", () => {
  const m = meta({ "update-issue": { title: null, body: null, status: null, target: "*" } });
  assertEquals(
    m.description_suffixes.update_issue,
    " CONSTRAINTS: Maximum 1 issue(s) can be updated. Target: *. Body updates are allowed.",
  );
});

Deno.test("tools that may target other repositories get a repo parameter", () => {
  const m = meta({ "add-comment": { "allowed-repos": ["o/r"] }, "create-issue": {} });
  assertEquals(Object.keys(m.repo_params), ["add_comment"]);
  assertEquals(m.repo_params.add_comment.type, "string");
});
