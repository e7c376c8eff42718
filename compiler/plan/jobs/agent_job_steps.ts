/**
 * The `agent` job's step groups, in the order the job runs them: workspace, user steps and memories,
 * engine install, agent configuration, tool servers, the engine run, and what follows it (summaries,
 * memories saved, artifacts uploaded). agent.ts strings the groups together and owns the job's outline;
 * the safe-outputs, MCP and engine steps themselves come from ../safe_outputs/agent_steps.ts,
 * ../mcp/steps.ts and ../agent/engine.ts.
 */
import { memoryBranch } from "./memory.ts";
import { customGithubServer } from "../mcp/github.ts";
import { codePushTypes } from "./code_push.ts";
import { parseSkill, skillInstallSteps, type SkillRef } from "../agent/skills.ts";
import { pluginInstallSteps, pluginRefs } from "../agent/plugins.ts";
import { pinnedImagesStep } from "../../source/sandbox.ts";
import type { StepPlan } from "../types.ts";
import {
  artifactName,
  gitCredentialsStep,
  type JobCtx,
  otlpMaskSteps,
  restoreActionsFolderSteps,
  scriptStep,
  setupSteps,
  shStep,
  targetOf,
} from "../steps.ts";
import { BlankLine, Comment, dq, lit, plain, Styled, type YValue } from "../../yaml/writer.ts";
import {
  DEFAULT_FETCH_TOKEN,
  fetchRefsOf,
  fetchRefsStep,
  isDefaultCheckout,
  isExternalRootCheckout,
} from "./checkout_refs.ts";
import type { AgentInput } from "../agent/input.ts";
import { insertionAfterCheckout } from "../agent/runtime_plan.ts";
import {
  type CacheMemoryEntry,
  cacheMemoryPostSteps,
  type CacheMemoryRefs,
  cacheMemorySetupSteps,
  effectiveCacheMemory,
  type GuardPolicy,
  guardPolicyOf,
} from "../agent/memory.ts";
import {
  repoMemoryCloneSteps,
  repoMemoryEntries,
  type RepoMemoryEntry,
  repoMemoryUploadSteps,
} from "../agent/repo_memory.ts";
import {
  commentMemorySteps,
  safeOutputsArtifactPaths,
  safeOutputsIngestSteps,
  safeOutputsServerSteps,
  safeOutputsUploadSteps,
} from "../safe_outputs/agent_steps.ts";
import {
  agenticWorkflowsBuildSteps,
  agenticWorkflowsInstallSteps,
  cliProxyStartSteps,
  cliProxyStopSteps,
  difcProxyStartSteps,
  lockdownSteps,
  mcpGatewayLogSteps,
  mcpGatewaySteps,
  mcpGatewayStopSteps,
  stepsRunThroughDifcProxy,
  stepsThroughDifcProxy,
} from "../mcp/steps.ts";
import {
  engineExecuteSteps,
  engineInstallSteps,
  engineLogSteps,
  enginePreBundleSteps,
  runtimeRefreshSteps,
} from "../agent/engine.ts";
import { type AgentDirs, GITHUB_AGENT_DIRS } from "../engines/facts.ts";

const ALWAYS = plain("always()");

/** Agent instruction folders and files restored from the base branch after a PR checkout (never the PR's). */
const AGENT_FOLDERS = ".agents .antigravity .claude .codex .crush .gemini .github .opencode .pi";
const AGENT_FILES = ".crush.json AGENTS.md ANTIGRAVITY.md CLAUDE.md GEMINI.md PI.md opencode.jsonc";

const MCP_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** The job's memories: cache-memory entries and where their actions are pinned, repo-memory entries. */
export interface AgentMemory {
  caches: CacheMemoryEntry[];
  /** The cache, upload and github-script actions; undefined when `cache-memory` is not configured. */
  cacheRefs: CacheMemoryRefs | undefined;
  repos: RepoMemoryEntry[];
  /** The GitHub tool's guard policy (cache keys depend on it; a min-integrity adds proxy logs). */
  policy: GuardPolicy;
}

