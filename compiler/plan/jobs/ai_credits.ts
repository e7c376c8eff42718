/**
 * AI-credit accounting of the releases that have it (v0.87): the daily AI-credits guardrail the activation
 * job checks against a usage cache the conclusion job keeps, the usage artifact, and the credit figures the
 * failure handler and no-op reporter are told. Each builder returns nothing for a target without it, so the
 * job planners call them unconditionally.
 */
import type { StepPlan } from "../types.ts";
import { artifactName, type JobCtx, scriptStep, shStep, targetOf } from "../steps.ts";
import { dq, lit, plain, type Styled, type YValue } from "../../yaml/writer.ts";

/** The AI-credit settings of a target that accounts in AI credits. */
export interface AiCreditStyle {
  /** The daily guardrail's limit when the workflow sets none (a repository variable may override it). */
  dailyDefault: string;
  /** The per-run limit the failure handler reports when the workflow sets none. */
  runDefault: string;
}

/** The workflow's `max-daily-ai-credits` and `max-ai-credits`, as normalised numbers (text). */
export interface AiCreditLimits {
  daily?: string;
  run?: string;
}

const CACHE_PATH = "/tmp/gh-aw/agentic-workflow-usage-cache.jsonl";
const DAILY_IF = "${{ env.GH_AW_MAX_DAILY_AI_CREDITS != '' }}";
const GUARDRAIL = "steps.daily-effective-workflow-guardrail.outputs";

/** The target's credit settings, when it accounts in AI credits. */
export function aiCredits(ctx: JobCtx): AiCreditStyle | undefined {
  return targetOf(ctx).jobs.aiCredits;
}

/**
 * A credit amount as gh-aw writes it: a number, or text with a `K`/`M` suffix (`10K` → `10000`); undefined
 * for anything else.
 */
export function creditAmount(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isFinite(v) && v >= 0) return String(v);
  if (typeof v !== "string") return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(v);
  if (!m) return undefined;
  const scale = m[2] === "" ? 1 : /k/i.test(m[2]) ? 1_000 : 1_000_000;
  const n = Number(m[1]) * scale;
  return Number.isInteger(n) ? String(n) : undefined;
}

/** The daily limit's value: the workflow's own, else the repository variable or the target's default. */
function dailyLimit(style: AiCreditStyle, limits: AiCreditLimits): YValue {
  return limits.daily !== undefined
    ? dq(limits.daily)
    : plain(`\${{ vars.GH_AW_DEFAULT_MAX_DAILY_AI_CREDITS || '${style.dailyDefault}' }}`);
}

/** The activation job's env entry naming the daily limit. */
export function activationCreditEnv(ctx: JobCtx, limits: AiCreditLimits): Record<string, YValue> {
  const style = aiCredits(ctx);
  return style ? { GH_AW_MAX_DAILY_AI_CREDITS: dailyLimit(style, limits) } : {};
}

/** The activation job's guardrail and OAuth-check outputs. */
export function activationCreditOutputs(ctx: JobCtx): Record<string, YValue> {
  if (!aiCredits(ctx)) return {};
  return {
    daily_ai_credits_exceeded: plain(`\${{ ${GUARDRAIL}.daily_ai_credits_exceeded == 'true' }}`),
    daily_ai_credits_guardrail_status: plain(`\${{ ${GUARDRAIL}.daily_ai_credits_guardrail_status || '' }}`),
    daily_ai_credits_threshold: plain(`\${{ ${GUARDRAIL}.daily_ai_credits_threshold || '' }}`),
    daily_ai_credits_total_effective_tokens: plain(
      `\${{ ${GUARDRAIL}.daily_ai_credits_total_effective_tokens || '' }}`,
    ),
    oauth_token_check_failed: plain(
      "${{ steps.check-oauth-tokens.outputs.oauth_token_check_failed == 'true' }}",
    ),
  };
}

/** The setup action's input that lets it read the usage artifact when the daily limit is on. */
export function setupCreditInputs(ctx: JobCtx): Record<string, YValue> {
  return aiCredits(ctx)
    ? { "safe-output-artifact-client": plain("${{ env.GH_AW_MAX_DAILY_AI_CREDITS != '' }}") }
    : {};
}

