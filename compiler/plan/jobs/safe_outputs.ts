/** The consolidated `safe_outputs` job: one step applies every safe output the agent asked for. */
import type { JobPlan, StepPlan } from "../types.ts";
import {
  agentOutputSteps,
  artifactName,
  type JobCtx,
  otlpMaskSteps,
  restoreActionsFolderSteps,
  scriptStep,
  setupSteps,
  sourceEnvOf,
  targetOf,
} from "../steps.ts";
import { dq, lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import type { SafeOutputsPlan } from "../safe_outputs/plan.ts";
import { SAFE_OUTPUT_TYPES } from "../safe_outputs/types/registry.ts";
import { snakeCase } from "../safe_outputs/types/contract.ts";
import { expandEcosystems } from "../network.ts";
import { ghHostStep } from "./custom.ts";
import { messagesJson } from "../safe_outputs/messages.ts";
import { sarifArtifactStep, uploadsSarif } from "./code_scanning.ts";
import { actionSteps, safeOutputActionsJson } from "../safe_outputs/custom_actions.ts";
import { ciTriggerTokenOf, codePushSteps, codePushTypes, pushTokenOf, writeTokenOf } from "./code_push.ts";
import { objectOf } from "../../source/values.ts";

export { codePushTypes } from "./code_push.ts";

/** Safe outputs that write to a GitHub Project, whose API the default token cannot reach. */
const PROJECT_TYPES = ["update-project", "create-project-status-update", "create-project"];

/**
 * The project the handler works on and the token it uses for it: the first project type's `project:` URL
 * and its `github-token` (gh-aw's GH_AW_PROJECT_GITHUB_TOKEN secret when unset).
 */
function projectAccess(so: SafeOutputsPlan): { url?: string; token: string } | undefined {
  const key = PROJECT_TYPES.find((t) => so.types.includes(t));
  if (key === undefined) return undefined;
  const cfg = objectOf(so.configs[key]);
  const token = typeof cfg["github-token"] === "string" && cfg["github-token"] !== ""
    ? cfg["github-token"]
    : "${{ secrets.GH_AW_PROJECT_GITHUB_TOKEN }}";
  return { url: typeof cfg.project === "string" ? cfg.project : undefined, token };
}

/** Builds the `safe_outputs` job. */
export function safeOutputsJob(
  ctx: JobCtx,
  so: SafeOutputsPlan,
  allowedDomains: string[],
  emoji: string | undefined,
  environment: YValue | undefined,
  /** The `checkout:` entries (the code-push checkout mirrors the one the agent worked in). */
  checkouts: Record<string, unknown>[] = [],
): JobPlan {
  // The artifact client and staging download run whenever upload-artifact is enabled (staged or not).
  const artifacts = so.types.includes("upload-artifact");
  const setup = setupSteps(ctx, true);
  if (artifacts) {
    const last = setup[setup.length - 1];
    last.with = { ...(last.with ?? {}), "safe-output-artifact-client": sq("true") };
  }
  const steps: StepPlan[] = [...setup, ...otlpMaskSteps(ctx), ...agentOutputSteps(ctx)];
  // A staged run only previews its outputs: nothing is pushed, so nothing is checked out for it.
  if (!so.staged) steps.push(...codePushSteps(ctx, so, checkouts));
  steps.push(ghHostStep(targetOf(ctx)));
  const env = handlerEnv(so, allowedDomains);
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
  const style = targetOf(ctx).jobs.safeOutputs;
  steps.push(scriptStep(ctx, "Process Safe Outputs", style.handlerModule, {
    id: "process_safe_outputs",
    env,
    // The handler's client must reach the project; the checkouts and git pushes keep the write token.
    token: projectAccess(so)?.token ?? writeTokenOf(so),
  }));
  steps.push(...actionSteps(so.actions ?? []));
  if (uploadsSarif(so)) steps.push(sarifArtifactStep(ctx, artifactName(ctx, "", "activation")));
  // Staged runs only preview, so there are no processed items to upload.
  if (!so.staged) {
    steps.push({
      name: "Upload Safe Outputs Items",
      if: plain("always()"),
      uses: plain(ctx.refs.upload),
      with: {
        name: artifactName(ctx, "safe-outputs-items", "activation"),
        path: lit("/tmp/gh-aw/safe-output-items.jsonl\n/tmp/gh-aw/temporary-id-map.json\n"),
        "if-no-files-found": "ignore",
      },
    });
  }
  // Only code-pushing handlers check out another tree over the workspace.
  if (codePushTypes(so).length > 0 && !so.staged) steps.push(...restoreActionsFolderSteps(ctx));
  const needs = ["activation", "agent", ...(so.threatDetection ? ["detection"] : []), ...so.needs];
  const cond = "(!cancelled()) && needs.agent.result != 'skipped'" +
    (so.threatDetection ? " && needs.detection.result == 'success'" : "");
  const job: JobPlan = { needs, if: plain(cond), "runs-on": "ubuntu-slim", steps };
  if (environment !== undefined) job.environment = environment;
  // Later releases grant the job only the write scopes its types ask.
  job.permissions = style.contentsRead || so.permissions.contents !== "read"
    ? so.permissions
    : Object.fromEntries(Object.entries(so.permissions).filter(([k]) => k !== "contents"));
  job["timeout-minutes"] = style.timeoutMinutes;
  job.env = jobEnv(ctx, so, emoji);
  job.outputs = jobOutputs(so, style.itemOutputs, style.typeJobOutputs);
  return job;
}

/**
 * The custom safe-output jobs (`safe-outputs.jobs`) as gh-aw announces them to the handler manager and the
 * completion comment: each job's tool name, sorted, with an empty URL output; undefined without any.
 */
export function safeOutputJobsJson(so: SafeOutputsPlan): string | undefined {
  const customJobs = Object.keys(so.global.jobs ?? {});
  if (customJobs.length === 0) return undefined;
  return JSON.stringify(
    Object.fromEntries(customJobs.map((j) => j.replace(/-/g, "_")).sort().map((j) => [j, ""])),
  );
}

/** The handler manager's environment: the agent output, the handler config and the tokens it may use. */
function handlerEnv(so: SafeOutputsPlan, allowedDomains: string[]): Record<string, YValue> {
  const env: Record<string, YValue> = {
    GH_AW_AGENT_OUTPUT: plain("${{ steps.setup-agent-output-env.outputs.GH_AW_AGENT_OUTPUT }}"),
    GH_AW_COMMENT_ID: plain("${{ needs.activation.outputs.comment_id }}"),
    GH_AW_ALLOWED_DOMAINS: dq(
      [...new Set([...allowedDomains, ...expandEcosystems(so.allowedDomains ?? [])])].sort().join(","),
    ),
  };
  env.GITHUB_SERVER_URL = plain("${{ github.server_url }}");
  env.GITHUB_API_URL = plain("${{ github.api_url }}");
  // Custom safe-output jobs the handler manager must leave to their own jobs.
  const customJobs = safeOutputJobsJson(so);
  if (customJobs) env.GH_AW_SAFE_OUTPUT_JOBS = dq(customJobs);
  // Custom actions the handler exports a payload for, each run by its own step after the handler.
  const actions = safeOutputActionsJson(so.actions ?? []);
  if (actions) env.GH_AW_SAFE_OUTPUT_ACTIONS = dq(actions);
  // Go's encoding/json escapes <, > and & (HTML-safe) in the handler config it writes.
  env.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG = dq(
    JSON.stringify(so.handlerConfig).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(
      /&/g,
      "\\u0026",
    ),
  );
  // Staged mode follows the handler config directly, ahead of the agent tokens.
  if (so.staged) env.GH_AW_SAFE_OUTPUTS_STAGED = dq("true");
  const agentToken = plain(
    "${{ secrets.GH_AW_AGENT_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
  );
  // Copilot as an assignee of created issues (or of a PR's fallback issue) is assigned inline; gh-aw writes
  // the flag with the config env, before the tokens (the CI trigger token first).
  const copilotAssignee = ["create_issue", "create_pull_request"].some((type) => {
    const assignees = so.handlerConfig[type]?.assignees;
    return Array.isArray(assignees) && assignees.includes("copilot");
  });
  if (copilotAssignee) env.GH_AW_ASSIGN_COPILOT = dq("true");
  if (codePushTypes(so).length > 0 && !so.staged) {
    env.GH_AW_CI_TRIGGER_TOKEN = plain(ciTriggerTokenOf(so));
    // The PR types' own token, which their git operations and API calls use.
    const pushToken = pushTokenOf(so);
    if (pushToken) env.GITHUB_TOKEN = plain(pushToken);
  }
  if (copilotAssignee || so.types.includes("assign-to-agent")) env.GH_AW_ASSIGN_TO_AGENT_TOKEN = agentToken;
  if (so.types.includes("create-agent-session")) env.GH_AW_AGENT_SESSION_TOKEN = agentToken;
  const project = projectAccess(so);
  if (project?.url) env.GH_AW_PROJECT_URL = dq(project.url);
  if (project) env.GH_AW_PROJECT_GITHUB_TOKEN = plain(project.token);
  return env;
}

/** The job's environment (sorted): the workflow, its engine and detection result, custom messages. */
function jobEnv(ctx: JobCtx, so: SafeOutputsPlan, emoji: string | undefined): Record<string, YValue> {
  const jenv: Record<string, YValue> = {
    GH_AW_CALLER_WORKFLOW_ID: dq(`\${{ github.repository }}/${ctx.id}`),
    GH_AW_EFFECTIVE_TOKENS: plain("${{ needs.agent.outputs.effective_tokens }}"),
    GH_AW_ENGINE_ID: dq(ctx.engine.id),
    GH_AW_ENGINE_MODEL: ctx.model ? dq(ctx.model) : plain("${{ needs.agent.outputs.model }}"),
    GH_AW_WORKFLOW_ID: dq(ctx.id),
    GH_AW_WORKFLOW_NAME: dq(ctx.name),
    ...sourceEnvOf(ctx),
  };
  const style = targetOf(ctx).jobs.safeOutputs;
  // The version of the Copilot CLI the agent ran; the author's own command installs none.
  if (style.engineVersionEnv && ctx.engine.reportsVersion && !ctx.engineCommand) {
    jenv.GH_AW_ENGINE_VERSION = dq(ctx.engine.version);
  }
  if (style.headShaEnv && ctx.pullRequestEvent) {
    jenv.GH_AW_HEAD_SHA = plain("${{ github.event.pull_request.head.sha }}");
  }
  // The AI credits the agent spent and its ambient context, for the handlers' footers and reports.
  if (style.aiCreditsEnv) {
    jenv.GH_AW_AGENT_AIC = plain("${{ needs.agent.outputs.aic }}");
    jenv.GH_AW_AIC = plain("${{ needs.agent.outputs.aic }}");
    jenv.GH_AW_AMBIENT_CONTEXT = plain("${{ needs.agent.outputs.ambient_context }}");
  }
  if (ctx.commands?.length) jenv.GH_AW_COMMANDS = dq(JSON.stringify(ctx.commands));
  if (so.threatDetection) {
    jenv.GH_AW_DETECTION_CONCLUSION = plain("${{ needs.detection.outputs.detection_conclusion }}");
    jenv.GH_AW_DETECTION_REASON = plain("${{ needs.detection.outputs.detection_reason }}");
  }
  // gh-aw announces staged mode to the whole job as well as to the handler step.
  if (so.staged) jenv.GH_AW_SAFE_OUTPUTS_STAGED = dq("true");
  const messages = messagesJson(so.global.messages);
  if (messages) jenv.GH_AW_SAFE_OUTPUT_MESSAGES = dq(messages);
  if (emoji) jenv.GH_AW_WORKFLOW_EMOJI = dq(emoji);
  const sortedEnv: Record<string, YValue> = {};
  for (const k of Object.keys(jenv).sort()) sortedEnv[k] = jenv[k];
  return sortedEnv;
}

/** The job's outputs (sorted): the processing step's results, per enabled type (staged runs too). */
function jobOutputs(
  so: SafeOutputsPlan,
  itemOutputs: boolean,
  /** The target's `typeJobOutputs`: outputs the release adds per type. */
  added: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): Record<string, YValue> {
  const o = (k: string, step = k) => plain(`\${{ steps.process_safe_outputs.outputs.${step} }}`);
  const outputs: Record<string, YValue> = {
    code_push_failure_count: o("code_push_failure_count"),
    code_push_failure_errors: o("code_push_failure_errors"),
    create_discussion_error_count: o("create_discussion_error_count"),
    create_discussion_errors: o("create_discussion_errors"),
  };
  for (const type of SAFE_OUTPUT_TYPES) {
    if (!type.jobOutputs || !so.types.includes(type.key)) continue;
    const handler = so.handlerConfig[snakeCase(type.key)] ?? {};
    for (const [name, step] of Object.entries(type.jobOutputs(handler))) outputs[name] = o("x", step);
  }
  for (const [key, extra] of Object.entries(added)) {
    if (!so.types.includes(key)) continue;
    for (const [name, step] of Object.entries(extra)) outputs[name] = o("x", step);
  }
  outputs.process_safe_outputs_processed_count = o("x", "processed_count");
  if (itemOutputs) {
    for (const k of ["applied", "cancelled", "deferred", "failed", "skipped", "succeeded", "warnings"]) {
      outputs[`process_safe_outputs_items_${k}`] = o("x", `items_${k}`);
    }
    outputs.process_safe_outputs_status = o("x", "status");
  }
  outputs.process_safe_outputs_temporary_id_map = o("x", "temporary_id_map");
  const sortedOutputs: Record<string, YValue> = {};
  for (const k of Object.keys(outputs).sort()) sortedOutputs[k] = outputs[k];
  return sortedOutputs;
}
