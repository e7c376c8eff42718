/** The `activation` job: run info, preflight checks, trigger steps, the prompt and its artifact. */
import type { JobPlan, StepPlan } from "../types.ts";
import {
  artifactName,
  ghAwVersion,
  type JobCtx,
  otlpMaskSteps,
  scriptStep,
  setupSteps,
  targetOf,
  TRACE_OUTPUTS,
} from "../steps.ts";
import { Comment, dq, lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { costTableJson, hasCosts } from "../../source/model_catalog.ts";

import type { ActivationInput } from "./activation_input.ts";
import {
  DIRECT_EVENT_GUARD,
  EVENT_GUARD,
  eventCondition,
  jobIf,
  WORKFLOW_RUN_GUARD,
  WORKFLOW_RUN_ZIZMOR_NOTE,
} from "./conditions.ts";
import {
  createPromptStep,
  interpolateStep,
  promptExpressions,
  promptPathValue,
  substituteStep,
} from "./activation_prompt.ts";
import { sortedRecord } from "./go_format.ts";
import { GITHUB_AGENT_DIRS } from "../engines/facts.ts";
import {
  activationCreditEnv,
  activationCreditOutputs,
  dailyGuardrailSteps,
  oauthCheckSteps,
  setupCreditInputs,
} from "./ai_credits.ts";

import { dockerSbxOutputs, dockerSbxSecretsStep } from "./docker_sbx.ts";

/** The comment gh-aw puts before `run:` of steps that execute checked-out content. */
const POUTINE = new Comment("poutine:ignore untrusted_checkout_exec");

/** The `activation` job: setup, run info, preflight checks, the prompt and its artifact. */
export function activationJob(activationInput: ActivationInput): JobPlan {
  const promptExprs = promptExpressions(activationInput);
  const steps: StepPlan[] = [
    ...runInfoSteps(activationInput),
    ...preflightSteps(activationInput),
    ...triggerSteps(activationInput),
    createPromptStep(activationInput, promptExprs),
    interpolateStep(activationInput),
    substituteStep(activationInput, promptExprs),
    ...closingSteps(activationInput),
  ];
  const job: JobPlan = { "runs-on": "ubuntu-slim", steps };
  const needs = [
    ...(activationInput.hasPreActivation ? ["pre_activation"] : []),
    ...(activationInput.beforeJobs ?? []),
  ].sort();
  if (needs.length > 0) job.needs = needs.length === 1 ? needs[0] : needs;
  const userCond = eventCondition(
    activationInput.ifCondition,
    activationInput.forkGuard,
    activationInput.labelNames,
    targetOf(activationInput.ctx).jobs.stackedPrGuard,
  );
  const base = activationInput.hasPreActivation
    ? userCond
      ? `needs.pre_activation.outputs.activated == 'true' && (${userCond})`
      : "needs.pre_activation.outputs.activated == 'true'"
    : userCond;
  const cond = activationInput.workflowRunGuard
    ? base ? `(${base}) && (${WORKFLOW_RUN_GUARD})` : WORKFLOW_RUN_GUARD
    : base;
  if (cond) job.if = jobIf(cond);
  // The guard is what makes the workflow_run trigger safe, so gh-aw repeats the zizmor note above it.
  if (activationInput.workflowRunGuard) job.ifNote = new Comment(WORKFLOW_RUN_ZIZMOR_NOTE);
  job.permissions = {
    ...activationInput.permissions,
    ...activationWrites(activationInput),
    ...(activationInput.lockForAgent ? { issues: "write" } : {}),
  };
  const permissions = job.permissions;
  job.permissions = Object.fromEntries(Object.keys(permissions).sort().map((k) => [k, permissions[k]]));
  const creditEnv = activationCreditEnv(activationInput.ctx, activationInput.ctx.aiCreditLimits ?? {});
  if (Object.keys(creditEnv).length > 0) job.env = { ...job.env, ...creditEnv };
  job.outputs = activationOutputs(activationInput);
  return job;
}

/** Setup, OTLP masking and "Generate agentic run info" (engine, model, firewall, costs). */
function runInfoSteps(activationInput: ActivationInput): StepPlan[] {
  const { ctx } = activationInput;
  const style = targetOf(ctx).jobs.activation;
  const setup = setupSteps(ctx, activationInput.hasPreActivation ? "pre_activation" : false);
  const setupStep = setup[setup.length - 1];
  setupStep.with = { ...(setupStep.with as Record<string, YValue>), ...setupCreditInputs(ctx) };
  const steps: StepPlan[] = [
    ...setup,
    ...otlpMaskSteps(ctx),
    ...workflowCallSteps(activationInput),
  ];
  const info: Record<string, YValue> = {
    GH_AW_INFO_ENGINE_ID: dq(ctx.engine.id),
    GH_AW_INFO_ENGINE_NAME: dq(activationInput.engineDisplay),
    GH_AW_INFO_MODEL: activationInput.engineModel.startsWith("${{")
      ? plain(activationInput.engineModel)
      : dq(activationInput.engineModel),
    GH_AW_INFO_VERSION: dq(ctx.engine.version),
    GH_AW_INFO_AGENT_VERSION: dq(ctx.engine.version),
    // A release build names the gh-aw release the lock runs with; a dev build has no CLI version.
    ...(ctx.actionMode === "release" ? { GH_AW_INFO_CLI_VERSION: dq(ghAwVersion(ctx)) } : {}),
    GH_AW_INFO_WORKFLOW_NAME: dq(ctx.name),
    GH_AW_INFO_EXPERIMENTAL: dq(String(activationInput.experimental === true)),
    GH_AW_INFO_SUPPORTS_TOOLS_ALLOWLIST: dq(String(ctx.engine.toolsAllowlist)),
    GH_AW_INFO_STAGED: dq(String(activationInput.staged === true)),
    GH_AW_INFO_ALLOWED_DOMAINS: sq(JSON.stringify(activationInput.allowedDomainsInfo)),
    GH_AW_INFO_FIREWALL_ENABLED: dq(String(ctx.engine.reportsFirewall)),
    GH_AW_INFO_AWF_VERSION: dq(ctx.engine.reportsFirewall ? ctx.releaseAwf ?? "v0.25.58" : ""),
    GH_AW_INFO_AWMG_VERSION: dq(style.runInfoAgentRuntime ? ctx.sandboxInfo?.gatewayVersion ?? "" : ""),
    GH_AW_INFO_FIREWALL_TYPE: dq("squid"),
    ...(style.runInfoAgentRuntime
      ? { GH_AW_INFO_AGENT_RUNTIME: dq(ctx.sandboxInfo?.agentRuntime ?? "") }
      : {}),
    ...(style.runInfoAgentRuntime && ctx.cacheMemory ? { GH_AW_INFO_CACHE_MEMORY: dq("true") } : {}),
  };
  if (ctx.source) {
    info.GH_AW_INFO_FRONTMATTER_SOURCE = dq(ctx.source);
    info.GH_AW_INFO_BODY_MODIFIED = dq("false");
  }
  if (activationInput.emoji) info.GH_AW_INFO_FRONTMATTER_EMOJI = dq(activationInput.emoji);
  if (hasCosts(ctx.models)) info.GH_AW_INFO_MODEL_COSTS = sq(costTableJson(ctx.models));
  info.GH_AW_COMPILED_STRICT = dq(String(activationInput.strict));
  if (crossRepo(activationInput)) info.GH_AW_INFO_TARGET_REPO = plain(`\${{ ${TARGET}.target_repo }}`);
  steps.push(
    scriptStep(ctx, "Generate agentic run info", "generate_aw_info", {
      id: "generate_aw_info",
      env: info,
      call: "await main(core, context);",
    }),
  );
  // env before uses for this step, as gh-aw orders it
  const gen = steps[steps.length - 1];
  steps[steps.length - 1] = { name: gen.name, id: gen.id, env: gen.env, uses: gen.uses, with: gen.with };
  // A workflow compiled out of strict mode fails where the repository's policy demands strict mode.
  if (style.strictPolicyCheck && !activationInput.strict) {
    steps.push({
      name: "Enforce strict mode policy",
      if: plain("${{ vars.GH_AW_POLICY_STRICT == 'true' }}"),
      run: lit(
        'echo "::error::GH_AW_POLICY_STRICT=true but this workflow was not compiled in strict mode. Recompile ' +
          'with --strict or strict: true."\nexit 1\n',
      ),
    });
  }
  steps.push(...dailyGuardrailSteps(ctx, ctx.aiCreditLimits ?? {}, {
    slash: !!activationInput.commands?.length,
    label: !!activationInput.labelRemoval,
  }));
  return steps;
}

/**
 * Whether a callable workflow resolves the repository it runs from (its host, the caller's when called from
 * another repository): with its imports inlined it reads nothing from there.
 */
function crossRepo(activationInput: ActivationInput): boolean {
  return activationInput.ctx.workflowCall === true && !activationInput.noConfigCheckout;
}

/** The outputs of "Resolve host repo for activation checkout". */
const TARGET = "steps.resolve-host-repo.outputs";

/** A callable workflow's "Resolve host repo for activation checkout" and "Compute artifact prefix". */
function workflowCallSteps(activationInput: ActivationInput): StepPlan[] {
  const { ctx } = activationInput;
  if (!ctx.workflowCall) return [];
  const steps: StepPlan[] = [];
  if (crossRepo(activationInput)) {
    steps.push(scriptStep(ctx, "Resolve host repo for activation checkout", "resolve_host_repo", {
      id: "resolve-host-repo",
      env: {
        JOB_WORKFLOW_REPOSITORY: plain("${{ job.workflow_repository }}"),
        JOB_WORKFLOW_SHA: plain("${{ job.workflow_sha }}"),
        JOB_WORKFLOW_REF: plain("${{ job.workflow_ref }}"),
        JOB_WORKFLOW_FILE_PATH: plain("${{ job.workflow_file_path }}"),
      },
    }));
  }
  // The inputs travel through env (never interpolated into the script) to keep template injection out.
  steps.push({
    name: "Compute artifact prefix",
    id: "artifact-prefix",
    env: { INPUTS_JSON: plain("${{ toJSON(inputs) }}") },
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/compute_artifact_prefix.sh"'),
  });
  return steps;
}

/** Printed when the secret check fails in a cross-repository call: the caller must hold the secrets. */
const CROSS_REPO_GUIDANCE = [
  "COPILOT_GITHUB_TOKEN must be configured in the CALLER repository's secrets.",
  "For cross-repo workflow_call, secrets must be set in the repository that triggers the workflow.",
  "See: https://github.github.com/gh-aw/patterns/central-repo-ops/#cross-repo-setup",
];

/** Reaction, secret validation, `.github` checkout and the stale-lock check. */
function preflightSteps(activationInput: ActivationInput): StepPlan[] {
  const { ctx } = activationInput;
  const style = targetOf(ctx).jobs.activation;
  const steps: StepPlan[] = [];
  if (activationInput.reaction) {
    steps.push(
      scriptStep(ctx, `Add ${activationInput.reaction} reaction for immediate feedback`, "add_reaction", {
        id: "react",
        if: plain(activationInput.routerDispatch ? EVENT_GUARD : DIRECT_EVENT_GUARD),
        env: { GH_AW_REACTION: dq(activationInput.reaction) },
        token: activationInput.githubToken ?? "${{ secrets.GITHUB_TOKEN }}",
      }),
    );
  }
  if (activationInput.secrets.length > 0) {
    const env: Record<string, YValue> = {};
    for (const s of activationInput.secrets) env[s] = plain(`\${{ secrets.${s} }}`);
    const display = /\s/.test(activationInput.validateName)
      ? `'${activationInput.validateName}'`
      : activationInput.validateName;
    steps.push({
      name: `Validate ${activationInput.secrets.join(" or ")} secret`,
      id: "validate-secret",
      run: plain(
        `bash "\${RUNNER_TEMP}/gh-aw/actions/validate_multi_secret.sh" ${
          activationInput.secrets.join(" ")
        } ${display} ${activationInput.docs}`,
      ),
      env,
    });
  }
  steps.push(...dockerSbxSecretsStep(ctx));
  if (crossRepo(activationInput)) {
    steps.push({
      name: "Print cross-repo setup guidance",
      if: plain(`failure() && ${TARGET}.target_repo != github.repository`),
      run: lit(CROSS_REPO_GUIDANCE.map((line) => `echo "::error::${line}"\n`).join("")),
    });
  }
  steps.push(...oauthCheckSteps(ctx));
  if (!activationInput.noConfigCheckout) {
    // A callable workflow checks its own repository's `.github` out, at the revision that runs.
    const host = crossRepo(activationInput);
    steps.push({
      name: "Checkout .github and .agents folders",
      ...(host ? { if: plain(`${TARGET}.target_repo == github.repository`) } : {}),
      uses: plain(ctx.refs.checkout),
      with: {
        "persist-credentials": false,
        ...(activationInput.githubToken ? { token: plain(activationInput.githubToken) } : {}),
        ...(host
          ? {
            repository: plain(`\${{ ${TARGET}.target_repo }}`),
            ref: plain(`\${{ ${TARGET}.target_checkout_ref }}`),
          }
          : {}),
        "sparse-checkout": lit(style.sparseCheckout.map((f) => `${f}\n`).join("")),
        "sparse-checkout-cone-mode": true,
        "fetch-depth": 1,
      },
    });
  }
  // A release that names the engine's own config folders saves only those.
  const own = targetOf(ctx).engines[ctx.engine.id]?.agentConfig;
  steps.push(checkedOutRun(ctx, {
    name: "Save agent config folders for base branch restoration",
    env: {
      GH_AW_AGENT_FOLDERS: dq(
        own?.folders.join(" ") ?? ".agents .antigravity .claude .codex .crush .gemini .github .opencode .pi",
      ),
      GH_AW_AGENT_FILES: dq(
        own?.files.join(" ") ??
          ".crush.json AGENTS.md ANTIGRAVITY.md CLAUDE.md GEMINI.md PI.md opencode.jsonc",
      ),
    },
  }, 'bash "${RUNNER_TEMP}/gh-aw/actions/save_base_github_folders.sh"'));
  steps.push(scriptStep(ctx, "Check workflow lock file", "check_workflow_timestamp_api", {
    id: "check-lock-file",
    env: {
      GH_AW_WORKFLOW_FILE: dq(ctx.lockFile),
      GH_AW_CONTEXT_WORKFLOW_REF: dq("${{ github.workflow_ref }}"),
    },
    token: activationInput.githubToken,
  }));
  if (style.versionChecks) {
    steps.push(scriptStep(ctx, "Check compile-agentic version", "check_version_updates", {
      env: { GH_AW_COMPILED_VERSION: dq(ghAwVersion(ctx)) },
    }));
  }
  return steps;
}

/** The events whose issue `lock-for-agent` locks. */
export const ISSUE_EVENTS_GUARD = "github.event_name == 'issues' || github.event_name == 'issue_comment'";

/** Steps the triggers and features ask for: sanitized text, status comment, label removal, lock, experiments. */
function triggerSteps(activationInput: ActivationInput): StepPlan[] {
  const { ctx } = activationInput;
  const steps: StepPlan[] = [];
  if (activationInput.sanitize) {
    steps.push(scriptStep(ctx, "Compute current body text", "compute_text", {
      id: "sanitized",
      env: { GH_AW_ALLOWED_DOMAINS: dq(activationInput.allowedDomains.join(",")) },
    }));
  }
  if (activationInput.statusComment) {
    const env: Record<string, YValue> = { GH_AW_WORKFLOW_NAME: dq(ctx.name) };
    if (activationInput.messages) env.GH_AW_SAFE_OUTPUT_MESSAGES = dq(activationInput.messages);
    steps.push(scriptStep(ctx, "Add comment with workflow run link", "add_workflow_run_comment", {
      id: "add-comment",
      if: plain(activationInput.routerDispatch ? EVENT_GUARD : DIRECT_EVENT_GUARD),
      env,
      token: activationInput.githubToken,
    }));
  }
  if (activationInput.labelRemoval) {
    steps.push(scriptStep(ctx, "Remove trigger label", "remove_trigger_label", {
      id: "remove_trigger_label",
      env: { GH_AW_LABEL_NAMES: dq(JSON.stringify(activationInput.labelRemoval.names)) },
      token: activationInput.githubToken,
    }));
  }
  // The issue stays locked while the agent works, so nobody can change the conversation it reads.
  if (activationInput.lockForAgent) {
    steps.push(scriptStep(ctx, "Lock issue for agentic workflow", "lock-issue", {
      id: "lock-issue",
      if: plain(ISSUE_EVENTS_GUARD),
    }));
  }
  // gh-aw adds the experiment steps after the trigger steps, just before the prompt is built.
  steps.push(...experimentSteps(activationInput));
  // Later releases log the repository's runtime features right before the prompt.
  if (targetOf(ctx).jobs.activation.versionChecks) {
    steps.push({
      name: "Log runtime features",
      if: plain(`\${{ contains(toJSON(vars), '"GH_AW_RUNTIME_FEATURES":') }}`),
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/log_runtime_features_summary.sh"'),
    });
  }
  return steps;
}

/** The experiment steps: restore the state, pick the variants, upload the state. */
function experimentSteps(activationInput: ActivationInput): StepPlan[] {
  const { ctx } = activationInput;
  if (!activationInput.experiments) return [];
  const steps: StepPlan[] = [];
  const sanitized = ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase();
  steps.push(scriptStep(ctx, "Restore experiment state from git", "load_experiment_state_from_repo", {
    id: "restore-experiment-state",
    env: {
      GH_AW_EXPERIMENT_STATE_FILE: "/tmp/gh-aw/experiments/state.json",
      GH_AW_EXPERIMENT_STATE_DIR: "/tmp/gh-aw/experiments",
      GH_AW_EXPERIMENT_BRANCH: `experiments/${sanitized}`,
    },
  }));
  steps.push(scriptStep(ctx, "Pick experiment variants", "pick_experiment", {
    id: "pick-experiment",
    env: {
      GH_AW_EXPERIMENT_SPEC: sq(activationInput.experiments.spec),
      GH_AW_EXPERIMENT_STATE_FILE: "/tmp/gh-aw/experiments/state.json",
      GH_AW_EXPERIMENT_STATE_DIR: "/tmp/gh-aw/experiments",
    },
  }));
  steps.push({
    name: "Upload experiment artifact",
    if: plain("always()"),
    uses: plain(ctx.refs.upload),
    with: {
      name: `${sanitized}-experiment`,
      path: "/tmp/gh-aw/experiments",
      "if-no-files-found": "ignore",
      "retention-days": 30,
    },
  });
  return steps;
}

/** Placeholder validation, the prompt summary and the activation artifact. */
function closingSteps(activationInput: ActivationInput): StepPlan[] {
  const { ctx } = activationInput;
  const style = targetOf(ctx).jobs.activation;
  const steps: StepPlan[] = [];
  steps.push(checkedOutRun(ctx, {
    name: "Validate prompt placeholders",
    env: { GH_AW_PROMPT: promptPathValue(ctx) },
  }, 'bash "${RUNNER_TEMP}/gh-aw/actions/validate_prompt_placeholders.sh"'));
  steps.push(checkedOutRun(ctx, {
    name: "Print prompt",
    env: { GH_AW_PROMPT: promptPathValue(ctx) },
  }, 'bash "${RUNNER_TEMP}/gh-aw/actions/print_prompt_summary.sh"'));
  if (style.stagePromptFiles) {
    steps.push({
      name: "Stage prompt files for artifact upload",
      run: lit(
        'mkdir -p /tmp/gh-aw/aw-prompts\ncp -a "${RUNNER_TEMP}/gh-aw/aw-prompts/." /tmp/gh-aw/aw-prompts/\n',
      ),
    });
  }
  steps.push({
    name: "Upload activation artifact",
    if: plain("success()"),
    uses: plain(ctx.refs.upload),
    with: {
      name: artifactName(ctx, "activation", "activation-step"),
      "include-hidden-files": true,
      path: lit(
        `/tmp/gh-aw/aw_info.json\n/tmp/gh-aw/${style.modelsFile}\n/tmp/gh-aw/aw-prompts/prompt.txt\n` +
          "/tmp/gh-aw/aw-prompts/prompt-template.txt\n/tmp/gh-aw/aw-prompts/prompt-import-tree.json\n" +
          `/tmp/gh-aw/github_rate_limits.jsonl\n/tmp/gh-aw/base\n/tmp/gh-aw/${
            (ctx.engine.agentDirs ?? GITHUB_AGENT_DIRS).root
          }/agents\n/tmp/gh-aw/${(ctx.engine.agentDirs ?? GITHUB_AGENT_DIRS).root}/skills\n`,
      ),
      "if-no-files-found": "ignore",
      "retention-days": 1,
    },
  });
  return steps;
}

/**
 * A step running checked-out content: with the `poutine:ignore` note and a plain `run:` (v0.76.1), or a
 * literal `run: |` without the note (later releases).
 */
export function checkedOutRun(ctx: JobCtx, step: StepPlan, script: string): StepPlan {
  return targetOf(ctx).jobs.activation.poutineNotes
    ? { ...step, "#": POUTINE, run: plain(script) }
    : { ...step, run: lit(`${script}\n`) };
}

/** The job's outputs, sorted. */
function activationOutputs(activationInput: ActivationInput): Record<string, YValue> {
  const outputs: Record<string, YValue> = {
    ...(activationInput.sanitize ? { body: plain("${{ steps.sanitized.outputs.body }}") } : {}),
    ...(activationInput.experiments
      ? { experiments: plain("${{ steps.pick-experiment.outputs.experiments }}") }
      : {}),
    ...Object.fromEntries(
      (activationInput.experiments?.names ?? []).map((
        n,
      ) => [n, plain(`\${{ steps.pick-experiment.outputs.${n} }}`)]),
    ),
    ...(activationInput.statusComment
      ? {
        comment_id: plain("${{ steps.add-comment.outputs.comment-id }}"),
        comment_repo: plain("${{ steps.add-comment.outputs.comment-repo }}"),
        comment_url: plain("${{ steps.add-comment.outputs.comment-url }}"),
      }
      : { comment_id: dq(""), comment_repo: dq("") }),
    ...dockerSbxOutputs(activationInput.ctx),
    engine_id: plain("${{ steps.generate_aw_info.outputs.engine_id }}"),
    ...(activationInput.ctx.workflowCall
      ? { artifact_prefix: plain("${{ steps.artifact-prefix.outputs.prefix }}") }
      : {}),
    ...(crossRepo(activationInput)
      ? Object.fromEntries(
        ["target_checkout_ref", "target_ref", "target_repo", "target_repo_name"].map((k) => [
          k,
          plain(`\${{ ${TARGET}.${k} }}`),
        ]),
      )
      : {}),
    ...(activationInput.lockForAgent
      ? { issue_locked: plain("${{ steps.lock-issue.outputs.locked }}") }
      : {}),
    lockdown_check_failed: plain("${{ steps.generate_aw_info.outputs.lockdown_check_failed == 'true' }}"),
    model: plain("${{ steps.generate_aw_info.outputs.model }}"),
    ...(activationInput.secrets.length > 0
      ? { secret_verification_result: plain("${{ steps.validate-secret.outputs.verification_result }}") }
      : {}),
    ...(activationInput.labelRemoval
      ? { label_command: plain("${{ steps.remove_trigger_label.outputs.label_name }}") }
      : {}),
    ...TRACE_OUTPUTS,
    ...(activationInput.commands
      ? { slash_command: plain("${{ needs.pre_activation.outputs.matched_command }}") }
      : {}),
    stale_lock_file_failed: plain("${{ steps.check-lock-file.outputs.stale_lock_file_failed == 'true' }}"),
    ...activationCreditOutputs(activationInput.ctx),
    ...(activationInput.sanitize
      ? {
        text: plain("${{ steps.sanitized.outputs.text }}"),
        title: plain("${{ steps.sanitized.outputs.title }}"),
      }
      : {}),
  };
  return sortedRecord(outputs);
}

const PR_EVENTS = [
  "pull_request",
  "pull_request_target",
  "pull_request_review",
  "pull_request_review_comment",
  "issue_comment",
];
const DISCUSSION_EVENTS = ["discussion", "discussion_comment"];

/**
 * Write scopes the activation job needs, as gh-aw scopes them by the triggering events: reactions write
 * to issues, PRs and discussions; status comments to issues and discussions; removing a trigger label
 * to issues (issue and PR labels) and discussions.
 */
export function activationWrites(a: {
  reaction?: string;
  statusComment: boolean;
  activationEvents?: string[];
  labelRemoval?: { events: string[] };
}): Record<string, string> {
  const ev = a.activationEvents ?? [];
  const out: Record<string, string> = {};
  const issueLike = ev.some((e) => e === "issues" || PR_EVENTS.includes(e));
  const disc = ev.some((e) => DISCUSSION_EVENTS.includes(e));
  if (a.reaction || a.statusComment) {
    if (issueLike) out.issues = "write";
    if (disc) out.discussions = "write";
  }
  if (a.reaction && ev.some((e) => PR_EVENTS.includes(e))) out["pull-requests"] = "write";
  if (a.labelRemoval) {
    if (a.labelRemoval.events.some((e) => e === "issues" || e === "pull_request")) out.issues = "write";
    if (a.labelRemoval.events.includes("discussion")) out.discussions = "write";
  }
  return out;
}
