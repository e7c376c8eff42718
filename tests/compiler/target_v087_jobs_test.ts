/**
 * Issue 29: the v0.87.4 target shapes the built-in jobs as that release does (AI-credit guardrail, runtime
 * features, safe_outputs job, agent-output fallback, stacked-PR guard) and accepts the keys it compiles
 * (`model`, `max-ai-credits`, `max-daily-ai-credits`, `safe-inputs`), while v0.76.1 keeps its own jobs and
 * refuses those keys.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { parse } from "yaml";
import { creditAmount } from "../../compiler/plan/jobs/ai_credits.ts";
import { compileOne, diagnosticsOf } from "./helpers.ts";
import { engineFor } from "../../compiler/plan/engines/registry.ts";
import { V0_76_1 } from "../../compiler/targets/v0_76_1.ts";
import { V0_87_4 } from "../../compiler/targets/v0_87_4.ts";

const MD =
  "---\non:\n  pull_request:\n  workflow_dispatch:\nengine: copilot\nsafe-outputs:\n  add-comment:\n---\nDo.\n";
type Job = Record<string, unknown> & { steps: Record<string, unknown>[] };
const jobsOf = (lock: string) => (parse(lock) as { jobs: Record<string, Job> }).jobs;
const stepNames = (job: Job) => job.steps.map((s) => s.name);

Deno.test("v0.87.4: daily AI-credits guardrail, OAuth check and usage cache", async () => {
  const { lock } = await compileOne(MD, {}, { ghAwVersion: "v0.87.4", actionMode: "release" });
  const jobs = jobsOf(lock);
  const activation = jobs.activation;
  assertEquals(
    (activation.env as Record<string, string>).GH_AW_MAX_DAILY_AI_CREDITS,
    "${{ vars.GH_AW_DEFAULT_MAX_DAILY_AI_CREDITS || '5000' }}",
  );
  assertEquals(
    (activation.env as Record<string, string>).GH_AW_RUNTIME_FEATURES,
    "${{ vars.GH_AW_RUNTIME_FEATURES }}",
  );
  const names = stepNames(activation);
  const info = names.indexOf("Generate agentic run info");
  assertEquals(names.slice(info + 1, info + 4), [
    "Restore daily AIC usage cache",
    "Restore daily AIC usage cache (artifact fallback)",
    "Check daily workflow token guardrail",
  ]);
  assert(names.includes("Check for OAuth tokens"));
  assert("daily_ai_credits_exceeded" in (activation.outputs as object));
  assertEquals(jobs.agent.if, "needs.activation.outputs.daily_ai_credits_exceeded != 'true'");
  const conclusion = jobs.conclusion;
  assert(stepNames(conclusion).includes("Save daily AIC usage cache"));
  assert(stepNames(conclusion).includes("Report failed jobs"));
  assertEquals((conclusion.permissions as Record<string, string>).actions, "read");
  const failure = conclusion.steps.find((s) => s.name === "Handle agent failure")!.env as Record<
    string,
    string
  >;
  assertEquals(failure.GH_AW_MAX_AI_CREDITS, "${{ vars.GH_AW_DEFAULT_MAX_AI_CREDITS || '1000' }}");
  assertEquals(failure.GH_AW_MAX_EFFECTIVE_TOKENS, undefined);
});

Deno.test("v0.87.4: safe_outputs job, agent-output fallback and stacked-PR guard", async () => {
  const { lock } = await compileOne(MD, {}, { ghAwVersion: "v0.87.4", actionMode: "release" });
  const so = jobsOf(lock).safe_outputs;
  assertEquals(so["timeout-minutes"], 45);
  assertEquals((so.permissions as Record<string, string>).contents, undefined);
  assert("process_safe_outputs_status" in (so.outputs as object));
  const download = so.steps.find((s) => s.name === "Download agent output artifact")!;
  assertEquals((download.with as Record<string, unknown>).pattern, "{agent,agent-output-fallback}");
  assert(lock.includes("require(path.join(actionsDir, 'process_safe_outputs.cjs'))"));
  assert(lock.includes("run: | # zizmor: ignore[github-env]"));
  assert(lock.includes("github.event.pull_request.stack == null"));
  assert(lock.endsWith("\n") && !lock.endsWith("\n\n"));
});

Deno.test("v0.76.1 keeps its jobs: no guardrail, no fallback artifact, no stacked-PR guard", async () => {
  const { lock } = await compileOne(MD, {}, { actionMode: "release" });
  const jobs = jobsOf(lock);
  assertEquals(jobs.activation.env, undefined);
  assertEquals(stepNames(jobs.activation).includes("Check for OAuth tokens"), false);
  assertEquals(jobs.safe_outputs["timeout-minutes"], 15);
  assert(lock.includes("safe_output_handler_manager.cjs"));
  assertEquals(lock.includes("agent-output-fallback"), false);
  assertEquals(lock.includes("pull_request.stack"), false);
  assertEquals(lock.includes("GH_AW_RUNTIME_FEATURES"), false);
});

const NEW_KEYS = "---\non: workflow_dispatch\nengine: copilot\nmodel: gpt-5.4\nmax-ai-credits: 1500\n" +
  "max-daily-ai-credits: 10K\n---\nDo.\n";

Deno.test("v0.87.4 compiles model, max-ai-credits and max-daily-ai-credits", async () => {
  const { lock, result } = await compileOne(NEW_KEYS, {}, { ghAwVersion: "v0.87.4", actionMode: "release" });
  const diagnostics = result.workflows[0].diagnostics;
  assertEquals(diagnostics.filter((d) => d.severity === "error"), []);
  assert(lock.includes('"agent_model":"gpt-5.4"'));
  const jobs = jobsOf(lock);
  assertEquals((jobs.activation.env as Record<string, string>).GH_AW_MAX_DAILY_AI_CREDITS, "10000");
  const failure = jobs.conclusion.steps.find((s) => s.name === "Handle agent failure")!.env as Record<
    string,
    string
  >;
  assertEquals(failure.GH_AW_MAX_AI_CREDITS, "1500");
});

Deno.test("v0.76.1 refuses the keys of later releases", async () => {
  const diagnostics = await diagnosticsOf(NEW_KEYS);
  const codes = diagnostics.filter((d) => d.severity === "error").map((d) => d.code);
  assertEquals(codes, ["newer-key-unsupported", "newer-key-unsupported", "newer-key-unsupported"]);
});

Deno.test("creditAmount reads numbers and K/M amounts only", () => {
  assertEquals(creditAmount(1500), "1500");
  assertEquals(creditAmount("10K"), "10000");
  assertEquals(creditAmount("2.5m"), "2500000");
  assertEquals(creditAmount("lots"), undefined);
  assertEquals(creditAmount(-1), undefined);
});

Deno.test("engineFor derives v0.87.4's Copilot CLI from the target; v0.76.1's stays", () => {
  const v087 = engineFor("copilot", V0_87_4);
  assertEquals(v087.version, "1.0.80");
  assert(v087.defaultModel.endsWith("'auto' }}"), v087.defaultModel);
  assertEquals(v087.instructionFiles, ["AGENTS.md"]);
  const v076 = engineFor("copilot", V0_76_1);
  assertEquals(v076.version, "1.0.55");
  assert(v076.defaultModel.endsWith("'claude-sonnet-4.6' }}"), v076.defaultModel);
  // An engine the target does not change is the registry's own.
  assertEquals(engineFor("claude", V0_87_4), engineFor("claude", V0_76_1));
});
