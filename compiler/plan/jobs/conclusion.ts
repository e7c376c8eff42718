/**
 * The `conclusion` job: after the agent, detection and safe outputs, it records no-op messages, missing
 * tools and incomplete runs, files the failure issue when something went wrong, and updates the status
 * comment. It reports through the same scopes the safe outputs use.
 */
import type { JobPlan, StepPlan } from "../types.ts";
import {
  agentOutputSteps,
  type JobCtx,
  scriptStep,
  setupSteps,
  sourceEnvOf,
  targetOf,
  WRITE_TOKEN,
} from "../steps.ts";
import {
  aiCredits,
  conclusionUsageSteps,
  failureActivationEnv,
  failureAgentErrorEnv,
  failureCreditEnv,
  noopCreditEnv,
  reportFailedJobsSteps,
} from "./ai_credits.ts";
import { dq, folded, plain, type YValue } from "../../yaml/writer.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import { messagesJson } from "../safe_outputs/messages.ts";
import { codePushTypes } from "./safe_outputs.ts";
import { objectOf } from "../../source/values.ts";
import { DOCKER_SBX_RESULT, dockerSbxChecked, dockerSbxFailureEnv } from "./docker_sbx.ts";

/** How long a failure issue lives without an `aw.json` setting (gh-aw's default). */
const DEFAULT_FAILURE_ISSUE_EXPIRES_HOURS = 168;

/** Safe-output types every configured workflow reports through. */
const REPORTING = ["noop", "missing-tool", "missing-data", "report-incomplete"];

const AGENT_OUTPUT = plain("${{ steps.setup-agent-output-env.outputs.GH_AW_AGENT_OUTPUT }}");
const RUN_URL = plain("${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }}");
const DETECTION_ENV = {
  GH_AW_DETECTION_CONCLUSION: plain("${{ needs.detection.outputs.detection_conclusion }}"),
  GH_AW_DETECTION_REASON: plain("${{ needs.detection.outputs.detection_reason }}"),
};

/** What the `conclusion` job is built from besides the context and the safe outputs. */
export interface ConclusionInput {
  /** The agent's `timeout-minutes`, reported in the failure issue. */
  timeoutMinutes: number | string;
  /** Jobs beyond the standard ones it waits for (`push_repo_memory`, custom safe-output jobs…). */
  extraNeeds: string[];
  /** Jobs besides `safe_outputs` that carry out safe outputs (custom jobs, SARIF upload, workflow calls). */
  safeOutputJobs?: string[];
  /** `concurrency.job-discriminator`: splits the job's group as it splits the agent's. */
  jobDiscriminator?: unknown;
  /** The ids of the repo memories `push_repo_memory` pushes (none without that job). */
  repoMemoryIds?: string[];
  /** The engine's API hosts, named in the failure issue when the firewall blocked one. */
  apiHosts: string;
  /** Whether activation verified secrets (its result is reported). */
  hasSecrets: boolean;
}

/**
 * The token the conclusion's reports write with: `safe-outputs.github-token` when set and the release uses
 * it there, else the default.
 */
function writeTokenOf(ctx: JobCtx, so: SafeOutputsPlan): string {
  const own = so.global["github-token"];
  return targetOf(ctx).jobs.safeOutputs.conclusionUsesOwnToken && typeof own === "string" && own !== ""
    ? own
    : WRITE_TOKEN;
}