/** Reads the job's memories from the merged tools. */
export function agentMemory(agent: AgentInput): AgentMemory {
  const { ctx } = agent;
  return {
    caches: effectiveCacheMemory(
      agent.frontmatter.tools,
      agent.merged.tools,
    ),
    cacheRefs: agent.cacheRefs && {
      ...agent.cacheRefs,
      upload: ctx.refs.upload,
      githubScript: ctx.refs.githubScript,
    },
    // The branch the activation prompt and the push job name, as the target release names it.
    repos: repoMemoryEntries(agent.merged.tools["repo-memory"], ctx.id, (m) => memoryBranch(m, ctx)),
    // A custom `github` server that replaces the tool leaves no guard policy (releases that merge it so).
    policy: guardPolicyOf(customGithubServer(agent) ? {} : agent.merged.tools.github),
  };
}

/** A custom step checking out the workflow's own repository (an `actions/checkout` without `repository`). */
function checksOutThisRepository(step: StepPlan): boolean {
  const uses = step.uses instanceof Styled ? step.uses.value : step.uses;
  return typeof uses === "string" && uses.startsWith("actions/checkout@") &&
    step.with?.repository === undefined;
}

/**
 * The agent's checkouts: the repository's own (the `checkout:` entry for it, else a default one — unless the
 * author's own steps already check it out, a second checkout would redo theirs), then the other entries, each
 * followed by the fetch of its `fetch:` refs.
 */
function checkoutSteps(agent: AgentInput): StepPlan[] {
  const { ctx } = agent;
  if (agent.merged.checkoutDisabled) return [];
  const raw = agent.merged.checkout;
  const steps: StepPlan[] = [];
  if (!raw.some(isDefaultCheckout) && !agent.customSteps.some(checksOutThisRepository)) {
    steps.push({
      name: "Checkout repository",
      uses: plain(ctx.refs.checkout),
      with: { "persist-credentials": false },
    });
  }
  raw.forEach((entry, i) => {
    const c = agent.checkouts[i];
    // `force-clean-git-credentials` keeps the credentials for the checkout itself, then scrubs them.
    const clean = entry["force-clean-git-credentials"] === true;
    steps.push({
      name: c.repository ? `Checkout ${String(c.repository)}` : "Checkout repository",
      uses: plain(ctx.refs.checkout),
      with: { "persist-credentials": clean, ...c },
    });
    if (clean) {
      steps.push({
        name: "Clean git credentials after checkout",
        "continue-on-error": true,
        run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/clean_git_credentials_checkout.sh"'),
      });
    }
    const refs = fetchRefsOf(entry);
    if (refs.length === 0) return;
    steps.push(fetchRefsStep({
      refs,
      token: typeof entry["github-token"] === "string" ? entry["github-token"] : DEFAULT_FETCH_TOKEN,
      repository: typeof entry.repository === "string" ? entry.repository : undefined,
      path: typeof entry.path === "string" && entry.path !== "." ? entry.path : undefined,
      fetchDepth: entry["fetch-depth"],
    }));
  });
  return steps;
}

/** Sets up the runner: actions, runtime paths, the repository checkout, runtimes, gh and the DIFC proxy. */
export function workspaceSteps(agent: AgentInput): StepPlan[] {
  const { ctx } = agent;
  return [
    ...setupSteps(ctx, true),
    {
      name: "Set runtime paths",
      id: "set-runtime-paths",
      run: lit(
        '{\n  echo "GH_AW_SAFE_OUTPUTS=${RUNNER_TEMP}/gh-aw/safeoutputs/outputs.jsonl"\n' +
          '  echo "GH_AW_SAFE_OUTPUTS_CONFIG_PATH=${RUNNER_TEMP}/gh-aw/safeoutputs/config.json"\n' +
          '  echo "GH_AW_SAFE_OUTPUTS_TOOLS_PATH=${RUNNER_TEMP}/gh-aw/safeoutputs/tools.json"\n} >> "$GITHUB_OUTPUT"\n',
      ),
    },
    ...otlpMaskSteps(ctx),
    // `pre-steps` run before anything of the workflow's is checked out; an empty line follows, as gh-aw writes.
    ...agent.preSteps ?? [],
    ...(agent.preSteps?.length ? [new BlankLine() as unknown as StepPlan] : []),
    ...checkoutSteps(agent),
    ...mergeAgentFolderSteps(agent),
    ...agenticWorkflowsBuildSteps(agent),
    ...(agent.runtimeAfterCheckout ? [] : agent.runtimeSteps ?? []),
    shStep("Create gh-aw temp directory", "create_gh_aw_tmp_dir"),
    {
      ...shStep("Configure gh CLI for GitHub Enterprise", "configure_gh_for_ghe"),
      env: { GH_TOKEN: plain("${{ github.token }}") },
    },
    ...difcProxyStartSteps(agent),
    // Releases that read the activation artifact early make it available to the workflow's own steps.
    ...(targetOf(ctx).jobs.agent.activationArtifactEarly ? [activationDownloadStep(ctx)] : []),
  ];
}