/** The usage cache's key prefix (the workflow id without punctuation). */
function cacheKey(ctx: JobCtx): string {
  return `agentic-workflow-usage-${ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase()}-`;
}

/** Restores the usage cache (or its artifact) and checks the daily guardrail, after the run info. */
export function dailyGuardrailSteps(
  ctx: JobCtx,
  limits: AiCreditLimits,
  commands: { slash: boolean; label: boolean },
): StepPlan[] {
  const style = aiCredits(ctx);
  if (!style) return [];
  const key = cacheKey(ctx);
  return [
    {
      name: "Restore daily AIC usage cache",
      id: "restore-daily-aic-cache",
      if: plain(DAILY_IF),
      "continue-on-error": true,
      uses: plain(ctx.refs.cacheRestore ?? "actions/cache/restore"),
      with: { key: plain(`${key}\${{ github.run_id }}`), "restore-keys": key, path: CACHE_PATH },
    },
    scriptStep(ctx, "Restore daily AIC usage cache (artifact fallback)", "restore_aic_usage_cache_fallback", {
      id: "restore-daily-aic-cache-fallback",
      if: plain(DAILY_IF),
      continueOnError: true,
      env: {
        GH_AW_RESTORE_DAILY_AIC_CACHE_HIT: plain("${{ steps.restore-daily-aic-cache.outputs.cache-hit }}"),
        GH_AW_RESTORE_DAILY_AIC_CACHE_MATCHED_KEY: plain(
          "${{ steps.restore-daily-aic-cache.outputs.cache-matched-key }}",
        ),
      },
      token: "${{ secrets.GITHUB_TOKEN }}",
    }),
    scriptStep(ctx, "Check daily workflow token guardrail", "check_daily_aic_workflow_guardrail", {
      id: "daily-effective-workflow-guardrail",
      if: plain(DAILY_IF),
      env: {
        GH_AW_WORKFLOW_NAME: dq(ctx.name),
        GH_AW_WORKFLOW_ID: dq(ctx.id),
        GH_AW_RUN_URL: plain(
          "${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }}",
        ),
        GH_AW_WORKFLOW_DISPATCH_AW_CONTEXT: plain("${{ github.event.inputs.aw_context || '' }}"),
        GH_AW_HAS_SLASH_COMMAND: dq(String(commands.slash)),
        GH_AW_HAS_LABEL_COMMAND: dq(String(commands.label)),
        GH_AW_GITHUB_TOKEN: plain("${{ secrets.GITHUB_TOKEN }}"),
        GH_AW_MAX_DAILY_AI_CREDITS: dailyLimit(style, limits),
      },
      token: "${{ secrets.GITHUB_TOKEN }}",
    }),
  ];
}

/** The check that refuses OAuth tokens in the GitHub token secrets (before the `.github` checkout). */
export function oauthCheckSteps(ctx: JobCtx): StepPlan[] {
  if (!aiCredits(ctx)) return [];
  return [
    shStep("Check for OAuth tokens", "check_oauth_tokens", "", {
      id: "check-oauth-tokens",
    }),
  ].map((st) => ({
    name: st.name,
    id: st.id,
    run: st.run,
    env: {
      GH_AW_GITHUB_TOKEN: plain("${{ secrets.GH_AW_GITHUB_TOKEN }}"),
      GH_AW_GITHUB_MCP_SERVER_TOKEN: plain("${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN }}"),
    },
  }));
}

/** The usage files the conclusion uploads as the `usage` artifact. */
const USAGE_FILES = [
  "aw_info.json",
  "aw-info.jsonl",
  "agent_usage.json",
  "agent_usage.jsonl",
  "detection_usage.jsonl",
  "evals.jsonl",
  "github_rate_limits.jsonl",
  "agent/token_usage.jsonl",
  "detection/token_usage.jsonl",
  "activity/summary.json",
];

