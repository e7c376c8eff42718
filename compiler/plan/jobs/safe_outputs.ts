/** The consolidated `safe_outputs` job and the `conclusion` job. */
import type { JobPlan, StepPlan } from "../types.ts";
import {
  agentOutputSteps,
  type JobCtx,
  otlpMaskSteps,
  restoreActionsFolderSteps,
  scriptStep,
  setupSteps,
  sourceEnvOf,
  WRITE_TOKEN,
} from "../steps.ts";
import { dq, folded, lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import { SAFE_OUTPUT_TYPES } from "../safe_outputs/types/registry.ts";
import { snakeCase } from "../safe_outputs/types/contract.ts";
import { expandEcosystems } from "../network.ts";
import { ghHostStep } from "./custom.ts";

/** How long a failure issue lives without an `aw.json` setting (gh-aw's default). */
const DEFAULT_FAILURE_ISSUE_EXPIRES_HOURS = 168;

const MESSAGE_KEYS = [
  "footer",
  "footer-install",
  "footer-workflow-recompile",
  "footer-workflow-recompile-comment",
  "staged-title",
  "staged-description",
  "append-only-comments",
  "run-started",
  "run-success",
  "run-failure",
  "detection-failure",
  "agent-failure-issue",
  "agent-failure-comment",
  "pull-request-created",
  "issue-created",
  "commit-pushed",
  "body-header",
];

/** Go-style JSON (HTML characters escaped) of `safe-outputs.messages` with camelCase keys in a fixed order. */
export function messagesJson(raw: unknown): string | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const src = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const camel = (k: string) => k.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  for (const k of MESSAGE_KEYS) if (src[k] !== undefined) out[camel(k)] = src[k];
  for (const k of Object.keys(src)) if (!MESSAGE_KEYS.includes(k)) out[camel(k)] = src[k];
  return JSON.stringify(out).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** Safe-output types that push code (they need a checkout and git credentials in `safe_outputs`). */
function codePushTypes(so: SafeOutputsPlan): string[] {
  return SAFE_OUTPUT_TYPES.filter((type) => type.pushesCode && so.types.includes(type.key))
    .map((type) => snakeCase(type.key));
}

/** Checkout and git setup for code-pushing safe outputs. */
function codePushSteps(ctx: JobCtx, so: SafeOutputsPlan, fetchDepth = 1): StepPlan[] {
  const types = codePushTypes(so);
  if (types.length === 0) return [];
  const base = "(!cancelled()) && needs.agent.result != 'skipped'";
  const any = (suffix = "") =>
    types.map((t) => `${base} && contains(needs.agent.outputs.output_types, '${t}')${suffix}`).join(" || ");
  const comment =
    " && (github.event_name == 'issue_comment' || github.event_name == 'pull_request_review_comment')";
  const notComment =
    " && github.event_name != 'issue_comment' && github.event_name != 'pull_request_review_comment'";
  return [
    {
      name: "Download patch artifact",
      "continue-on-error": true,
      uses: plain(ctx.refs.download),
      with: { name: "agent", path: "/tmp/gh-aw/" },
    },
    scriptStep(ctx, "Extract base branch from agent output", "extract_base_branch_from_agent_output", {
      id: "extract-base-branch",
      if: plain("steps.download-agent-output.outcome == 'success'"),
    }),
    {
      name: "Checkout repository (trusted default branch for comment events)",
      if: plain(any(comment)),
      uses: plain(ctx.refs.checkout),
      with: {
        ref: plain("${{ github.event.repository.default_branch }}"),
        token: plain(WRITE_TOKEN),
        "persist-credentials": false,
        "fetch-depth": fetchDepth,
      },
    },
    {
      name: "Checkout repository",
      if: plain(any(notComment)),
      uses: plain(ctx.refs.checkout),
      with: {
        ref: plain(
          "${{ steps.extract-base-branch.outputs.base-branch || github.base_ref || github.event.pull_request.base.ref || github.ref_name || github.event.repository.default_branch }}",
        ),
        token: plain(WRITE_TOKEN),
        "persist-credentials": false,
        "fetch-depth": fetchDepth,
      },
    },
    {
      name: "Configure Git credentials",
      if: plain(any()),
      env: {
        REPO_NAME: plain("${{ github.repository }}"),
        SERVER_URL: plain("${{ github.server_url }}"),
        GIT_TOKEN: plain(WRITE_TOKEN),
      },
      run: lit(
        'git config --global user.email "github-actions[bot]@users.noreply.github.com"\n' +
          'git config --global user.name "github-actions[bot]"\ngit config --global am.keepcr true\n' +
          "# Re-authenticate git with GitHub token\n" + 'SERVER_URL_STRIPPED="${SERVER_URL#https://}"\n' +
          'git remote set-url origin "https://x-access-token:${GIT_TOKEN}@${SERVER_URL_STRIPPED}/${REPO_NAME}.git"\n' +
          'echo "Git configured with standard GitHub Actions identity"\n',
      ),
    },
  ];
}

/** Safe-output types every configured workflow reports through. */
const REPORTING = ["noop", "missing-tool", "missing-data", "report-incomplete"];

/**
 * Issue settings of the missing-tool recorder: issues by default; an explicit `missing-tool:` only files
 * them with `create-issue: true`, and names its title prefix (and labels).
 */
function missingToolEnv(raw: Record<string, unknown>): Record<string, YValue> {
  if (!("missing-tool" in raw)) return { GH_AW_MISSING_TOOL_CREATE_ISSUE: dq("true") };
  const c = raw["missing-tool"] && typeof raw["missing-tool"] === "object"
    ? raw["missing-tool"] as Record<string, unknown>
    : {};
  const env: Record<string, YValue> = {
    GH_AW_MISSING_TOOL_CREATE_ISSUE: dq(String(c["create-issue"] === true)),
    GH_AW_MISSING_TOOL_TITLE_PREFIX: dq(
      typeof c["title-prefix"] === "string" ? c["title-prefix"] : "[missing tool]",
    ),
  };
  if (Array.isArray(c.labels)) env.GH_AW_MISSING_TOOL_LABELS = dq(JSON.stringify(c.labels.map(String)));
  return env;
}

/** Builds the `safe_outputs` job. */
export function safeOutputsJob(
  ctx: JobCtx,
  so: SafeOutputsPlan,
  allowedDomains: string[],
  emoji: string | undefined,
  environment: YValue | undefined,
  /** `fetch-depth` of the workflow's own checkout, reused for the code-push checkouts. */
  fetchDepth?: number,
): JobPlan {
  // The artifact client and staging download run whenever upload-artifact is enabled (staged or not).
  const artifacts = so.types.includes("upload-artifact");
  const setup = setupSteps(ctx, true);
  if (artifacts) {
    const last = setup[setup.length - 1];
    last.with = { ...(last.with ?? {}), "safe-output-artifact-client": sq("true") };
  }
  const steps: StepPlan[] = [...setup, ...otlpMaskSteps(ctx), ...agentOutputSteps(ctx)];
  steps.push(...codePushSteps(ctx, so, typeof fetchDepth === "number" ? fetchDepth : 1));
  steps.push(ghHostStep());
  const env: Record<string, YValue> = {
    GH_AW_AGENT_OUTPUT: plain("${{ steps.setup-agent-output-env.outputs.GH_AW_AGENT_OUTPUT }}"),
    GH_AW_COMMENT_ID: plain("${{ needs.activation.outputs.comment_id }}"),
    GH_AW_ALLOWED_DOMAINS: dq(
      [...new Set([...allowedDomains, ...expandEcosystems(so.allowedDomains ?? [])])].sort().join(","),
    ),
  };
  env.GITHUB_SERVER_URL = plain("${{ github.server_url }}");
  env.GITHUB_API_URL = plain("${{ github.api_url }}");
  const customJobs = so.raw.jobs && typeof so.raw.jobs === "object" ? Object.keys(so.raw.jobs) : [];
  if (customJobs.length > 0) {
    // Custom safe-output jobs the handler manager must leave to their own jobs.
    env.GH_AW_SAFE_OUTPUT_JOBS = dq(
      JSON.stringify(
        Object.fromEntries(customJobs.map((j) => j.replace(/-/g, "_")).sort().map((j) => [j, ""])),
      ),
    );
  }
  env.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG = dq(JSON.stringify(so.handlerConfig));
  const agentToken = plain(
    "${{ secrets.GH_AW_AGENT_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
  );
  const issueAssignees = so.handlerConfig.create_issue?.assignees;
  if (Array.isArray(issueAssignees) && issueAssignees.includes("copilot")) {
    env.GH_AW_ASSIGN_COPILOT = dq("true");
    env.GH_AW_ASSIGN_TO_AGENT_TOKEN = agentToken;
  } else if (so.types.includes("assign-to-agent")) env.GH_AW_ASSIGN_TO_AGENT_TOKEN = agentToken;
  if (so.types.includes("create-agent-session")) env.GH_AW_AGENT_SESSION_TOKEN = agentToken;
  if (so.staged) env.GH_AW_SAFE_OUTPUTS_STAGED = dq("true");
  const ciToken = codePushTypes(so).length > 0;
  if (ciToken) env.GH_AW_CI_TRIGGER_TOKEN = plain("${{ secrets.GH_AW_CI_TRIGGER_TOKEN }}");
  if (artifacts) {
    steps.push({
      name: "Download upload-artifact staging",
      "continue-on-error": true,
      uses: plain(ctx.refs.download),
      with: {
        name: "safe-outputs-upload-artifacts",
        path: plain("${{ runner.temp }}/gh-aw/safeoutputs/upload-artifacts/"),
      },
    });
  }
  steps.push(scriptStep(ctx, "Process Safe Outputs", "safe_output_handler_manager", {
    id: "process_safe_outputs",
    env,
    token: WRITE_TOKEN,
  }));
  // Staged runs only preview, so there are no processed items to upload.
  if (!so.staged) {
    steps.push({
      name: "Upload Safe Outputs Items",
      if: plain("always()"),
      uses: plain(ctx.refs.upload),
      with: {
        name: "safe-outputs-items",
        path: lit("/tmp/gh-aw/safe-output-items.jsonl\n/tmp/gh-aw/temporary-id-map.json\n"),
        "if-no-files-found": "ignore",
      },
    });
  }
  // Only code-pushing handlers check out another tree over the workspace.
  if (codePushTypes(so).length > 0) steps.push(...restoreActionsFolderSteps(ctx));
  const needs = ["activation", "agent", ...(so.threatDetection ? ["detection"] : []), ...so.needs];
  const cond = "(!cancelled()) && needs.agent.result != 'skipped'" +
    (so.threatDetection ? " && needs.detection.result == 'success'" : "");
  const job: JobPlan = { needs, if: plain(cond), "runs-on": "ubuntu-slim", steps };
  if (environment !== undefined) job.environment = environment;
  job.permissions = so.permissions;
  job["timeout-minutes"] = 15;
  const jenv: Record<string, YValue> = {
    GH_AW_CALLER_WORKFLOW_ID: dq(`\${{ github.repository }}/${ctx.id}`),
    GH_AW_EFFECTIVE_TOKENS: plain("${{ needs.agent.outputs.effective_tokens }}"),
    GH_AW_ENGINE_ID: dq(ctx.engineId),
    GH_AW_ENGINE_MODEL: ctx.model ? dq(ctx.model) : plain("${{ needs.agent.outputs.model }}"),
    GH_AW_WORKFLOW_ID: dq(ctx.id),
    GH_AW_WORKFLOW_NAME: dq(ctx.name),
    ...sourceEnv(ctx),
  };
  if (ctx.engineId === "copilot") jenv.GH_AW_ENGINE_VERSION = dq(ctx.engineVersion);
  if (ctx.commands?.length) jenv.GH_AW_COMMANDS = dq(JSON.stringify(ctx.commands));
  if (so.threatDetection) {
    jenv.GH_AW_DETECTION_CONCLUSION = plain("${{ needs.detection.outputs.detection_conclusion }}");
    jenv.GH_AW_DETECTION_REASON = plain("${{ needs.detection.outputs.detection_reason }}");
  }
  const messages = messagesJson(so.raw.messages);
  if (messages) jenv.GH_AW_SAFE_OUTPUT_MESSAGES = dq(messages);
  if (emoji) jenv.GH_AW_WORKFLOW_EMOJI = dq(emoji);
  const sortedEnv: Record<string, YValue> = {};
  for (const k of Object.keys(jenv).sort()) sortedEnv[k] = jenv[k];
  job.env = sortedEnv;
  const o = (k: string, step = k) => plain(`\${{ steps.process_safe_outputs.outputs.${step} }}`);
  const outputs: Record<string, YValue> = {
    code_push_failure_count: o("code_push_failure_count"),
    code_push_failure_errors: o("code_push_failure_errors"),
    create_discussion_error_count: o("create_discussion_error_count"),
    create_discussion_errors: o("create_discussion_errors"),
  };
  if (!so.staged) {
    for (const type of SAFE_OUTPUT_TYPES) {
      if (!type.jobOutputs || !so.types.includes(type.key)) continue;
      const handler = so.handlerConfig[snakeCase(type.key)] ?? {};
      for (const [name, step] of Object.entries(type.jobOutputs(handler))) outputs[name] = o("x", step);
    }
  }
  outputs.process_safe_outputs_processed_count = o("x", "processed_count");
  outputs.process_safe_outputs_temporary_id_map = o("x", "temporary_id_map");
  const sortedOutputs: Record<string, YValue> = {};
  for (const k of Object.keys(outputs).sort()) sortedOutputs[k] = outputs[k];
  job.outputs = sortedOutputs;
  return job;
}

const sourceEnv = sourceEnvOf;

/** Builds the `conclusion` job. */
export function conclusionJob(
  ctx: JobCtx,
  so: SafeOutputsPlan,
  timeoutMinutes: number | string,
  extraNeeds: string[],
  apiHosts: string,
  hasSecrets: boolean,
): JobPlan {
  const steps: StepPlan[] = [...setupSteps(ctx, true), ...agentOutputSteps(ctx)];
  const agentOutput = plain("${{ steps.setup-agent-output-env.outputs.GH_AW_AGENT_OUTPUT }}");
  const runUrl = plain("${{ github.server_url }}/${{ github.repository }}/actions/runs/${{ github.run_id }}");
  const src = sourceEnv(ctx);
  const token = WRITE_TOKEN;
  if (so.configured) {
    steps.push(scriptStep(ctx, "Process no-op messages", "handle_noop_message", {
      id: "noop",
      env: {
        GH_AW_AGENT_OUTPUT: agentOutput,
        GH_AW_NOOP_MAX: dq("1"),
        GH_AW_WORKFLOW_NAME: dq(ctx.name),
        ...src,
        GH_AW_RUN_URL: runUrl,
        GH_AW_AGENT_CONCLUSION: plain("${{ needs.agent.result }}"),
        GH_AW_NOOP_REPORT_AS_ISSUE: dq(String(so.noopReportAsIssue)),
      },
      token,
    }));
    if (so.threatDetection) {
      steps.push(scriptStep(ctx, "Log detection run", "handle_detection_runs", {
        id: "detection_runs",
        env: {
          GH_AW_AGENT_OUTPUT: agentOutput,
          GH_AW_WORKFLOW_NAME: dq(ctx.name),
          ...src,
          GH_AW_RUN_URL: runUrl,
          GH_AW_DETECTION_CONCLUSION: plain("${{ needs.detection.outputs.detection_conclusion }}"),
          GH_AW_DETECTION_REASON: plain("${{ needs.detection.outputs.detection_reason }}"),
        },
        token,
      }));
    }
    steps.push(scriptStep(ctx, "Record missing tool", "missing_tool", {
      id: "missing_tool",
      env: {
        GH_AW_AGENT_OUTPUT: agentOutput,
        ...missingToolEnv(so.raw),
        GH_AW_WORKFLOW_NAME: dq(ctx.name),
        ...src,
      },
      token,
    }));
    steps.push(scriptStep(ctx, "Record incomplete", "report_incomplete_handler", {
      id: "report_incomplete",
      env: {
        GH_AW_AGENT_OUTPUT: agentOutput,
        GH_AW_REPORT_INCOMPLETE_CREATE_ISSUE: dq("true"),
        GH_AW_WORKFLOW_NAME: dq(ctx.name),
        ...src,
      },
      token,
    }));
  }
  const env: Record<string, YValue> = {
    GH_AW_AGENT_OUTPUT: agentOutput,
    GH_AW_WORKFLOW_NAME: dq(ctx.name),
    ...src,
    GH_AW_RUN_URL: runUrl,
    GH_AW_AGENT_CONCLUSION: plain("${{ needs.agent.result }}"),
    GH_AW_WORKFLOW_ID: dq(ctx.id),
  };
  // aw.json's setting, else gh-aw's default of a week (168 hours), as its locks carry it.
  env.GH_AW_ACTION_FAILURE_ISSUE_EXPIRES_HOURS = dq(
    String(ctx.failureIssueExpires ?? DEFAULT_FAILURE_ISSUE_EXPIRES_HOURS),
  );
  env.GH_AW_ENGINE_ID = dq(ctx.engineId);
  if (hasSecrets) {
    env.GH_AW_SECRET_VERIFICATION_RESULT = plain(
      "${{ needs.activation.outputs.secret_verification_result }}",
    );
  }
  const out = (k: string, fallback = "") =>
    plain(`\${{ needs.agent.outputs.${k}${fallback ? ` || '${fallback}'` : ""} }}`);
  if (ctx.contentsRead !== false) env.GH_AW_CHECKOUT_PR_SUCCESS = out("checkout_pr_success");
  env.GH_AW_EFFECTIVE_TOKENS = plain("${{ needs.agent.outputs.effective_tokens || '' }}");
  env.GH_AW_EFFECTIVE_TOKENS_RATE_LIMIT_ERROR = out("effective_tokens_rate_limit_error", "false");
  if (ctx.engineId === "copilot") {
    env.GH_AW_INFERENCE_ACCESS_ERROR = out("inference_access_error");
    env.GH_AW_MCP_POLICY_ERROR = out("mcp_policy_error");
    env.GH_AW_AGENTIC_ENGINE_TIMEOUT = out("agentic_engine_timeout");
    env.GH_AW_MODEL_NOT_SUPPORTED_ERROR = out("model_not_supported_error");
  }
  env.GH_AW_ENGINE_API_HOSTS = dq(apiHosts);
  if (so.types.includes("assign-to-agent")) {
    env.GH_AW_ASSIGNMENT_ERRORS = plain(
      "${{ needs.safe_outputs.outputs.assign_to_agent_assignment_errors }}",
    );
    env.GH_AW_ASSIGNMENT_ERROR_COUNT = plain(
      "${{ needs.safe_outputs.outputs.assign_to_agent_assignment_error_count }}",
    );
  }
  if (so.types.includes("create-discussion")) {
    env.GH_AW_CREATE_DISCUSSION_ERRORS = plain("${{ needs.safe_outputs.outputs.create_discussion_errors }}");
    env.GH_AW_CREATE_DISCUSSION_ERROR_COUNT = plain(
      "${{ needs.safe_outputs.outputs.create_discussion_error_count }}",
    );
  }
  if (so.types.includes("create-pull-request") || so.types.includes("push-to-pull-request-branch")) {
    env.GH_AW_CODE_PUSH_FAILURE_ERRORS = plain("${{ needs.safe_outputs.outputs.code_push_failure_errors }}");
    env.GH_AW_CODE_PUSH_FAILURE_COUNT = plain("${{ needs.safe_outputs.outputs.code_push_failure_count }}");
  }
  env.GH_AW_LOCKDOWN_CHECK_FAILED = plain("${{ needs.activation.outputs.lockdown_check_failed }}");
  env.GH_AW_STALE_LOCK_FILE_FAILED = plain("${{ needs.activation.outputs.stale_lock_file_failed }}");
  const messages = messagesJson(so.raw.messages);
  if (messages) env.GH_AW_SAFE_OUTPUT_MESSAGES = dq(messages);
  if (extraNeeds.includes("push_repo_memory")) {
    env.GH_AW_PUSH_REPO_MEMORY_RESULT = plain("${{ needs.push_repo_memory.result }}");
    const outs: [string, string][] = [
      ["VALIDATION_FAILED", "validation_failed"],
      ["VALIDATION_ERROR", "validation_error"],
      ["PATCH_SIZE_EXCEEDED", "patch_size_exceeded"],
    ];
    for (const [k, o] of outs) {
      env[`GH_AW_REPO_MEMORY_${k}_default`] = plain(`\${{ needs.push_repo_memory.outputs.${o}_default }}`);
    }
  }
  Object.assign(env, {
    GH_AW_GROUP_REPORTS: dq(String(so.raw["group-reports"] === true)),
    GH_AW_FAILURE_REPORT_AS_ISSUE: dq(String(so.raw["report-failure-as-issue"] !== false)),
    GH_AW_MISSING_TOOL_REPORT_AS_FAILURE: dq("true"),
    GH_AW_MISSING_DATA_REPORT_AS_FAILURE: dq("true"),
    GH_AW_TIMEOUT_MINUTES: dq(String(timeoutMinutes)),
    GH_AW_MAX_EFFECTIVE_TOKENS: dq(String(ctx.maxEffectiveTokens ?? 25000000)),
  });
  if (ctx.cacheMemory) env.GH_AW_CACHE_MEMORY_ENABLED = dq("true");
  steps.push(scriptStep(ctx, "Handle agent failure", "handle_agent_failure", {
    id: "handle_agent_failure",
    if: plain("always()"),
    env,
    token,
  }));
  // The conclusion job reports through the same scopes the safe outputs use.
  // Staged runs, and workflows whose only outputs are custom jobs or workflow calls, get no scopes.
  const safeJobs = !!so.raw.jobs && typeof so.raw.jobs === "object" && Object.keys(so.raw.jobs).length > 0;
  const jobsOnly = so.types.filter((t) => !["call-workflow", ...REPORTING].includes(t)).length === 0 &&
    (safeJobs || so.types.includes("call-workflow"));
  const perms: Record<string, string> = Object.keys(so.permissions).length > 0
    ? { ...so.permissions }
    : so.staged || jobsOnly
    ? {}
    : { contents: "read", issues: "write" };
  const sorted: Record<string, string> = {};
  for (const k of Object.keys(perms).sort()) sorted[k] = perms[k];
  if (ctx.statusComment) {
    const cenv: Record<string, YValue> = {
      GH_AW_AGENT_OUTPUT: agentOutput,
      GH_AW_COMMENT_ID: plain("${{ needs.activation.outputs.comment_id }}"),
      GH_AW_COMMENT_REPO: plain("${{ needs.activation.outputs.comment_repo }}"),
      GH_AW_RUN_URL: runUrl,
      GH_AW_WORKFLOW_NAME: dq(ctx.name),
      GH_AW_AGENT_CONCLUSION: plain("${{ needs.agent.result }}"),
      GH_AW_SAFE_OUTPUTS_RESULT: plain("${{ needs.safe_outputs.result }}"),
    };
    if (so.threatDetection) {
      cenv.GH_AW_DETECTION_CONCLUSION = plain("${{ needs.detection.outputs.detection_conclusion }}");
      cenv.GH_AW_DETECTION_REASON = plain("${{ needs.detection.outputs.detection_reason }}");
    }
    const msgs = messagesJson(so.raw.messages);
    if (msgs) cenv.GH_AW_SAFE_OUTPUT_MESSAGES = dq(msgs);
    steps.push(scriptStep(ctx, "Update reaction comment with completion status", "notify_comment_error", {
      id: "conclusion",
      env: cenv,
      token,
    }));
  }
  const job: JobPlan = {
    needs: [
      ...["activation", "agent", ...(so.threatDetection ? ["detection"] : []), "safe_outputs", ...extraNeeds]
        .sort(),
    ],
    if: folded(
      "always() && (needs.agent.result != 'skipped' || needs.activation.outputs.lockdown_check_failed == 'true' ||\n" +
        "needs.activation.outputs.stale_lock_file_failed == 'true')\n",
    ),
    "runs-on": "ubuntu-slim",
    permissions: sorted,
    concurrency: { group: dq(`gh-aw-conclusion-${ctx.id}`), "cancel-in-progress": false, queue: "max" },
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