/** "Download activation artifact": the prompt, run info and staged files the activation job uploaded. */
function activationDownloadStep(ctx: JobCtx): StepPlan {
  return {
    name: "Download activation artifact",
    uses: plain(ctx.refs.download),
    with: { name: artifactName(ctx, "activation", "activation"), path: "/tmp/gh-aw" },
  };
}

/**
 * An imported custom agent brings its repository's `.github` folder: gh-aw merges it into the checkout
 * before anything else reads the workspace.
 */
function mergeAgentFolderSteps(agent: AgentInput): StepPlan[] {
  if (!agent.agentImport) return [];
  return [
    scriptStep(agent.ctx, "Merge remote .github folder", "merge_remote_agent_github_folder", {
      env: {
        GH_AW_AGENT_FILE: dq(agent.agentImport.file),
        GH_AW_AGENT_IMPORT_SPEC: dq(agent.agentImport.spec),
      },
    }),
  ];
}

/** User steps run first, then the frontmatter caches and memories are restored. */
export function userAndMemorySteps(agent: AgentInput, memory: AgentMemory): StepPlan[] {
  const own = stepsThroughDifcProxy(agent, agent.customSteps);
  // Later releases restore the memories first, so the workflow's own steps can read them.
  const after = targetOf(agent.ctx).jobs.agent.userStepsAfterMemory === true;
  // gh-aw leaves an empty line after the block of user steps (none once the DIFC proxy rewrote them); after
  // the memories, also when the runtime setup took the place of every step the workflow declared.
  const declared = own.length > 0 || (after && (agent.frontmatter.steps ?? []).length > 0);
  const custom = declared && !stepsRunThroughDifcProxy(agent)
    ? [...own, new BlankLine() as unknown as StepPlan]
    : own;
  if (agent.runtimeAfterCheckout) {
    // After the user's checkout; at the very end, after the empty line too. No checkout found: no setup.
    const at = insertionAfterCheckout(own);
    if (at !== undefined) {
      custom.splice(at === own.length ? custom.length : at, 0, ...agent.runtimeSteps ?? []);
    }
  }
  return [
    ...(after ? [] : custom),
    ...agent.cacheSteps,
    ...(memory.cacheRefs
      ? cacheMemorySetupSteps(
        memory.caches,
        memory.policy,
        agent.safeOutputs.threatDetection,
        memory.cacheRefs,
        targetOf(agent.ctx).jobs.cacheMemoryRestoreOutputs,
      )
      : []) as StepPlan[],
    ...repoMemoryCloneSteps(memory.repos) as StepPlan[],
    ...(after ? custom : []),
  ];
}

/** "Checkout PR branch": on pull-request events the agent works on the PR's head. */
function checkoutPrStep(agent: AgentInput): StepPlan {
  // Always the GitHub tools' read token: gh-aw v0.87.4 checks out with `safe-outputs.github-token` when set,
  // which hands the agent job a write token it was not given (docs/compiler-differences.md, row 28).
  const token = MCP_TOKEN;
  return scriptStep(agent.ctx, "Checkout PR branch", "checkout_pr_branch", {
    id: "checkout-pr",
    if: lit(
      "github.event.pull_request || github.event.issue.pull_request" +
        (targetOf(agent.ctx).jobs.dispatchedPrCheckout
          ? " || github.event_name == 'workflow_dispatch' && fromJSON(github.event.inputs.aw_context || '{}').item_type == 'pull_request'"
          : "") +
        "\n",
    ),
    env: { GH_TOKEN: plain(token) },
    token,
  });
}

/**
 * "Configure Git credentials" re-points `origin` of the checked-out repository; with `checkout: false` there
 * is no repository and `git remote set-url` would fail the job, so gh-aw leaves both out.
 */
function agentGitCredentials(agent: AgentInput): StepPlan[] {
  return agent.merged.checkoutDisabled ? [] : [gitCredentialsStep(agent.ctx)];
}

