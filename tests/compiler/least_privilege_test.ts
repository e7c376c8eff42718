/**
 * Issue 19 item 4: least privilege. The agent runs with the engine's credential, the GitHub tokens its tools
 * need and what the author passes explicitly; the CI-trigger token and plugin tokens stay in the one step
 * that uses them; `safe_outputs` gets `discussions: write` only when an output writes to discussions.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; env?: Record<string, string>; with?: Record<string, string> };
type Job = { env?: Record<string, string>; steps: Step[]; permissions?: Record<string, string> };

const SECRET = /secrets\.([A-Za-z0-9_]+)/g;

function secretsOf(values: Record<string, unknown> | undefined): string[] {
  return Object.values(values ?? {}).flatMap((v) => [...String(v).matchAll(SECRET)].map((m) => m[1]));
}

async function jobsOf(frontmatter: string): Promise<Record<string, Job>> {
  const { lock } = await compileOne(
    `---\non:\n  issues:\n    types: [opened]\n${frontmatter}---\n# W\nDo.\n`,
  );
  return parse(lock).jobs;
}

Deno.test("the agent's environment holds the engine credential, GitHub tokens and the author's own secrets only", async () => {
  const jobs = await jobsOf(
    "engine:\n  id: claude\n  env:\n    MY_KEY: ${{ secrets.MY_KEY }}\nplugins:\n  - plugin: acme/private@abc123\n" +
      "    github-token: ${{ secrets.PRIVATE_PLUGIN_TOKEN }}\nsafe-outputs:\n  create-pull-request:\n" +
      "  push-to-pull-request-branch:\n",
  );
  const agent = jobs.agent;
  assert.deepEqual(secretsOf(agent.env), [], "no secret in the agent job's env");
  const execute = agent.steps.find((s) => s.name?.startsWith("Execute"))!;
  const allowed = new Set([
    "ANTHROPIC_API_KEY",
    "MY_KEY",
    "GH_AW_GITHUB_MCP_SERVER_TOKEN",
    "GH_AW_GITHUB_TOKEN",
    "GITHUB_TOKEN",
  ]);
  for (const name of secretsOf(execute.env)) assert.ok(allowed.has(name), `${name} reaches the agent`);
  assert.ok(secretsOf(execute.env).includes("MY_KEY"), "the author's explicit secret is passed");
  // Each token only in the step that needs it (the redaction step lists every secret to scrub the logs).
  const holders = (secret: string) =>
    Object.entries(jobs).flatMap(([job, j]) =>
      j.steps.filter((s) =>
        s.name !== "Redact secrets in logs" && secretsOf({ ...s.env, ...s.with }).includes(secret)
      )
        .map((s) => `${job}/${s.name}`)
    );
  assert.deepEqual(holders("GH_AW_CI_TRIGGER_TOKEN"), ["safe_outputs/Process Safe Outputs"]);
  assert.deepEqual(holders("PRIVATE_PLUGIN_TOKEN"), ["agent/Install plugins"]);
});

Deno.test("add-comment without discussions: true grants no discussions: write (spec: default off)", async () => {
  const plain = await jobsOf("engine: copilot\nsafe-outputs:\n  add-comment:\n");
  assert.equal(plain.safe_outputs.permissions?.discussions, undefined);
  assert.equal(plain.conclusion.permissions?.discussions, undefined);
  assert.equal(plain.safe_outputs.permissions?.issues, "write");
  assert.equal(plain.safe_outputs.permissions?.["pull-requests"], "write");
  const opted = await jobsOf("engine: copilot\nsafe-outputs:\n  add-comment:\n    discussions: true\n");
  assert.equal(opted.safe_outputs.permissions?.discussions, "write");
  const discussion = await jobsOf("engine: copilot\nsafe-outputs:\n  add-comment:\n  create-discussion:\n");
  assert.equal(
    discussion.safe_outputs.permissions?.discussions,
    "write",
    "a discussion output still needs it",
  );
});

Deno.test("create-pull-request with fallback-as-issue: false grants no issues: write", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nsafe-outputs:\n  create-pull-request:\n    fallback-as-issue: false\n---\nOpen a PR.\n",
  );
  const jobs = parse(lock).jobs;
  assert.deepEqual(jobs.safe_outputs.permissions, { contents: "write", "pull-requests": "write" });
  assert.equal(jobs.conclusion.permissions.issues, undefined);
});