/** Builds the `conclusion` job. */
export function conclusionJob(ctx: JobCtx, so: SafeOutputsPlan, input: ConclusionInput): JobPlan {
  const token = writeTokenOf(ctx, so);
  const steps: StepPlan[] = [
    ...setupSteps(ctx, true),
    ...agentOutputSteps(ctx),
    ...conclusionUsageSteps(ctx),
  ];
  if (so.configured) steps.push(...reportingSteps(ctx, so));
  steps.push(scriptStep(ctx, "Handle agent failure", "handle_agent_failure", {
    id: "handle_agent_failure",
    if: plain("always()"),
    env: failureEnv(ctx, so, input),
    token,
  }));
  steps.push(...reportFailedJobsSteps(ctx, {
    GH_AW_AGENT_OUTPUT: AGENT_OUTPUT,
    GH_AW_WORKFLOW_NAME: dq(ctx.name),
    ...sourceEnvOf(ctx),
    GH_AW_RUN_URL: RUN_URL,
  }, token));
  if (ctx.statusComment) steps.push(statusCommentStep(ctx, so, input.safeOutputJobs ?? []));
  const job: JobPlan = {
    needs: [
      ...[
        "activation",
        "agent",
        ...(so.threatDetection ? ["detection"] : []),
        "safe_outputs",
        ...input.extraNeeds,
      ]
        .sort(),
    ],
    if: folded(
      aiCredits(ctx)
        ? "always() && (needs.agent.result != 'skipped' || needs.activation.outputs.lockdown_check_failed == 'true' ||\n" +
          "needs.activation.outputs.oauth_token_check_failed == 'true' || needs.activation.outputs.stale_lock_file_failed == 'true' ||\n" +
          (dockerSbxChecked(ctx) ? `${DOCKER_SBX_RESULT} == 'failed' || ` : "") +
          "needs.activation.outputs.daily_ai_credits_exceeded == 'true')\n"
        : "always() && (needs.agent.result != 'skipped' || needs.activation.outputs.lockdown_check_failed == 'true' ||\n" +
          "needs.activation.outputs.stale_lock_file_failed == 'true')\n",
    ),
    "runs-on": "ubuntu-slim",
    permissions: conclusionPermissions(ctx, so),
    concurrency: {
      group: dq(
        `gh-aw-conclusion-${ctx.id}${
          input.jobDiscriminator !== undefined ? `-${input.jobDiscriminator}` : ""
        }`,
      ),
      "cancel-in-progress": false,
      queue: "max",
    },
    steps,
  };
  if (so.configured) {
    job.outputs = {
      incomplete_count: plain("${{ steps.report_incomplete.outputs.incomplete_count }}"),
      noop_message: plain("${{ steps.noop.outputs.noop_message }}"),
      tools_reported: plain("${{ steps.missing_tool.outputs.tools_reported }}"),
      total_count: plain("${{ steps.missing_tool.outputs.total_count }}"),
    };
  }
  return job;
}

/** The no-op, detection-run, missing-tool and incomplete-run recorders of a workflow with safe outputs. */
function reportingSteps(ctx: JobCtx, so: SafeOutputsPlan): StepPlan[] {
  const source = sourceEnvOf(ctx);
  const token = writeTokenOf(ctx, so);
  const steps: StepPlan[] = [];
  steps.push(scriptStep(ctx, "Process no-op messages", "handle_noop_message", {
    id: "noop",
    env: {
      GH_AW_AGENT_OUTPUT: AGENT_OUTPUT,
      GH_AW_NOOP_MAX: dq("1"),
      GH_AW_WORKFLOW_NAME: dq(ctx.name),
      ...source,
      GH_AW_RUN_URL: RUN_URL,
      GH_AW_AGENT_CONCLUSION: plain("${{ needs.agent.result }}"),
      GH_AW_NOOP_REPORT_AS_ISSUE: dq(String(so.noopReportAsIssue)),
      ...noopCreditEnv(ctx),
    },
    token,
  }));
  if (so.threatDetection) {
    steps.push(scriptStep(ctx, "Log detection run", "handle_detection_runs", {
      id: "detection_runs",
      env: {
        GH_AW_AGENT_OUTPUT: AGENT_OUTPUT,
        GH_AW_WORKFLOW_NAME: dq(ctx.name),
        ...source,
        GH_AW_RUN_URL: RUN_URL,
        ...DETECTION_ENV,
      },
      token,
    }));
  }
  steps.push(scriptStep(ctx, "Record missing tool", "missing_tool", {
    id: "missing_tool",
    env: {
      GH_AW_AGENT_OUTPUT: AGENT_OUTPUT,
      ...missingToolEnv(so.configs),
      GH_AW_WORKFLOW_NAME: dq(ctx.name),
      ...source,
    },
    token,
  }));
  steps.push(scriptStep(ctx, "Record incomplete", "report_incomplete_handler", {
    id: "report_incomplete",
    env: {
      GH_AW_AGENT_OUTPUT: AGENT_OUTPUT,
      GH_AW_REPORT_INCOMPLETE_CREATE_ISSUE: dq("true"),
      GH_AW_WORKFLOW_NAME: dq(ctx.name),
      ...source,
    },
    token,
  }));
  return steps;
}