/** Git credentials, the PR head, then the engine and its plugins (and the GitHub lockdown check). */
export function engineSetupSteps(agent: AgentInput): StepPlan[] {
  return [
    ...agentGitCredentials(agent),
    // Without read access to contents there is no pull-request head to check out.
    ...(agent.ctx.contentsRead !== false ? [checkoutPrStep(agent)] : []),
    ...engineInstallSteps(agent),
    // Plugins install with the engine's own CLI, so after it and before anything the agent runs.
    ...pluginInstallSteps(agent.ctx.engine, pluginRefs(agent.frontmatter.plugins)),
    ...lockdownSteps(agent),
  ];
}

/** Restores agent configuration from the activation artifact and the base branch. */
function restoreSteps(ctx: JobCtx, dirs: AgentDirs, prCheckout: boolean): StepPlan[] {
  // A release that names the engine's own config folders restores only those.
  const own = targetOf(ctx).engines[ctx.engine.id]?.agentConfig;
  const fromBase: StepPlan[] = [
    {
      name: "Restore agent config folders from base branch",
      if: plain("steps.checkout-pr.outcome == 'success'"),
      env: {
        GH_AW_AGENT_FOLDERS: dq(own?.folders.join(" ") ?? AGENT_FOLDERS),
        GH_AW_AGENT_FILES: dq(own?.files.join(" ") ?? AGENT_FILES),
      },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/restore_base_github_folders.sh"'),
    },
  ];
  return [
    ...(prCheckout ? fromBase : []),
    {
      name: "Restore inline sub-agents from activation artifact",
      env: { GH_AW_SUB_AGENT_DIR: dq(dirs.agents), GH_AW_SUB_AGENT_EXT: dq(dirs.ext) },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/restore_inline_sub_agents.sh"'),
    },
    {
      name: "Restore inline skills from activation artifact",
      env: { GH_AW_SKILL_DIR: dq(dirs.skills) },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/restore_inline_skills.sh"'),
    },
  ];
}

/** What the agent reads: the activation artifact, comment memory, sub-agents and skills, container images. */
export function agentConfigSteps(agent: AgentInput): StepPlan[] {
  const { ctx } = agent;
  const skills = (Array.isArray(agent.frontmatter.skills) ? agent.frontmatter.skills : [])
    .map((s) => parseSkill(String(s)))
    .filter((s): s is SkillRef => typeof s !== "string");
  const pinned = pinnedImagesStep(ctx.firewall);
  return [
    ...(targetOf(ctx).jobs.agent.activationArtifactEarly ? [] : [activationDownloadStep(ctx)]),
    ...commentMemorySteps(agent),
    ...restoreSteps(ctx, ctx.engine.agentDirs ?? GITHUB_AGENT_DIRS, ctx.contentsRead !== false),
    ...skillInstallSteps(skills, (ctx.engine.agentDirs ?? GITHUB_AGENT_DIRS).skills),
    // The workflow's own pre-agent steps: after the restores (so restored folders do not overwrite what they
    // install), before the MCP setup (so they can prepare what its servers need); an empty line follows.
    ...agent.preAgentSteps ?? [],
    ...(agent.preAgentSteps?.length ? [new BlankLine() as unknown as StepPlan] : []),
    shStep("Download container images", "download_docker_images", agent.containers.join(" ")),
    ...(pinned ? [{ name: pinned.name, run: lit(pinned.run) }] : []),
  ];
}

/** The tool servers the agent talks to (agentic-workflows, safe outputs, MCP gateway), then a clean workspace. */
export function toolServerSteps(agent: AgentInput): StepPlan[] {
  return [
    ...agenticWorkflowsInstallSteps(agent),
    ...safeOutputsServerSteps(agent),
    ...mcpGatewaySteps(agent),
    shStep("Clean credentials", "clean_git_credentials", "", { "continue-on-error": true }),
    shStep("Audit pre-agent workspace", "audit_pre_agent_workspace", "", {
      id: "pre_agent_audit",
      "continue-on-error": true,
    }),
  ];
}

const isCopyStep = (step: StepPlan) => step.name !== undefined && String(step.name).startsWith("Copy");

