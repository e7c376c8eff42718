/**
 * Issue 29: the v0.87.4 target's remaining differences outside the agent's steps — custom jobs, repo-memory
 * branches, command conditions, the docker-sbx secrets check, OTel attributes, the pull-request head SHA,
 * safe-output handler defaults and job outputs, commented `on:` keys — each checked against v0.76.1, which
 * keeps its own form.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

type Step = Record<string, unknown>;
type Job = Record<string, unknown> & { steps: Step[] };
const jobsOf = (lock: string) => (parse(lock) as { jobs: Record<string, Job> }).jobs;
const V087 = { ghAwVersion: "v0.87.4", actionMode: "release" as const };
const V076 = { ghAwVersion: "v0.76.1", actionMode: "release" as const };
const LONG_IF =
  "always() && needs.activation.result == 'success' && ((github.event_name == 'workflow_dispatch' " +
  "&& needs.build.result == 'success') || (github.event_name != 'workflow_dispatch' && needs.build.result == 'skipped'))";

const CUSTOM = `---
on:
  workflow_dispatch:
engine: copilot
jobs:
  build:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@v6
      - uses: actions/checkout@v6
        with:
          persist-credentials: true
  publish:
    needs: [activation, build]
    if: ${LONG_IF}
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v6
        with:
          fetch-depth: 0
---
Do.
`;

Deno.test("v0.87.4 custom jobs: checkouts keep no credentials, long if folded, no blank after permissions", async () => {
  const { lock } = await compileOne(CUSTOM, {}, V087);
  const jobs = jobsOf(lock);
  const checkouts = (j: Job) => j.steps.filter((s) => String(s.uses).startsWith("actions/checkout@"));
  assertEquals(checkouts(jobs.build).map((s) => (s.with as Record<string, unknown>)["persist-credentials"]), [
    false,
    true,
  ]);
  assertEquals(checkouts(jobs.publish)[0].with, { "fetch-depth": 0, "persist-credentials": false });
  assert(/\n {4}if: >\n {6}always\(\) && /.test(lock), "the long if is a folded block");
  assertEquals(String(jobs.publish.if).replace(/\s+/g, " ").trim(), LONG_IF);
  assert(/ {4}permissions:\n {6}contents: read\n {4}steps:/.test(lock), "no empty line after permissions");
});

Deno.test("v0.76.1 custom jobs keep the user's checkouts, a plain if and the blank line", async () => {
  const { lock } = await compileOne(CUSTOM, {}, V076);
  const jobs = jobsOf(lock);
  const first = jobs.build.steps.find((s) => String(s.uses).startsWith("actions/checkout@"))!;
  assertEquals(first.with, undefined);
  assert(lock.includes(`    if: ${LONG_IF}\n`));
  assert(/ {4}permissions:\n {6}contents: read\n\n {4}steps:/.test(lock));
});

const MEMORY = (tool: string) =>
  `---\non:\n  workflow_dispatch:\nengine: copilot\ntools:\n  repo-memory: ${tool}\nsafe-outputs:\n  noop:\n---\nDo.\n`;

Deno.test("v0.87.4 repo memory without an id lives on memory/<workflow id>, with one on memory/<id>", async () => {
  const { lock } = await compileOne(MEMORY("true"), {}, V087);
  const jobs = jobsOf(lock);
  const push = jobs.push_repo_memory;
  assertEquals(
    (push.concurrency as Record<string, string>).group,
    "push-repo-memory-${{ github.repository }}|memory/w",
  );
  assertEquals(
    (push.env as Record<string, string>).GH_AW_RUNTIME_FEATURES,
    "${{ vars.GH_AW_RUNTIME_FEATURES }}",
  );
  const sub = jobs.activation.steps.find((s) => s.name === "Substitute placeholders")!;
  assertEquals((sub.env as Record<string, string>).GH_AW_MEMORY_BRANCH_NAME, "memory/w");
  const named = jobsOf((await compileOne(MEMORY("\n    - id: notes"), {}, V087)).lock);
  assert(
    String((named.push_repo_memory.concurrency as Record<string, string>).group).endsWith("|memory/notes"),
  );
  const old = jobsOf((await compileOne(MEMORY("true"), {}, V076)).lock);
  assert(
    String((old.push_repo_memory.concurrency as Record<string, string>).group).endsWith("|memory/default"),
  );
  assertEquals(old.push_repo_memory.env, undefined);
});

const SLASH = "---\non:\n  schedule: daily\n  slash_command:\n    name: helper\nengine: copilot\n---\nDo.\n";

Deno.test("v0.87.4 negates a command's other events as one disjunction", async () => {
  const events = "github.event_name == 'issues' || github.event_name == 'issue_comment'";
  const newer = jobsOf((await compileOne(SLASH, {}, V087)).lock).pre_activation.if as string;
  assert(newer.includes(`|| !(${events} ||`), newer);
  assert(!newer.includes("(!(github.event_name == 'issues'))"));
  const older = jobsOf((await compileOne(SLASH, {}, V076)).lock).pre_activation.if as string;
  assert(older.includes("(!(github.event_name == 'issues')) && (!(github.event_name == 'issue_comment'))"));
});

const SBX = `---
on:
  workflow_dispatch:
engine: copilot
sandbox:
  agent:
    id: awf
    runtime: docker-sbx
safe-outputs:
  noop:
---
Do.
`;

Deno.test("v0.87.4 docker-sbx: activation checks the Docker Hub secrets, agent and conclusion follow", async () => {
  const { lock } = await compileOne(SBX, {}, V087);
  const jobs = jobsOf(lock);
  const check = jobs.activation.steps.find((s) => s.id === "docker-sbx-secrets")!;
  assertEquals(check.env, {
    DOCKER_PAT_VAL: "${{ secrets.DOCKER_PAT }}",
    DOCKER_USERNAME_VAL: "${{ secrets.DOCKER_USERNAME }}",
    DOCKER_SBX_SECRETS_SOFT_FAIL: "true",
  });
  assertEquals(
    (jobs.activation.outputs as Record<string, string>).docker_sbx_secrets_result,
    "${{ steps.docker-sbx-secrets.outputs.verification_result }}",
  );
  assertEquals(
    String(jobs.agent.if).trim(),
    "(needs.activation.outputs.daily_ai_credits_exceeded != 'true') && " +
      "(needs.activation.outputs.docker_sbx_secrets_result != 'failed')",
  );
  assert(
    String(jobs.conclusion.if).includes("needs.activation.outputs.docker_sbx_secrets_result == 'failed' ||"),
  );
  const failure = jobs.conclusion.steps.find((s) => s.name === "Handle agent failure")!;
  assertEquals(
    (failure.env as Record<string, string>).GH_AW_DOCKER_SBX_SECRETS_RESULT,
    "${{ needs.activation.outputs.docker_sbx_secrets_result }}",
  );
  // A step id ending in "secrets" is no secret reference: the manifest lists only the real ones.
  const manifest = JSON.parse(/^# gh-aw-manifest: (.*)$/m.exec(lock)![1]);
  assert(manifest.secrets.includes("DOCKER_PAT"));
  assert(!manifest.secrets.includes("outputs"), manifest.secrets.join(","));
  const old = jobsOf((await compileOne(SBX, {}, V076)).lock);
  assert(!old.activation.steps.some((s) => s.id === "docker-sbx-secrets"));
});

Deno.test("v0.87.4 percent-encodes the workflow name in OTEL_RESOURCE_ATTRIBUTES", async () => {
  const md = (v: string) =>
    `---\nname: Smoke OTel, Tracing\non:\n  workflow_dispatch:\nengine: copilot\nobservability:\n  otlp:\n` +
    `    endpoint: https://otel.example.com\n---\nDo.\n${v}`;
  const env = (lock: string) => (parse(lock) as { env: Record<string, string> }).env.OTEL_RESOURCE_ATTRIBUTES;
  assert(
    env((await compileOne(md(""), {}, V087)).lock).startsWith(
      "gh-aw.workflow.name=Smoke%20OTel%2C%20Tracing,",
    ),
  );
  assert(
    env((await compileOne(md(""), {}, V076)).lock).startsWith("gh-aw.workflow.name=Smoke OTel, Tracing,"),
  );
});

Deno.test("v0.87.4 names the PR head SHA only for a pull_request trigger as written", async () => {
  const sha = (lock: string) => (jobsOf(lock).safe_outputs.env as Record<string, string>).GH_AW_HEAD_SHA;
  const slash = SLASH.replace("engine: copilot", "engine: copilot\nsafe-outputs:\n  add-comment:");
  assertEquals(sha((await compileOne(slash, {}, V087)).lock), undefined);
  const pr = "---\non:\n  pull_request:\nengine: copilot\nsafe-outputs:\n  add-comment:\n---\nDo.\n";
  assertEquals(sha((await compileOne(pr, {}, V087)).lock), "${{ github.event.pull_request.head.sha }}");
});

Deno.test("v0.87.4 handler defaults and job outputs: update_branch_stacks, milestone_assigned", async () => {
  const md = "---\non:\n  workflow_dispatch:\nengine: copilot\nsafe-outputs:\n  update-pull-request:\n" +
    "  assign-milestone:\n    allowed: [v1]\n---\nDo.\n";
  const handler = (lock: string) => {
    const step = jobsOf(lock).safe_outputs.steps.find((s) => s.name === "Process Safe Outputs")!;
    return JSON.parse((step.env as Record<string, string>).GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG);
  };
  const { lock } = await compileOne(md, {}, V087);
  assertEquals(handler(lock).update_pull_request.update_branch_stacks, true);
  assertEquals(
    (jobsOf(lock).safe_outputs.outputs as Record<string, string>).assign_milestone_milestone_assigned,
    "${{ steps.process_safe_outputs.outputs.milestone_assigned }}",
  );
  const set = md.replace("update-pull-request:\n", "update-pull-request:\n    update-branch-stacks: false\n");
  assertEquals(
    handler((await compileOne(set, {}, V087)).lock).update_pull_request.update_branch_stacks,
    false,
  );
  const old = (await compileOne(md, {}, V076)).lock;
  assertEquals(handler(old).update_pull_request.update_branch_stacks, undefined);
  assert(!("assign_milestone_milestone_assigned" in (jobsOf(old).safe_outputs.outputs as object)));
});

Deno.test("v0.87.4 writes a commented on: key's nested lines at the key's indentation", async () => {
  const md = "---\non:\n  workflow_dispatch:\n  skip-if-match:\n    query: is:pr is:open\n    max: 9\n" +
    "engine: copilot\n---\nDo.\n";
  const newer = (await compileOne(md, {}, V087)).lock;
  assert(
    newer.includes(
      "  # skip-if-match: # Skip-if-match processed as search check in pre-activation job\n  # max: 9\n",
    ),
  );
  const older = (await compileOne(md, {}, V076)).lock;
  assert(
    older.includes(
      "  # skip-if-match: # Skip-if-match processed as search check in pre-activation job\n    # max: 9\n",
    ),
  );
});
