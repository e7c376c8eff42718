/**
 * A workflow whose permissions grant no `contents`: the agent job still reads gh-aw's `actions` folder in dev
 * mode, so gh-aw adds `contents: read` to that job alone (written four spaces deeper, as its re-rendered block
 * is), while the PR checkout and its `checkout_pr_success` output stay out.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

const WORKFLOW = "---\non:\n  issues:\n    types: [opened]\npermissions:\n  issues: read\n---\n# W\nDo.\n";

Deno.test("in dev mode the agent job of a workflow without contents permission reads contents, written as gh-aw writes it", async () => {
  const { lock } = await compileOne(WORKFLOW, {}, { actionMode: "dev" });
  assert.match(lock, /\n {4}permissions:\n {10}contents: read\n {10}issues: read\n/);
  const agent = parse(lock).jobs.agent;
  assert.deepEqual(agent.permissions, { contents: "read", issues: "read" });
  assert.equal(agent.outputs.checkout_pr_success, undefined);
  assert.equal(agent.steps.some((s: { id?: string }) => s.id === "checkout-pr"), false);
});

Deno.test("in release mode the agent job keeps the workflow's permissions as written", async () => {
  const { lock } = await compileOne(WORKFLOW, {}, { actionMode: "release" });
  const agent = parse(lock).jobs.agent;
  assert.deepEqual(agent.permissions, { issues: "read" });
  assert.equal(agent.outputs.checkout_pr_success, undefined);
});
