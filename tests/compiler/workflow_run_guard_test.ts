/**
 * Issue 19 item 2: a `workflow_run` trigger runs with the base repository's secrets whatever triggered it;
 * the activation job refuses runs from another repository or a fork (gh-aw's guard; the lock's zizmor note
 * claimed it before it was emitted).
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compile } from "../../compiler/mod.ts";
import { workflowErrors } from "./workflow_parser.ts";

async function lockOf(frontmatter: string): Promise<string> {
  const files: Record<string, string> = {
    ".github/workflows/w.md": `---\n${frontmatter}\nengine: copilot\n---\n# W\nLook at the run.\n`,
  };
  const result = await compile({
    repoRoot: "/nonexistent-repo",
    workflows: Object.keys(files),
    readFile: (path) => Promise.resolve(files[path]),
  });
  const lock = result.workflows[0].lockContent;
  assert.ok(lock, JSON.stringify(result.workflows[0].diagnostics));
  return lock;
}

Deno.test("workflow_run: activation refuses runs from other repositories and forks", async () => {
  const lock = await lockOf('on:\n  workflow_run:\n    workflows: ["CI"]\n    types: [completed]');
  const activation = parse(lock).jobs.activation;
  assert.match(activation.if, /github\.event\.workflow_run\.repository\.id == github\.repository_id/);
  assert.match(activation.if, /!\(github\.event\.workflow_run\.repository\.fork\)/);
  assert.match(activation.if, /needs\.pre_activation\.outputs\.activated == 'true'/);
  assert.deepEqual(await workflowErrors("w.lock.yml", lock), []);
});

Deno.test("other triggers get no workflow_run guard", async () => {
  const lock = await lockOf("on:\n  issues:\n    types: [opened]");
  assert.ok(!JSON.stringify(parse(lock).jobs.activation.if ?? "").includes("workflow_run"));
});

Deno.test("repository_dispatch gets the role check like other triggers (anyone who can dispatch chooses the payload)", async () => {
  const lock = await lockOf("on:\n  repository_dispatch:\n    types: [deploy-finished]");
  const jobs = parse(lock).jobs;
  assert.ok(jobs.pre_activation, "a pre-activation job");
  const membership = jobs.pre_activation.steps.find((s: { id?: string }) => s.id === "check_membership");
  assert.equal(membership?.env?.GH_AW_REQUIRED_ROLES, "admin,maintainer,write");
  assert.match(jobs.activation.if, /needs\.pre_activation\.outputs\.activated == 'true'/);
  const scheduled = parse(await lockOf("on:\n  schedule:\n    - cron: '0 5 * * *'")).jobs;
  assert.equal(scheduled.pre_activation, undefined, "a schedule still needs no role check");
});

Deno.test("workflow_run: the zizmor note stands above the guarded activation if", async () => {
  const lock = await lockOf('on:\n  workflow_run:\n    workflows: ["CI"]\n    types: [completed]');
  const activation = lock.slice(lock.indexOf("\n  activation:\n"));
  assert.match(
    activation,
    /\n {4}needs: pre_activation\n {4}# zizmor: ignore\[dangerous-triggers\] - workflow_run trigger is secured with role and fork validation\n {4}if: /,
  );
});

Deno.test("deployment_status state filters become the activation condition (GitHub has no such filter)", async () => {
  const lock = await lockOf(
    "on:\n  deployment_status:\n    state: [error, failure]\n  skip-if-match: is:issue is:open",
  );
  const jobs = parse(lock).jobs;
  const state =
    "github.event_name != 'deployment_status' || (github.event.deployment_status.state == 'error' || github.event.deployment_status.state == 'failure')";
  assert.equal(jobs.pre_activation.if.trim(), state);
  assert.equal(
    jobs.activation.if.replace(/\s+/g, " ").trim(),
    `needs.pre_activation.outputs.activated == 'true' && (${state})`,
  );
});