/**
 * Issue settings of the missing-tool recorder: issues by default; an explicit `missing-tool:` only files
 * them with `create-issue: true`, and names its title prefix (and labels).
 */
function missingToolEnv(raw: Record<string, unknown>): Record<string, YValue> {
  if (!("missing-tool" in raw)) return { GH_AW_MISSING_TOOL_CREATE_ISSUE: dq("true") };
  const c = objectOf(raw["missing-tool"]);
  const env: Record<string, YValue> = {
    GH_AW_MISSING_TOOL_CREATE_ISSUE: dq(String(c["create-issue"] === true)),
    GH_AW_MISSING_TOOL_TITLE_PREFIX: dq(
      typeof c["title-prefix"] === "string" ? c["title-prefix"] : "[missing tool]",
    ),
  };
  if (Array.isArray(c.labels)) env.GH_AW_MISSING_TOOL_LABELS = dq(JSON.stringify(c.labels.map(String)));
  return env;
}

/** The failure handler's environment: the run, the agent's error outputs and what failed after it. */
function failureEnv(ctx: JobCtx, so: SafeOutputsPlan, input: ConclusionInput): Record<string, YValue> {
  const env: Record<string, YValue> = {
    GH_AW_AGENT_OUTPUT: AGENT_OUTPUT,
    GH_AW_WORKFLOW_NAME: dq(ctx.name),
    ...sourceEnvOf(ctx),
    GH_AW_RUN_URL: RUN_URL,
    GH_AW_AGENT_CONCLUSION: plain("${{ needs.agent.result }}"),
    GH_AW_WORKFLOW_ID: dq(ctx.id),
  };
  // aw.json's setting, else gh-aw's default of a week (168 hours), as its locks carry it.
  env.GH_AW_ACTION_FAILURE_ISSUE_EXPIRES_HOURS = dq(
    String(ctx.failureIssueExpires ?? DEFAULT_FAILURE_ISSUE_EXPIRES_HOURS),
  );
  env.GH_AW_ENGINE_ID = dq(ctx.engine.id);
  if (input.hasSecrets) {
    env.GH_AW_SECRET_VERIFICATION_RESULT = plain(
      "${{ needs.activation.outputs.secret_verification_result }}",
    );
  }
  Object.assign(env, dockerSbxFailureEnv(ctx));
  Object.assign(env, agentErrorEnv(ctx), failureAgentErrorEnv(ctx));
  // Engines without fixed API hosts (crush, opencode, pi) get no entry, as in gh-aw.
  if (input.apiHosts) env.GH_AW_ENGINE_API_HOSTS = dq(input.apiHosts);
  Object.assign(env, safeOutputErrorEnv(so));
  env.GH_AW_LOCKDOWN_CHECK_FAILED = plain("${{ needs.activation.outputs.lockdown_check_failed }}");
  Object.assign(env, failureActivationEnv(ctx, "oauth"));
  env.GH_AW_STALE_LOCK_FILE_FAILED = plain("${{ needs.activation.outputs.stale_lock_file_failed }}");
  Object.assign(env, failureActivationEnv(ctx, "daily"));
  const messages = messagesJson(so.global.messages);
  if (messages) env.GH_AW_SAFE_OUTPUT_MESSAGES = dq(messages);
  if (input.repoMemoryIds?.length) Object.assign(env, repoMemoryEnv(input.repoMemoryIds));
  Object.assign(env, {
    GH_AW_GROUP_REPORTS: dq(String(so.global["group-reports"] === true)),
    GH_AW_FAILURE_REPORT_AS_ISSUE: dq(String(so.global["report-failure-as-issue"] !== false)),
    GH_AW_MISSING_TOOL_REPORT_AS_FAILURE: dq("true"),
    GH_AW_MISSING_DATA_REPORT_AS_FAILURE: dq("true"),
    GH_AW_TIMEOUT_MINUTES: dq(String(input.timeoutMinutes)),
    // Releases that account in AI credits report those instead of an effective-token budget.
    ...(aiCredits(ctx) ? {} : { GH_AW_MAX_EFFECTIVE_TOKENS: dq(String(ctx.maxEffectiveTokens ?? 25000000)) }),
  });
  if (ctx.cacheMemory) env.GH_AW_CACHE_MEMORY_ENABLED = dq("true");
  if (ctx.cacheMemory && targetOf(ctx).jobs.cacheMemoryRestoreOutputs) {
    for (let i = 0; i < (ctx.cacheMemoryCount ?? 1); i++) {
      const out = `needs.agent.outputs.cache_memory_restore_${i}`;
      env[`GH_AW_CACHE_MEMORY_RESTORE_${i}_MATCHED_KEY`] = plain(`\${{ ${out}_matched_key || '' }}`);
      env[`GH_AW_CACHE_MEMORY_RESTORE_${i}_CACHE_HIT`] = plain(`\${{ ${out}_cache_hit || 'false' }}`);
    }
  }
  return env;
}

