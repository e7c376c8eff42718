/**
 * Issue 19 item 8: engine authentication by workload identity federation (spec C.2, C.3). With
 * `engine.auth: {type: github-oidc, …}` the jobs running the engine get `id-token: write`, read and validate
 * no API-key secret, and hand the federation parameters to the firewall's API proxy, which exchanges the
 * OIDC token; the shape of `engine.auth` is checked with located errors.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne, diagnosticsOf } from "./helpers.ts";

type Step = { name?: string; run?: string; env?: Record<string, string> };
type Job = { permissions?: Record<string, string>; steps: Step[] };

const CLAUDE_AUTH = "engine:\n  id: claude\n  auth:\n    type: github-oidc\n    provider: anthropic\n" +
  "    federation-rule-id: fdrl_rule\n    organization-id: org-uuid\n    service-account-id: svac_account\n" +
  "    workspace-id: wrkspc_space\n";
const GEMINI_AUTH = "engine:\n  id: gemini\n  auth:\n    type: github-oidc\n    provider: gcp\n" +
  "    workload-identity-provider: projects/1/locations/global/workloadIdentityPools/p/providers/gh\n" +
  "    service-account: agent@proj.iam.gserviceaccount.com\n    project: proj\n";

function workflow(frontmatter: string): string {
  return `---\non:\n  issues:\n    types: [opened]\npermissions:\n  contents: read\n${frontmatter}` +
    "safe-outputs:\n  add-comment:\n---\n# W\nDo.\n";
}

async function compiled(frontmatter: string): Promise<{ lock: string; jobs: Record<string, Job> }> {
  const { lock } = await compileOne(workflow(frontmatter));
  return { lock, jobs: parse(lock).jobs };
}

function step(job: Job, prefix: string): Step {
  const found = job.steps.find((s) => s.name?.startsWith(prefix));
  assert.ok(found, `a step named ${prefix}…`);
  return found;
}

Deno.test("a claude workflow with engine.auth reads no ANTHROPIC_API_KEY and validates none", async () => {
  const { lock, jobs } = await compiled(CLAUDE_AUTH);
  // Only `--exclude-env ANTHROPIC_API_KEY` may remain (a guard, not a read).
  assert.doesNotMatch(lock, /secrets\.ANTHROPIC_API_KEY|# {3}- ANTHROPIC_API_KEY/);
  assert.ok(
    !jobs.activation.steps.some((s) => s.name?.startsWith("Validate ") && s.name.endsWith(" secret")),
  );
});

Deno.test("the agent and detection jobs of a federated claude workflow get id-token: write", async () => {
  const { jobs } = await compiled(CLAUDE_AUTH);
  assert.equal(jobs.agent.permissions?.["id-token"], "write");
  assert.equal(jobs.agent.permissions?.contents, "read");
  assert.equal(jobs.detection.permissions?.["id-token"], "write");
  assert.equal(jobs.activation.permissions?.["id-token"], undefined, "only the jobs that run the engine");
});

Deno.test("the Anthropic federation parameters reach the firewall step that exchanges the token", async () => {
  const { jobs } = await compiled(CLAUDE_AUTH);
  for (const [job, prefix] of [[jobs.agent, "Execute Claude"], [jobs.detection, "Execute Claude"]] as const) {
    const env = step(job, prefix).env!;
    assert.equal(env.AWF_AUTH_TYPE, "github-oidc");
    assert.equal(env.AWF_AUTH_PROVIDER, "anthropic");
    assert.equal(env.AWF_AUTH_ANTHROPIC_FEDERATION_RULE_ID, "fdrl_rule");
    assert.equal(env.AWF_AUTH_ANTHROPIC_ORGANIZATION_ID, "org-uuid");
    assert.equal(env.AWF_AUTH_ANTHROPIC_SERVICE_ACCOUNT_ID, "svac_account");
    assert.equal(env.AWF_AUTH_ANTHROPIC_WORKSPACE_ID, "wrkspc_space");
  }
});

Deno.test("the agent's container never receives the runner's OIDC request token", async () => {
  const { jobs } = await compiled(CLAUDE_AUTH);
  for (const job of [jobs.agent, jobs.detection]) {
    const run = step(job, "Execute Claude").run!;
    assert.match(run, /--exclude-env ACTIONS_ID_TOKEN_REQUEST_TOKEN/);
    assert.match(run, /--exclude-env ACTIONS_ID_TOKEN_REQUEST_URL/);
  }
});

Deno.test("a gemini workflow with Google engine.auth reads no GEMINI_API_KEY and passes the WIF provider", async () => {
  const { lock, jobs } = await compiled(GEMINI_AUTH);
  assert.doesNotMatch(lock, /secrets\.GEMINI_API_KEY|# {3}- GEMINI_API_KEY/);
  assert.equal(jobs.agent.permissions?.["id-token"], "write");
  const env = step(jobs.agent, "Execute Gemini").env!;
  assert.equal(env.AWF_AUTH_PROVIDER, "gcp");
  assert.equal(
    env.AWF_AUTH_GCP_WORKLOAD_IDENTITY_PROVIDER,
    "projects/1/locations/global/workloadIdentityPools/p/providers/gh",
  );
  assert.equal(env.AWF_AUTH_GCP_SERVICE_ACCOUNT, "agent@proj.iam.gserviceaccount.com");
  assert.equal(env.GOOGLE_CLOUD_PROJECT, "proj");
  assert.equal(String(env.GOOGLE_GENAI_USE_VERTEXAI), "true");
  assert.equal(step(jobs.detection, "Execute Gemini").env!.AWF_AUTH_PROVIDER, "gcp");
});

Deno.test("without engine.auth the claude workflow still validates and reads ANTHROPIC_API_KEY", async () => {
  const { jobs } = await compiled("engine: claude\n");
  assert.ok(jobs.activation.steps.some((s) => s.name === "Validate ANTHROPIC_API_KEY secret"));
  assert.equal(jobs.agent.permissions?.["id-token"], undefined);
  assert.equal(step(jobs.agent, "Execute Claude").env!.AWF_AUTH_TYPE, undefined);
});

async function authErrors(frontmatter: string) {
  return (await diagnosticsOf(workflow(frontmatter))).filter((d) => d.code === "engine-auth-invalid");
}

Deno.test("engine.auth missing federation fields is an error naming each, located at auth", async () => {
  const errors = await authErrors(
    "engine:\n  id: claude\n  auth:\n    type: github-oidc\n    federation-rule-id: fdrl_rule\n",
  );
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /organization-id, service-account-id/);
  assert.equal(errors[0].line, 10, "located in the auth mapping");
});

Deno.test("engine.auth with a type other than github-oidc is refused at the type line", async () => {
  const errors = await authErrors(
    "engine:\n  id: claude\n  auth:\n    type: api-key\n    federation-rule-id: a\n" +
      "    organization-id: b\n    service-account-id: c\n",
  );
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /must be github-oidc, got "api-key"/);
  assert.equal(errors[0].line, 10);
});

Deno.test("engine.auth is refused for an engine without workload identity federation", async () => {
  const errors = await authErrors("engine:\n  id: codex\n  auth:\n    type: github-oidc\n");
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /engine codex has no workload identity federation/);
});

Deno.test("engine.auth naming another engine's provider or an unknown key is refused", async () => {
  const wrongProvider = await authErrors(
    "engine:\n  id: gemini\n  auth:\n    type: github-oidc\n    provider: anthropic\n",
  );
  assert.match(wrongProvider[0].message, /provider gcp, not "anthropic"/);
  const unknown = await authErrors(CLAUDE_AUTH + "    audience: x\n");
  assert.equal(unknown.length, 1);
  assert.match(unknown[0].message, /unknown engine.auth key audience/);
});

Deno.test("engine.auth with permissions: read-all is refused (it cannot grant id-token: write)", async () => {
  const md = workflow(CLAUDE_AUTH).replace("permissions:\n  contents: read\n", "permissions: read-all\n");
  const errors = (await diagnosticsOf(md)).filter((d) => d.code === "engine-auth-invalid");
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /id-token: write/);
});
