/**
 * Issue 19 item 5: a callable workflow (`on.workflow_call`) declares the `aw_context` input and the secrets
 * its lock reads (the engine's credential among them), and with `inlined-imports: true` its activation checks
 * out no `.github` folder (a caller in another organisation could not check the callee's repository out).
 */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string };
type Lock = {
  on: {
    workflow_call: { inputs: Record<string, unknown>; secrets?: Record<string, Record<string, unknown>> };
  };
  jobs: Record<string, { steps: Step[] }>;
};

async function callee(extra: string): Promise<Lock> {
  const md =
    "---\non:\n  workflow_call:\n    inputs:\n      topic:\n        type: string\n        required: true\n" +
    `engine: claude\n${extra}---\n# Task\nWrite about \${{ inputs.topic }}.\n`;
  return parse((await compileOne(md)).lock) as Lock;
}

const stepNames = (lock: Lock, job: string) => lock.jobs[job].steps.map((s) => s.name);

Deno.test("a callable workflow declares aw_context and every secret its lock reads, except GITHUB_TOKEN", async () => {
  const lock = await callee("inlined-imports: true\n");
  const call = lock.on.workflow_call;
  assertEquals(Object.keys(call.inputs), ["aw_context", "topic"]);
  const secrets = call.secrets ?? {};
  assert("ANTHROPIC_API_KEY" in secrets, `the engine's credential is declared: ${Object.keys(secrets)}`);
  assertEquals(secrets.ANTHROPIC_API_KEY, { required: false });
  assert(!("GITHUB_TOKEN" in secrets), "GITHUB_TOKEN cannot be declared by a called workflow");
  assertEquals(Object.keys(secrets), [...Object.keys(secrets)].sort());
});

Deno.test("with inlined imports a callable workflow's activation checks out no .github folder", async () => {
  const inlined = await callee("inlined-imports: true\n");
  assert(!stepNames(inlined, "activation").includes("Checkout .github and .agents folders"));
  // Without inlined imports the prompt's runtime imports are read from the checkout, which stays.
  const runtime = await callee("");
  assert(stepNames(runtime, "activation").includes("Checkout .github and .agents folders"));
});

Deno.test("an author's own secret declarations are kept as written", async () => {
  const md = "---\non:\n  workflow_call:\n    secrets:\n      ANTHROPIC_API_KEY:\n        required: true\n" +
    "        description: The key\nengine: claude\n---\n# Task\nGo.\n";
  const lock = parse((await compileOne(md)).lock) as Lock;
  assertEquals(lock.on.workflow_call.secrets?.ANTHROPIC_API_KEY, { description: "The key", required: true });
});