/** The agent job's error outputs the failure handler explains (the Copilot CLI reports four more). */
function agentErrorEnv(ctx: JobCtx): Record<string, YValue> {
  const out = (k: string, fallback = "") =>
    plain(`\${{ needs.agent.outputs.${k}${fallback ? ` || '${fallback}'` : ""} }}`);
  const env: Record<string, YValue> = {};
  if (ctx.contentsRead !== false) env.GH_AW_CHECKOUT_PR_SUCCESS = out("checkout_pr_success");
  env.GH_AW_EFFECTIVE_TOKENS = plain("${{ needs.agent.outputs.effective_tokens || '' }}");
  const credits = failureCreditEnv(ctx, ctx.aiCreditLimits ?? {});
  if (Object.keys(credits).length > 0) Object.assign(env, credits);
  else env.GH_AW_EFFECTIVE_TOKENS_RATE_LIMIT_ERROR = out("effective_tokens_rate_limit_error", "false");
  if (ctx.engine.detectsErrors) {
    env.GH_AW_INFERENCE_ACCESS_ERROR = out("inference_access_error");
    env.GH_AW_MCP_POLICY_ERROR = out("mcp_policy_error");
    env.GH_AW_AGENTIC_ENGINE_TIMEOUT = out("agentic_engine_timeout");
    env.GH_AW_MODEL_NOT_SUPPORTED_ERROR = out("model_not_supported_error");
  }
  return env;
}

/** Errors of the safe outputs that file their own failure report (agent assignment, discussions, pushes). */
function safeOutputErrorEnv(so: SafeOutputsPlan): Record<string, YValue> {
  const output = (name: string) => plain(`\${{ needs.safe_outputs.outputs.${name} }}`);
  const env: Record<string, YValue> = {};
  if (so.types.includes("assign-to-agent")) {
    env.GH_AW_ASSIGNMENT_ERRORS = output("assign_to_agent_assignment_errors");
    env.GH_AW_ASSIGNMENT_ERROR_COUNT = output("assign_to_agent_assignment_error_count");
  }
  if (so.types.includes("create-discussion")) {
    env.GH_AW_CREATE_DISCUSSION_ERRORS = output("create_discussion_errors");
    env.GH_AW_CREATE_DISCUSSION_ERROR_COUNT = output("create_discussion_error_count");
  }
  if (codePushTypes(so).length > 0) {
    env.GH_AW_CODE_PUSH_FAILURE_ERRORS = output("code_push_failure_errors");
    env.GH_AW_CODE_PUSH_FAILURE_COUNT = output("code_push_failure_count");
  }
  return env;
}

