/**
 * The `agent` job (engine inside the AWF firewall, MCP gateway, safe-outputs MCP server) and `detection`.
 * This module owns the job's outline — the order of its steps, its env and outputs — and the generic steps;
 * the safe-outputs, MCP-gateway and engine steps come from agent_safe_outputs.ts, agent_mcp.ts and
 * agent_engine.ts.
 */
import { parseSkill, skillInstallSteps, type SkillRef } from "../agent/skills.ts";
import { pluginInstallSteps, pluginRefs } from "../agent/plugins.ts";
import { pinnedImagesStep } from "../../source/sandbox.ts";
import type { JobPlan, StepPlan } from "../types.ts";
import {
  gitCredentialsStep,
  otlpMaskSteps,
  scriptStep,
  setupSteps,
  shStep,
  TRACE_OUTPUTS,
} from "../steps.ts";
import { BlankLine, dq, lit, plain, Styled, type YValue } from "../../yaml/writer.ts";
import type { AgentInput } from "../agent/input.ts";
import {
  cacheMemoryEntries,
  cacheMemoryPostSteps,
  cacheMemorySetupSteps,
  guardPolicyOf,
} from "../agent/memory.ts";
import { repoMemoryCloneSteps, repoMemoryEntries, repoMemoryUploadSteps } from "../agent/repo_memory.ts";
import {
  assetsEnv,
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
  stepsThroughDifcProxy,
} from "../mcp/steps.ts";
import {
  DETECT_ERROR_OUTPUTS,
  engineDetectsErrors,
  engineExecuteSteps,
  engineInstallSteps,
  engineLogSteps,
} from "../agent/engine.ts";

export type { AgentInput } from "../agent/input.ts";

const ALWAYS = plain("always()");

/** Agent instruction folders and files restored from the base branch after a PR checkout (never the PR's). */
const AGENT_FOLDERS = ".agents .antigravity .claude .codex .crush .gemini .github .opencode .pi";
const AGENT_FILES = ".crush.json AGENTS.md ANTIGRAVITY.md CLAUDE.md GEMINI.md PI.md opencode.jsonc";

/** Where each engine leaves its own logs, uploaded with the `agent` artifact (none for the others). */
const ENGINE_LOG_PATHS: Record<string, string> = {
  copilot: "/tmp/gh-aw/sandbox/agent/logs/",
  codex: "/tmp/gh-aw/mcp-config/logs/",
  gemini: "/tmp/gh-aw/gemini-client-error-*.json",
  antigravity: "/tmp/gh-aw/antigravity-client-error-*.json",
  pi: "/tmp/gh-aw/pi-streaming.jsonl",
};

/** Engines whose output goes through the URL redaction that writes `redacted-urls.log`. */
const URL_REDACTING_ENGINES = new Set(["copilot", "codex", "gemini", "antigravity", "pi"]);

/** Paths uploaded as the `agent` artifact (missing ones are ignored), in gh-aw's order. */
function agentArtifactPaths(a: AgentInput, guarded: boolean): string[] {
  const engine = a.ctx.engineId;
  // Patches and bundles go to threat detection, so they are uploaded whenever detection is configured (gh-aw
  // keeps them with `engine: false` too).
  const patch = a.safeOutputs.threatDetectionConfigured;
  return [
    "/tmp/gh-aw/aw-prompts/prompt.txt",
    ...(ENGINE_LOG_PATHS[engine] ? [ENGINE_LOG_PATHS[engine]] : []),
    ...(URL_REDACTING_ENGINES.has(engine) ? ["/tmp/gh-aw/redacted-urls.log"] : []),
    "/tmp/gh-aw/mcp-logs/",
    ...(guarded ? ["/tmp/gh-aw/proxy-logs/", "!/tmp/gh-aw/proxy-logs/proxy-tls/"] : []),
    ...(a.mcpScripts && Object.keys(a.mcpScripts).length > 0 ? ["/tmp/gh-aw/mcp-scripts/logs/"] : []),
    "/tmp/gh-aw/agent_usage.json",
    "/tmp/gh-aw/agent-stdio.log",
    "/tmp/gh-aw/pre-agent-audit.txt",
    "/tmp/gh-aw/agent/",
    "/tmp/gh-aw/github_rate_limits.jsonl",
    ...(a.ctx.otlp ? ["/tmp/gh-aw/otel.jsonl", "/tmp/gh-aw/otlp-export-errors.jsonl"] : []),
    "/tmp/gh-aw/safeoutputs.jsonl",
    "/tmp/gh-aw/agent_output.json",
    ...safeOutputsArtifactPaths(a),
    ...(patch ? ["/tmp/gh-aw/aw-*.patch", "/tmp/gh-aw/aw-*.bundle"] : []),
    "/tmp/gh-aw/awf-config.json",
    "/tmp/gh-aw/sandbox/firewall/logs/",
    "/tmp/gh-aw/sandbox/firewall/audit/",
    "/tmp/gh-aw/sandbox/firewall/awf-reflect.json",
  ];
}