/**
 * The conclusion's usage bookkeeping, after the agent output: the processed items' manifest, the usage
 * artifact, and the daily usage cache (restored, extended by this run, saved and uploaded).
 */
export function conclusionUsageSteps(ctx: JobCtx): StepPlan[] {
  if (!aiCredits(ctx)) return [];
  const key = cacheKey(ctx);
  const always = { if: plain("always()"), "continue-on-error": true };
  return [
    {
      name: "Download Safe Outputs Items Manifest",
      id: "download-safe-outputs-manifest",
      ...always,
      uses: plain(ctx.refs.download),
      with: { name: artifactName(ctx, "safe-outputs-items", "activation"), path: "/tmp/gh-aw/" },
    },
    {
      name: "Collect usage artifact files",
      ...always,
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/collect_usage_artifact_files.sh"'),
    },
    {
      name: "Upload usage artifact",
      ...always,
      uses: plain(ctx.refs.upload),
      with: {
        name: artifactName(ctx, "usage", "activation"),
        path: lit(USAGE_FILES.map((f) => `/tmp/gh-aw/usage/${f}\n`).join("")),
        "if-no-files-found": "ignore",
      },
    },
    {
      name: "Restore daily AIC usage cache",
      id: "restore-daily-aic-cache-conclusion",
      ...always,
      uses: plain(ctx.refs.cacheRestore ?? "actions/cache/restore"),
      with: { key: plain(`${key}\${{ github.run_id }}`), "restore-keys": key, path: CACHE_PATH },
    },
    shortGlobals(scriptStep(ctx, "Write daily AIC usage cache entry", "write_daily_aic_usage_cache", {
      id: "write-daily-aic-cache",
      if: plain("always()"),
      continueOnError: true,
      token: "${{ github.token }}",
    })),
    {
      name: "Save daily AIC usage cache",
      id: "save-daily-aic-cache",
      ...always,
      uses: plain(ctx.refs.cacheSave ?? "actions/cache/save"),
      with: { key: plain(`${key}\${{ github.run_id }}`), path: CACHE_PATH },
    },
    {
      name: "Upload daily AIC usage cache artifact",
      id: "upload-daily-aic-cache",
      ...always,
      uses: plain(ctx.refs.upload),
      with: {
        name: "aic-usage-cache",
        path: CACHE_PATH,
        "if-no-files-found": "ignore",
        "retention-days": 7,
      },
    },
  ];
}

/** A script step whose `setupGlobals` call passes only `core, github, context` (as gh-aw writes some). */
function shortGlobals(step: StepPlan): StepPlan {
  const w = step.with as Record<string, YValue>;
  const script = w.script as Styled;
  w.script = lit(
    script.value.replace(
      "setupGlobals(core, github, context, exec, io, getOctokit);",
      "setupGlobals(core, github, context);",
    ),
  );
  return step;
}

/** The no-op reporter's credit figures. */
export function noopCreditEnv(ctx: JobCtx): Record<string, YValue> {
  if (!aiCredits(ctx)) return {};
  return {
    GH_AW_AIC: plain("${{ needs.agent.outputs.aic }}"),
    GH_AW_AMBIENT_CONTEXT: plain("${{ needs.agent.outputs.ambient_context }}"),
    GH_AW_WORKFLOW_ID: dq(ctx.id),
  };
}

/** The failure handler's credit figures (in place of the effective-token rate-limit error). */
export function failureCreditEnv(ctx: JobCtx, limits: AiCreditLimits): Record<string, YValue> {
  const style = aiCredits(ctx);
  if (!style) return {};
  return {
    GH_AW_AI_CREDITS_RATE_LIMIT_ERROR: plain(
      "${{ needs.agent.outputs.ai_credits_rate_limit_error || 'false' }}",
    ),
    GH_AW_UNKNOWN_MODEL_AI_CREDITS: plain("${{ needs.agent.outputs.unknown_model_ai_credits || 'false' }}"),
    GH_AW_AIC: plain("${{ needs.agent.outputs.aic }}"),
    GH_AW_MAX_AI_CREDITS: limits.run !== undefined
      ? dq(limits.run)
      : plain(`\${{ vars.GH_AW_DEFAULT_MAX_AI_CREDITS || '${style.runDefault}' }}`),
  };
}