/** The engine run (the CLI proxy stopped right after "Execute …"), then its logs copied and the gateway stopped. */
export function engineRunSteps(agent: AgentInput): StepPlan[] {
  const proxyStart = cliProxyStartSteps(agent);
  const exec = engineExecuteSteps(agent);
  const ran = exec.findIndex((s) => String(s.name ?? "").startsWith("Execute ")) + 1;
  return [
    ...proxyStart,
    ...runtimeRefreshSteps(agent),
    ...exec.slice(0, ran),
    ...cliProxyStopSteps(agent),
    ...exec.slice(ran),
    ...agentGitCredentials(agent),
    ...engineLogSteps(agent).filter(isCopyStep),
    ...enginePreBundleSteps(agent),
    ...mcpGatewayStopSteps(agent),
  ];
}

/** "Redact secrets in logs": every secret the job can see is scrubbed from the files it uploads. */
export function redactStep(agent: AgentInput, secretNames: string[]): StepPlan {
  const env: Record<string, YValue> = { GH_AW_SECRET_NAMES: plain(`'${secretNames.join(",")}'`) };
  for (const s of secretNames) env[`SECRET_${s}`] = plain(`\${{ secrets.${s} }}`);
  const step = scriptStep(agent.ctx, "Redact secrets in logs", "redact_secrets", { if: ALWAYS });
  return { ...step, env };
}

/** Steps after the run that summarise what happened (firewall, tokens, AWF reflection, observability). */
function summarySteps(agent: AgentInput): StepPlan[] {
  const { ctx } = agent;
  const awfArgs = targetOf(ctx).jobs.agent.awfScriptArgs;
  return [
    {
      name: "Print firewall logs",
      if: ALWAYS,
      "continue-on-error": true,
      env: { AWF_LOGS_DIR: "/tmp/gh-aw/sandbox/firewall/logs" },
      // A release with the summary script (rootless AWF) runs it; before it, an inline summary.
      run: awfArgs ? plain(`bash "\${RUNNER_TEMP}/gh-aw/actions/print_firewall_logs.sh" ${awfArgs}`) : lit(
        "# Fix permissions on firewall logs/audit dirs so they can be uploaded as artifacts\n" +
          "# AWF runs with sudo, creating files owned by root\n" +
          "sudo chmod -R a+rX /tmp/gh-aw/sandbox/firewall 2>/dev/null || true\n" +
          "# Only run awf logs summary if awf command exists (it may not be installed if workflow failed before install step)\n" +
          "if command -v awf &> /dev/null; then\n" +
          '  awf logs summary | tee -a "$GITHUB_STEP_SUMMARY"\n' +
          "else\n" +
          "  echo 'AWF binary not installed, skipping firewall log summary'\n" +
          "fi\n",
      ),
    },
    scriptStep(ctx, "Parse token usage for step summary", "parse_token_usage", {
      if: ALWAYS,
      continueOnError: true,
    }),
    scriptStep(ctx, "Print AWF reflect summary", "awf_reflect_summary", {
      if: ALWAYS,
      continueOnError: true,
    }),
    ...(ctx.otlp
      ? [scriptStep(ctx, "Generate observability summary", "generate_observability_summary", {
        if: ALWAYS,
        call: "await main(core);",
      })]
      : []),
    {
      name: "Write agent output placeholder if missing",
      if: ALWAYS,
      run: lit(
        "if [ ! -f /tmp/gh-aw/agent_output.json ]; then\n" +
          "  echo '{\"items\":[]}' > /tmp/gh-aw/agent_output.json\nfi\n",
      ),
    },
  ];
}

/**
 * The small `agent-output-fallback` artifact (the agent output alone), which the jobs after the agent read
 * when the larger `agent` artifact failed to upload; with gh-aw's two comment lines before it.
 */
function agentOutputFallbackUpload(ctx: JobCtx): StepPlan[] {
  return [
    new Comment("Small dedicated copy of the agent output so safe-output processing") as unknown as StepPlan,
    new Comment("survives a failed or timed-out upload of the larger agent artifact") as unknown as StepPlan,
    {
      name: "Upload agent output fallback artifact",
      if: ALWAYS,
      "continue-on-error": true,
      uses: plain(ctx.refs.upload),
      with: {
        name: artifactName(ctx, "agent-output-fallback", "activation"),
        path: lit("/tmp/gh-aw/agent_output.json\n/tmp/gh-aw/safeoutputs.jsonl\n"),
        "if-no-files-found": "ignore",
      },
    },
  ];
}