/** Agent instruction folders per engine (sub-agents, their file extension, skills); others use GitHub's. */
const AGENT_DIRS: Record<string, { agents: string; ext: string; skills: string }> = {
  claude: { agents: ".claude/agents", ext: ".md", skills: ".claude/skills" },
  codex: { agents: ".codex/agents", ext: ".md", skills: ".codex/skills" },
  gemini: { agents: ".gemini/agents", ext: ".md", skills: ".gemini/skills" },
};
const GITHUB_AGENT_DIRS = { agents: ".github/agents", ext: ".agent.md", skills: ".github/skills" };

function checkoutSteps(a: AgentInput): StepPlan[] {
  const { ctx } = a;
  if (a.frontmatter.checkout === false) return [];
  if (a.checkouts.length === 0) {
    return [{
      name: "Checkout repository",
      uses: plain(ctx.refs.checkout),
      with: { "persist-credentials": false },
    }];
  }
  return a.checkouts.map((c) => ({
    name: c.repository ? `Checkout ${String(c.repository)}` : "Checkout repository",
    uses: plain(ctx.refs.checkout),
    with: { "persist-credentials": false, ...c },
  }));
}

const MCP_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** "Checkout PR branch": on pull-request events the agent works on the PR's head. */
function checkoutPrStep(a: AgentInput): StepPlan {
  return scriptStep(a.ctx, "Checkout PR branch", "checkout_pr_branch", {
    id: "checkout-pr",
    if: lit("github.event.pull_request || github.event.issue.pull_request\n"),
    env: { GH_TOKEN: plain(MCP_TOKEN) },
    token: MCP_TOKEN,
  });
}

