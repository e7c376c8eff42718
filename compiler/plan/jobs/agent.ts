/**
 * The `agent` job (engine inside the AWF firewall, MCP gateway, safe-outputs MCP server): its outline —
 * the order of its step groups, its needs, env and outputs, and the redaction of exactly the secrets it
 * references. The step groups are in agent_job_steps.ts.
 */
import type { JobPlan, StepPlan } from "../types.ts";
import { agentCreditCondition, agentCreditOutputs, aiCredits } from "./ai_credits.ts";
import { checksOutActionsFolder, targetOf, TRACE_OUTPUTS } from "../steps.ts";
import { DeepMapping, plain, Styled, type YValue } from "../../yaml/writer.ts";
import type { AgentInput } from "../agent/input.ts";
import { BUILTIN_JOB_NAMES } from "./custom.ts";
import { jobIf } from "./conditions.ts";
import { dockerSbxAgentCondition } from "./docker_sbx.ts";
import { sortedRecord } from "./go_format.ts";
import { assetsEnv } from "../safe_outputs/agent_steps.ts";
import {
  afterRunSteps,
  agentConfigSteps,
  agentMemory,
  engineRunSteps,
  engineSetupSteps,
  redactStep,
  toolServerSteps,
  userAndMemorySteps,
  workspaceSteps,
} from "./agent_job_steps.ts";
import { isMapping, isObject } from "../../source/values.ts";

export type { AgentInput } from "../agent/input.ts";

/**
 * Minutes the agent job may run beyond the engine's own `timeout-minutes`: the setup before the engine
 * (images, CLIs, MCP gateway) and the uploads after it, so a timed-out engine still hands over its output.
 */
export const AGENT_JOB_OVERHEAD_MINUTES = 15;

/** Builds the agent job. */
export function agentJob(agent: AgentInput): JobPlan {
  const memory = agentMemory(agent);
  const steps: StepPlan[] = [
    ...workspaceSteps(agent),
    ...userAndMemorySteps(agent, memory),
    ...engineSetupSteps(agent),
    ...agentConfigSteps(agent),
    ...toolServerSteps(agent),
    ...engineRunSteps(agent),
  ];
  const redactAt = steps.length;
  steps.push(...afterRunSteps(agent, memory));
  const job = jobOutline(agent, steps);
  job.outputs = agentOutputs(agent);
  // The redaction step scrubs exactly the secrets the rest of the job references, so it is made last.
  steps.splice(redactAt, 0, redactStep(agent, [...secretsReferenced(job)].sort()));
  return job;
}

/** The job around its steps: what it waits for, where it runs, its condition, permissions and env. */
function jobOutline(agent: AgentInput, steps: StepPlan[]): JobPlan {
  const pre = preAgentJobs(agent.workflowJobs, targetOf(agent.ctx).jobs.agent.needsEveryPreAgentJob === true);
  const job: JobPlan = {
    needs: pre.length ? ["activation", ...pre].sort() : "activation",
    "runs-on": agent.runsOn,
    steps,
  };
  // A top-level `if:` that reads a pre-agent job's result can only be evaluated here, after that job.
  const cond = agent.frontmatter.if;
  if (typeof cond === "string" && pre.some((j) => cond.includes(`needs.${j}.`))) job.if = plain(cond);
  // Releases with the daily AI-credits guardrail gate the agent on it instead (and, with the docker-sbx
  // runtime, on its Docker Hub secrets), each part parenthesised as gh-aw joins conditions.
  const gates = [agentCreditCondition(agent.ctx), dockerSbxAgentCondition(agent.ctx)].filter((
    c,
  ): c is string => c !== undefined);
  if (gates.length > 0) {
    job.if = jobIf(gates.length === 1 ? gates[0] : gates.map((c) => `(${c})`).join(" && "));
  }
  if (agent.environment !== undefined) job.environment = agent.environment;
  if (agent.services !== undefined) job.services = agent.services;
  job.permissions = jobPermissions(agent);
  if (agent.concurrency) job.concurrency = agent.concurrency;
  // `timeout-minutes` bounds the whole job, not only the engine step (GitHub's default is 6 hours). An
  // expression cannot be added to, and the engine step's own bound must not outlast the job: none then.
  // Releases that bound only the engine step write none.
  if (typeof agent.timeoutMinutes === "number" && targetOf(agent.ctx).jobs.agent.jobTimeout) {
    job["timeout-minutes"] = agent.timeoutMinutes + AGENT_JOB_OVERHEAD_MINUTES;
  }
  job.env = {
    DEFAULT_BRANCH: plain("${{ github.event.repository.default_branch }}"),
    ...assetsEnv(agent),
    GH_AW_MCP_LOG_DIR: "/tmp/gh-aw/mcp-logs/safeoutputs",
    GH_AW_WORKFLOW_ID_SANITIZED: agent.ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase(),
    ...agent.env,
  };
  return job;
}

/**
 * The agent's permissions. Checking out gh-aw's `actions` folder needs `contents: read`, so where the workflow's
 * permissions lack it gh-aw adds it to this job alone (the workflow's own checkouts still see none) and, having
 * re-rendered the block at job indentation before indenting it again, writes it four spaces deeper.
 */
function jobPermissions(agent: AgentInput): Record<string, string> | string | DeepMapping {
  const p = agent.permissions;
  if (typeof p === "string" || agent.ctx.contentsRead !== false || !checksOutActionsFolder(agent.ctx)) {
    return p;
  }
  const withContents: Record<string, string> = { ...p, contents: "read" };
  return new DeepMapping(
    Object.fromEntries(Object.keys(withContents).sort().map((k) => [k, withContents[k]])),
    2,
  );
}