/** The agent's further error outputs the failure handler explains. */
export function failureAgentErrorEnv(ctx: JobCtx): Record<string, YValue> {
  if (!aiCredits(ctx)) return {};
  const out = (k: string) => plain(`\${{ needs.agent.outputs.${k} }}`);
  return {
    GH_AW_HTTP_400_RESPONSE_ERROR: out("http_400_response_error"),
    GH_AW_MAX_CACHE_MISSES_EXCEEDED: out("max_cache_misses_exceeded"),
    GH_AW_MISSING_MODEL_PRICING_ERROR: out("missing_model_pricing_error"),
    GH_AW_MISSING_MODEL_PRICING_MODEL_NAME: out("missing_model_pricing_model_name"),
    GH_AW_SHELL_EXPANSION_GUARD_REJECTED: out("shell_expansion_guard_rejected"),
  };
}

/** The activation checks the failure handler reports: OAuth tokens, then (after the stale lock) the guardrail. */
export function failureActivationEnv(ctx: JobCtx, which: "oauth" | "daily"): Record<string, YValue> {
  if (!aiCredits(ctx)) return {};
  const out = (k: string) => plain(`\${{ needs.activation.outputs.${k} }}`);
  return which === "oauth" ? { GH_AW_OAUTH_TOKEN_CHECK_FAILED: out("oauth_token_check_failed") } : {
    GH_AW_DAILY_AI_CREDITS_EXCEEDED: out("daily_ai_credits_exceeded"),
    GH_AW_DAILY_AI_CREDITS_TOTAL_EFFECTIVE_TOKENS: out("daily_ai_credits_total_effective_tokens"),
    GH_AW_DAILY_AI_CREDITS_THRESHOLD: out("daily_ai_credits_threshold"),
  };
}

/** The conclusion's step reporting the jobs that failed, after the failure handler. */
export function reportFailedJobsSteps(ctx: JobCtx, env: Record<string, YValue>, token: string): StepPlan[] {
  if (!aiCredits(ctx)) return [];
  return [scriptStep(ctx, "Report failed jobs", "report_failed_jobs", {
    id: "report_failed_jobs",
    if: plain("always()"),
    env: { ...env, GH_AW_REPORT_FAILED_JOBS: dq("true") },
    token,
  })];
}

/** The agent job's credit and further error outputs (the `detect` ones only after "Detect agent errors"). */
export function agentCreditOutputs(ctx: JobCtx, detects: boolean): Record<string, YValue> {
  if (!aiCredits(ctx)) return {};
  const gateway = (k: string, fallback?: string) =>
    plain(`\${{ steps.parse-mcp-gateway.outputs.${k}${fallback !== undefined ? ` || '${fallback}'` : ""} }}`);
  const detect = (k: string, fallback = "false") =>
    plain(`\${{ steps.detect-agent-errors.outputs.${k} || '${fallback}' }}`);
  return {
    ai_credits_rate_limit_error: gateway("ai_credits_rate_limit_error", "false"),
    aic: gateway("aic"),
    ambient_context: gateway("ambient_context"),
    unknown_model_ai_credits: gateway("unknown_model_ai_credits", "false"),
    ...(detects
      ? {
        http_400_response_error: detect("http_400_response_error"),
        invocation_cap_exceeded: detect("invocation_cap_exceeded"),
        max_cache_misses_exceeded: detect("max_cache_misses_exceeded"),
        missing_model_pricing_error: detect("missing_model_pricing_error"),
        missing_model_pricing_model_name: detect("missing_model_pricing_model_name", ""),
        shell_expansion_guard_rejected: detect("shell_expansion_guard_rejected"),
      }
      : {}),
  };
}

/** The agent job's condition: it does not start once the daily guardrail tripped. */
export function agentCreditCondition(ctx: JobCtx): string | undefined {
  return aiCredits(ctx) ? "needs.activation.outputs.daily_ai_credits_exceeded != 'true'" : undefined;
}