/** Paths uploaded as the `agent` artifact (missing ones are ignored), in gh-aw's order. */
function agentArtifactPaths(agent: AgentInput, guarded: boolean): string[] {
  const engine = agent.ctx.engine;
  // Patches and bundles go to threat detection, so they are uploaded whenever detection is configured (gh-aw
  // keeps them with `engine: false` too).
  // Later releases keep them whenever a safe output pushes code (the safe-outputs job applies them).
  const patch = agent.safeOutputs.threatDetectionConfigured ||
    (targetOf(agent.ctx).jobs.agent.patchesWithCodePush === true &&
      codePushTypes(agent.safeOutputs).length > 0);
  return [
    "/tmp/gh-aw/aw-prompts/prompt.txt",
    ...(engine.logPath ? [engine.logPath] : []),
    ...(engine.redactsUrls ? ["/tmp/gh-aw/redacted-urls.log"] : []),
    "/tmp/gh-aw/mcp-logs/",
    ...(guarded ? ["/tmp/gh-aw/proxy-logs/", "!/tmp/gh-aw/proxy-logs/proxy-tls/"] : []),
    ...(agent.mcpScripts && Object.keys(agent.mcpScripts).length > 0 ? ["/tmp/gh-aw/mcp-scripts/logs/"] : []),
    "/tmp/gh-aw/agent_usage.json",
    "/tmp/gh-aw/agent-stdio.log",
    "/tmp/gh-aw/pre-agent-audit.txt",
    "/tmp/gh-aw/agent/",
    "/tmp/gh-aw/github_rate_limits.jsonl",
    ...(agent.ctx.otlp ? ["/tmp/gh-aw/otel.jsonl", "/tmp/gh-aw/otlp-export-errors.jsonl"] : []),
    "/tmp/gh-aw/safeoutputs.jsonl",
    "/tmp/gh-aw/agent_output.json",
    ...safeOutputsArtifactPaths(agent),
    ...(patch ? ["/tmp/gh-aw/aw-*.patch", "/tmp/gh-aw/aw-*.bundle"] : []),
    "/tmp/gh-aw/awf-config.json",
    "/tmp/gh-aw/sandbox/firewall/logs/",
    "/tmp/gh-aw/sandbox/firewall/audit/",
    "/tmp/gh-aw/sandbox/firewall/awf-reflect.json",
  ];
}

/**
 * After the run: the step summary, safe outputs collected, logs parsed and summarised, memories saved and
 * the artifacts uploaded.
 */
export function afterRunSteps(agent: AgentInput, memory: AgentMemory): StepPlan[] {
  const { ctx } = agent;
  return [
    shStep("Append agent step summary", "append_agent_step_summary", "", { if: ALWAYS }),
    ...safeOutputsIngestSteps(agent),
    ...engineLogSteps(agent).filter((step) => !isCopyStep(step)),
    ...mcpGatewayLogSteps(agent),
    ...summarySteps(agent),
    // The workflow's own `post-steps`, then an empty line as after its `steps:`.
    ...(agent.postSteps?.length ? [...agent.postSteps, new BlankLine() as unknown as StepPlan] : []),
    ...repoMemoryUploadSteps(memory.repos, ctx.refs.upload) as StepPlan[],
    ...(memory.cacheRefs
      ? cacheMemoryPostSteps(memory.caches, agent.safeOutputs.threatDetection, memory.cacheRefs)
      : []),
    ...safeOutputsUploadSteps(agent),
    // Not when only the automatic create-issue stands in for undeclared safe outputs.
    ...(targetOf(ctx).jobs.agentOutputFallback && !agent.safeOutputs.autoCreateIssue
      ? agentOutputFallbackUpload(ctx)
      : []),
    {
      name: "Upload agent artifacts",
      if: ALWAYS,
      "continue-on-error": true,
      uses: plain(ctx.refs.upload),
      with: {
        name: artifactName(ctx, "agent", "activation"),
        path: lit(agentArtifactPaths(agent, memory.policy.minIntegrity !== undefined).join("\n") + "\n"),
        "if-no-files-found": "ignore",
      },
    },
    // A checkout of another repository at the workspace root removed gh-aw's actions folder (dev mode).
    ...(agent.merged.checkout.some(isExternalRootCheckout) ? restoreActionsFolderSteps(ctx) : []),
  ];
}
