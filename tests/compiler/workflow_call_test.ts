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

type Full = {
  on: { workflow_call: { outputs?: Record<string, { description: string; value: string }> } };
  jobs: Record<string, { outputs?: Record<string, string>; steps: (Step & Record<string, unknown>)[] }>;
};

async function callable(extra = ""): Promise<Full> {
  const md = "---\non:\n  workflow_call:\n    inputs:\n      topic:\n        type: string\n" +
    `safe-outputs:\n  add-comment:\n  create-code-scanning-alert:\n${extra}---\n# Task\nGo.\n`;
  return parse((await compileOne(md)).lock) as Full;
}

const artifactNames = (lock: Full, job: string) =>
  lock.jobs[job].steps.filter((s) => /artifact/i.test(s.name ?? ""))
    .map((s) => (s.with as Record<string, unknown> | undefined)?.name).filter((n) => n !== undefined);

Deno.test("a callable workflow offers its safe outputs' results to its caller", async () => {
  const lock = await callable();
  assertEquals(lock.on.workflow_call.outputs, {
    comment_id: {
      description: "ID of the first added comment",
      value: "${{ jobs.safe_outputs.outputs.comment_id }}",
    },
    comment_url: {
      description: "URL of the first added comment",
      value: "${{ jobs.safe_outputs.outputs.comment_url }}",
    },
  });
});

Deno.test("a callable workflow resolves its host repository and checks its .github out from there", async () => {
  const lock = await callable();
  const activation = lock.jobs.activation;
  const names = stepNames(lock as unknown as Lock, "activation");
  const at = (n: string) => names.indexOf(n);
  assert(at("Resolve host repo for activation checkout") >= 0 && at("Compute artifact prefix") > 0);
  assert(at("Print cross-repo setup guidance") > at("Validate COPILOT_GITHUB_TOKEN secret"));
  const checkout = activation.steps.find((s) => s.name === "Checkout .github and .agents folders")!;
  assertEquals(checkout.if, "steps.resolve-host-repo.outputs.target_repo == github.repository");
  const w = checkout.with as Record<string, unknown>;
  assertEquals(w.repository, "${{ steps.resolve-host-repo.outputs.target_repo }}");
  assertEquals(w.ref, "${{ steps.resolve-host-repo.outputs.target_checkout_ref }}");
  assertEquals(activation.outputs?.artifact_prefix, "${{ steps.artifact-prefix.outputs.prefix }}");
  assertEquals(activation.outputs?.target_repo, "${{ steps.resolve-host-repo.outputs.target_repo }}");
  const info = activation.steps.find((s) => s.name === "Generate agentic run info")!;
  assertEquals(
    (info.env as Record<string, string>).GH_AW_INFO_TARGET_REPO,
    "${{ steps.resolve-host-repo.outputs.target_repo }}",
  );
});

Deno.test("every artifact of a callable workflow carries the per-call prefix", async () => {
  const lock = await callable();
  const act = "${{ needs.activation.outputs.artifact_prefix }}",
    agent = "${{ needs.agent.outputs.artifact_prefix }}";
  assertEquals(artifactNames(lock, "activation"), ["${{ steps.artifact-prefix.outputs.prefix }}activation"]);
  assert(
    artifactNames(lock, "agent").every((n) => String(n).startsWith(act)),
    `${artifactNames(lock, "agent")}`,
  );
  assertEquals(lock.jobs.agent.outputs?.artifact_prefix, act);
  assert(artifactNames(lock, "detection").every((n) => String(n).startsWith(agent)));
  for (const job of ["safe_outputs", "conclusion", "upload_code_scanning_sarif"]) {
    const names = artifactNames(lock, job);
    assert(names.length > 0 && names.every((n) => String(n).startsWith(act)), `${job}: ${names}`);
  }
});

Deno.test("with inlined imports a callable workflow still prefixes artifacts but resolves no host", async () => {
  const lock = await callable("inlined-imports: true\n");
  const names = stepNames(lock as unknown as Lock, "activation");
  assert(names.includes("Compute artifact prefix"));
  assert(!names.includes("Resolve host repo for activation checkout"));
  assert(!names.includes("Print cross-repo setup guidance"));
  assert(!("target_repo" in (lock.jobs.activation.outputs ?? {})));
});