/** The repo-memory push job's result and each memory's validation outputs. */
function repoMemoryEnv(ids: string[]): Record<string, YValue> {
  const env: Record<string, YValue> = {
    GH_AW_PUSH_REPO_MEMORY_RESULT: plain("${{ needs.push_repo_memory.result }}"),
  };
  const outputs: [string, string][] = [
    ["VALIDATION_FAILED", "validation_failed"],
    ["VALIDATION_ERROR", "validation_error"],
    ["PATCH_SIZE_EXCEEDED", "patch_size_exceeded"],
  ];
  for (const id of ids) {
    for (const [suffix, output] of outputs) {
      env[`GH_AW_REPO_MEMORY_${suffix}_${id}`] = plain(
        `\${{ needs.push_repo_memory.outputs.${output}_${id} }}`,
      );
    }
  }
  return env;
}

/**
 * The job's scopes: those of the safe outputs; staged runs, and workflows whose only outputs are custom jobs
 * or workflow calls, get none; a workflow with only reporting types may still file issues.
 */
function conclusionPermissions(ctx: JobCtx, so: SafeOutputsPlan): Record<string, string> {
  const safeJobs = Object.keys(so.global.jobs ?? {}).length > 0;
  const jobsOnly = so.types.filter((t) => !["call-workflow", ...REPORTING].includes(t)).length === 0 &&
    (safeJobs || so.types.includes("call-workflow"));
  const permissions: Record<string, string> = Object.keys(so.permissions).length > 0
    ? { ...so.permissions }
    : so.staged || jobsOnly
    ? {}
    : { contents: "read", issues: "write" };
  // Later releases grant only the writes (and the read of the usage-cache artifact).
  if (!targetOf(ctx).jobs.safeOutputs.contentsRead && permissions.contents === "read") {
    delete permissions.contents;
  }
  if (aiCredits(ctx)) permissions.actions = "read";
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(permissions).sort()) sorted[k] = permissions[k];
  return sorted;
}

/** Updates the status comment (or reaction comment) with how the run ended. */
function statusCommentStep(ctx: JobCtx, so: SafeOutputsPlan, safeOutputJobs: string[]): StepPlan {
  const env: Record<string, YValue> = {
    GH_AW_AGENT_OUTPUT: AGENT_OUTPUT,
    GH_AW_COMMENT_ID: plain("${{ needs.activation.outputs.comment_id }}"),
    GH_AW_COMMENT_REPO: plain("${{ needs.activation.outputs.comment_repo }}"),
    GH_AW_RUN_URL: RUN_URL,
    GH_AW_WORKFLOW_NAME: dq(ctx.name),
    GH_AW_AGENT_CONCLUSION: plain("${{ needs.agent.result }}"),
    GH_AW_SAFE_OUTPUTS_RESULT: plain("${{ needs.safe_outputs.result }}"),
  };
  if (so.threatDetection) Object.assign(env, DETECTION_ENV);
  // gh-aw hands the completion comment the assignment error count too, so a failed assignment shows there.
  if (so.types.includes("assign-to-agent")) {
    env.GH_AW_ASSIGNMENT_ERROR_COUNT = plain(
      "${{ needs.safe_outputs.outputs.assign_to_agent_assignment_error_count }}",
    );
  }
  const messages = messagesJson(so.global.messages);
  if (messages) env.GH_AW_SAFE_OUTPUT_MESSAGES = dq(messages);
  // The other safe-output jobs, so the update can tell their items from unhandled ones (none has a URL).
  if (safeOutputJobs.length > 0) {
    env.GH_AW_SAFE_OUTPUT_JOBS = dq(
      JSON.stringify(Object.fromEntries([...safeOutputJobs].sort().map((j) => [j, ""]))),
    );
  }
  return scriptStep(ctx, "Update reaction comment with completion status", "notify_comment_error", {
    id: "conclusion",
    env,
    token: WRITE_TOKEN,
  });
}