/** The job's outputs: what the agent produced, token use, and the error findings downstream jobs read. */
function agentOutputs(agent: AgentInput): Record<string, YValue> {
  const detect = (k: string) => plain(`\${{ steps.detect-agent-errors.outputs.${k} || 'false' }}`);
  // Only an engine with the "Detect agent errors" step (Copilot) exposes the findings it carries.
  const copilot = agent.engine.info.detectsErrors;
  const outputs: Record<string, YValue> = {
    ...(copilot ? { agentic_engine_timeout: detect("agentic_engine_timeout") } : {}),
    // A callable workflow passes its artifact prefix on to the jobs that only need the agent (detection).
    ...(agent.ctx.workflowCall
      ? { artifact_prefix: plain("${{ needs.activation.outputs.artifact_prefix }}") }
      : {}),
    // Only the PR checkout step (which needs the workflow's own `contents` read) sets it.
    ...(agent.ctx.contentsRead !== false
      ? { checkout_pr_success: plain("${{ steps.checkout-pr.outputs.checkout_pr_success || 'true' }}") }
      : {}),
    effective_tokens: plain("${{ steps.parse-mcp-gateway.outputs.effective_tokens }}"),
    effective_tokens_rate_limit_error: plain(
      "${{ steps.parse-mcp-gateway.outputs.effective_tokens_rate_limit_error || 'false' }}",
    ),
    has_patch: plain("${{ steps.collect_output.outputs.has_patch }}"),
    ...(copilot
      ? {
        inference_access_error: detect("inference_access_error"),
        mcp_policy_error: detect("mcp_policy_error"),
      }
      : {}),
    model: plain("${{ needs.activation.outputs.model }}"),
    ...(copilot ? { model_not_supported_error: detect("model_not_supported_error") } : {}),
    output: plain("${{ steps.collect_output.outputs.output }}"),
    output_types: plain("${{ steps.collect_output.outputs.output_types }}"),
    ...TRACE_OUTPUTS,
  };
  if (agent.ctx.cacheMemory && targetOf(agent.ctx).jobs.cacheMemoryRestoreOutputs) {
    for (let i = 0; i < (agent.ctx.cacheMemoryCount ?? 1); i++) {
      const step = `steps.restore_cache_memory_${i}.outputs`;
      outputs[`cache_memory_restore_${i}_cache_hit`] = plain(`\${{ ${step}.cache-hit || 'false' }}`);
      outputs[`cache_memory_restore_${i}_matched_key`] = plain(`\${{ ${step}.cache-matched-key || '' }}`);
    }
  }
  if (!aiCredits(agent.ctx)) return outputs;
  Object.assign(outputs, agentCreditOutputs(agent.ctx, copilot));
  delete outputs.effective_tokens_rate_limit_error;
  return sortedRecord(outputs);
}

/**
 * The custom jobs the agent waits for, as gh-aw lists them: among the jobs that do not (transitively) depend
 * on the agent, the roots (no custom job before them) and the sinks (no custom job after them) — or, with
 * `every` (later releases), all of them under their own names.
 */
export function preAgentJobs(raw: unknown, every = false): string[] {
  if (!isMapping(raw)) return [];
  const jobs = raw;
  const id = (name: string) => name.replace(/-/g, "_");
  const needsOf = new Map<string, string[]>();
  for (const [name, cfg] of Object.entries(jobs)) {
    // A `jobs.<built-in>` entry customises a generated job; it is no job of its own.
    if (BUILTIN_JOB_NAMES.includes(name) && id(name) !== "pre_activation") continue;
    const n = isObject(cfg) ? cfg.needs : undefined;
    needsOf.set(id(name), (Array.isArray(n) ? n : n === undefined ? [] : [n]).map((x) => id(String(x))));
  }
  const after = new Map<string, boolean>();
  const dependsOnAgent = (job: string, seen = new Set<string>()): boolean => {
    if (after.has(job)) return after.get(job)!;
    if (seen.has(job)) return false;
    seen.add(job);
    const result = (needsOf.get(job) ?? []).some((n) =>
      ["agent", "detection", "safe_outputs", "conclusion"].includes(n) || dependsOnAgent(n, seen)
    );
    after.set(job, result);
    return result;
  };
  const pre = [...needsOf.keys()].filter((j) => j !== "pre_activation" && !dependsOnAgent(j));
  if (every) {
    const names = new Map(Object.keys(jobs).map((name) => [id(name), name]));
    return pre.map((j) => names.get(j) ?? j).sort();
  }
  const neededByOthers = new Set(pre.flatMap((j) => needsOf.get(j) ?? []));
  const isRoot = (j: string) => !(needsOf.get(j) ?? []).some((n) => needsOf.has(n) && n !== "pre_activation");
  return pre.filter((j) => isRoot(j) || !neededByOthers.has(j)).sort();
}

/** Names of the secrets (`secrets.NAME`) referenced anywhere in a plan value. */
function secretsReferenced(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === "string") {
    // Most strings name no secret; the substring test spares them the regular expression.
    if (!value.includes("secrets.")) return found;
    for (const m of value.matchAll(/(?<![\w.-])secrets\.([A-Za-z0-9_]+)/g)) found.add(m[1]);
  } else if (value instanceof Styled) {
    secretsReferenced(value.value, found);
  } else if (Array.isArray(value)) {
    for (const v of value) secretsReferenced(v, found);
  } else if (value && typeof value === "object") {
    for (const v of Object.values(value)) secretsReferenced(v, found);
  }
  return found;
}