/** Restores agent configuration from the activation artifact and the base branch. */
function restoreSteps(engineId: string, prCheckout: boolean): StepPlan[] {
  const dirs = AGENT_DIRS[engineId] ?? GITHUB_AGENT_DIRS;
  const fromBase: StepPlan[] = [
    {
      name: "Restore agent config folders from base branch",
      if: plain("steps.checkout-pr.outcome == 'success'"),
      env: { GH_AW_AGENT_FOLDERS: dq(AGENT_FOLDERS), GH_AW_AGENT_FILES: dq(AGENT_FILES) },
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

/** "Redact secrets in logs": every secret the job can see is scrubbed from the files it uploads. */
function redactStep(a: AgentInput, secretNames: string[]): StepPlan {
  const env: Record<string, YValue> = { GH_AW_SECRET_NAMES: plain(`'${secretNames.join(",")}'`) };
  for (const s of secretNames) env[`SECRET_${s}`] = plain(`\${{ secrets.${s} }}`);
  const step = scriptStep(a.ctx, "Redact secrets in logs", "redact_secrets", { if: ALWAYS });
  return { ...step, env };
}

/** Steps after the run that summarise what happened (firewall, tokens, AWF reflection, observability). */
function summarySteps(a: AgentInput): StepPlan[] {
  const { ctx } = a;
  return [
    {
      name: "Print firewall logs",
      if: ALWAYS,
      "continue-on-error": true,
      env: { AWF_LOGS_DIR: "/tmp/gh-aw/sandbox/firewall/logs" },
      run: lit(
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

/** Builds the agent job. */
export function agentJob(a: AgentInput): JobPlan {
  const { ctx } = a;
  const steps: StepPlan[] = [...setupSteps(ctx, true)];
  steps.push({
    name: "Set runtime paths",
    id: "set-runtime-paths",
    run: lit(
      '{\n  echo "GH_AW_SAFE_OUTPUTS=${RUNNER_TEMP}/gh-aw/safeoutputs/outputs.jsonl"\n' +
        '  echo "GH_AW_SAFE_OUTPUTS_CONFIG_PATH=${RUNNER_TEMP}/gh-aw/safeoutputs/config.json"\n' +
        '  echo "GH_AW_SAFE_OUTPUTS_TOOLS_PATH=${RUNNER_TEMP}/gh-aw/safeoutputs/tools.json"\n} >> "$GITHUB_OUTPUT"\n',
    ),
  });
  steps.push(...otlpMaskSteps(ctx));
  steps.push(...checkoutSteps(a));
  steps.push(...agenticWorkflowsBuildSteps(a));
  steps.push(...a.runtimeSteps ?? []);
  steps.push(shStep("Create gh-aw temp directory", "create_gh_aw_tmp_dir"));
  steps.push({
    ...shStep("Configure gh CLI for GitHub Enterprise", "configure_gh_for_ghe"),
    env: { GH_TOKEN: plain("${{ github.token }}") },
  });
  steps.push(...difcProxyStartSteps(a));
  // User steps run first, then the frontmatter caches and memories are restored.
  steps.push(...stepsThroughDifcProxy(a, a.customSteps));
  // gh-aw leaves an empty line after the block of user steps.
  if (a.customSteps.length > 0) steps.push(new BlankLine() as unknown as StepPlan);
  // The workflow's own `cache-memory` setting wins over an imported one (even `true` over an object).
  const ownTools = (a.frontmatter.tools ?? {}) as Record<string, unknown>;
  const memories = cacheMemoryEntries(
    "cache-memory" in ownTools ? ownTools["cache-memory"] : a.merged.tools["cache-memory"],
  );
  const memoryRefs = a.cacheRefs && {
    ...a.cacheRefs,
    upload: ctx.refs.upload,
    githubScript: ctx.refs.githubScript,
  };
  const policy = guardPolicyOf(a.merged.tools.github);
  steps.push(...a.cacheSteps);
  if (memoryRefs) {
    steps.push(
      ...cacheMemorySetupSteps(memories, policy, a.safeOutputs.threatDetection, memoryRefs) as StepPlan[],
    );
  }
  const repoMemories = repoMemoryEntries(a.merged.tools["repo-memory"], ctx.id);
  steps.push(...repoMemoryCloneSteps(repoMemories) as StepPlan[]);
  steps.push(gitCredentialsStep());
  // Without read access to contents there is no pull-request head to check out.
  if (ctx.contentsRead !== false) steps.push(checkoutPrStep(a));
  steps.push(...engineInstallSteps(a));
  // Plugins install with the engine's own CLI, so after it and before anything the agent runs.
  steps.push(...pluginInstallSteps(a.ctx.engineId, pluginRefs(a.frontmatter.plugins)));
  steps.push(...lockdownSteps(a));
  steps.push({
    name: "Download activation artifact",
    uses: plain(ctx.refs.download),
    with: { name: "activation", path: "/tmp/gh-aw" },
  });
  steps.push(...commentMemorySteps(a));
  steps.push(...restoreSteps(ctx.engineId, ctx.contentsRead !== false));
  const skills = (Array.isArray(a.frontmatter.skills) ? a.frontmatter.skills : []).map((s) =>
    parseSkill(String(s))
  )
    .filter((s): s is SkillRef => typeof s !== "string");
  steps.push(...skillInstallSteps(skills, (AGENT_DIRS[ctx.engineId] ?? GITHUB_AGENT_DIRS).skills));
  steps.push(shStep("Download container images", "download_docker_images", a.containers.join(" ")));
  const pinned = pinnedImagesStep(ctx.firewall);
  if (pinned) steps.push({ name: pinned.name, run: lit(pinned.run) });
  steps.push(...agenticWorkflowsInstallSteps(a));
  steps.push(...safeOutputsServerSteps(a));
  steps.push(...mcpGatewaySteps(a));
  steps.push(shStep("Clean credentials", "clean_git_credentials", "", { "continue-on-error": true }));
  steps.push(shStep("Audit pre-agent workspace", "audit_pre_agent_workspace", "", {
    id: "pre_agent_audit",
    "continue-on-error": true,
  }));
  steps.push(...cliProxyStartSteps(a));
  const exec = engineExecuteSteps(a);
  const ran = exec.findIndex((s) => String(s.name ?? "").startsWith("Execute ")) + 1;
  steps.push(...exec.slice(0, ran), ...cliProxyStopSteps(a), ...exec.slice(ran));
  steps.push(gitCredentialsStep());
  steps.push(...engineLogSteps(a).filter((s) => s.name !== undefined && String(s.name).startsWith("Copy")));
  steps.push(...mcpGatewayStopSteps(a));
  const redactAt = steps.length;
  steps.push(shStep("Append agent step summary", "append_agent_step_summary", "", { if: ALWAYS }));
  steps.push(...safeOutputsIngestSteps(a));
  steps.push(
    ...engineLogSteps(a).filter((s) => !(s.name !== undefined && String(s.name).startsWith("Copy"))),
  );
  steps.push(...mcpGatewayLogSteps(a));
  steps.push(...summarySteps(a));
  steps.push(...repoMemoryUploadSteps(repoMemories, ctx.refs.upload) as StepPlan[]);
  if (memoryRefs) steps.push(...cacheMemoryPostSteps(memories, a.safeOutputs.threatDetection, memoryRefs));
  steps.push(...safeOutputsUploadSteps(a));
  steps.push({
    name: "Upload agent artifacts",
    if: ALWAYS,
    "continue-on-error": true,
    uses: plain(ctx.refs.upload),
    with: {
      name: "agent",
      path: lit(agentArtifactPaths(a, policy.minIntegrity !== undefined).join("\n") + "\n"),
      "if-no-files-found": "ignore",
    },
  });
  const pre = preAgentJobs(a.frontmatter.jobs);
  const job: JobPlan = {
    needs: pre.length ? ["activation", ...pre].sort() : "activation",
    "runs-on": a.runsOn,
    steps,
  };
  // A top-level `if:` that reads a pre-agent job's result can only be evaluated here, after that job.
  const cond = a.frontmatter.if;
  if (typeof cond === "string" && pre.some((j) => cond.includes(`needs.${j}.`))) job.if = plain(cond);
  if (a.environment !== undefined) job.environment = a.environment;
  job.permissions = a.permissions;
  if (a.concurrency) job.concurrency = a.concurrency;
  job.env = {
    DEFAULT_BRANCH: plain("${{ github.event.repository.default_branch }}"),
    ...assetsEnv(a),
    GH_AW_MCP_LOG_DIR: "/tmp/gh-aw/mcp-logs/safeoutputs",
    GH_AW_WORKFLOW_ID_SANITIZED: ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase(),
    ...a.env,
  };
  const detect = (k: string) => plain(`\${{ steps.detect-agent-errors.outputs.${k} || 'false' }}`);
  // Only the Copilot CLI has the "Detect agent errors" step whose findings these outputs carry.
  const copilot = ctx.engineId === "copilot";
  job.outputs = {
    ...(copilot ? { agentic_engine_timeout: detect("agentic_engine_timeout") } : {}),
    checkout_pr_success: plain("${{ steps.checkout-pr.outputs.checkout_pr_success || 'true' }}"),
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
  // Without "Detect agent errors" (non-Copilot engines) its outputs are not exposed.
  if (!engineDetectsErrors(a)) { for (const k of DETECT_ERROR_OUTPUTS) delete job.outputs[k]; }
  // The redaction step scrubs exactly the secrets the rest of the job references.
  steps.splice(redactAt, 0, redactStep(a, [...secretsReferenced(job)].sort()));
  return job;
}

/**
 * The custom jobs the agent waits for, as gh-aw lists them: among the jobs that do not (transitively) depend
 * on the agent, the roots (no custom job before them) and the sinks (no custom job after them).
 */
export function preAgentJobs(raw: unknown): string[] {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return [];
  const jobs = raw as Record<string, unknown>;
  const id = (name: string) => name.replace(/-/g, "_");
  const needsOf = new Map<string, string[]>();
  for (const [name, cfg] of Object.entries(jobs)) {
    const n = cfg && typeof cfg === "object" ? (cfg as Record<string, unknown>).needs : undefined;
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
  const neededByOthers = new Set(pre.flatMap((j) => needsOf.get(j) ?? []));
  const isRoot = (j: string) => !(needsOf.get(j) ?? []).some((n) => needsOf.has(n) && n !== "pre_activation");
  return pre.filter((j) => isRoot(j) || !neededByOthers.has(j)).sort();
}

/** Names of the secrets (`secrets.NAME`) referenced anywhere in a plan value. */
function secretsReferenced(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === "string") {
    for (const m of value.matchAll(/secrets\.([A-Za-z0-9_]+)/g)) found.add(m[1]);
  } else if (value instanceof Styled) {
    secretsReferenced(value.value, found);
  } else if (Array.isArray(value)) {
    for (const v of value) secretsReferenced(v, found);
  } else if (value && typeof value === "object") {
    for (const v of Object.values(value)) secretsReferenced(v, found);
  }
  return found;
}
