/**
 * The threat-detection job for the copilot engine, laid out exactly as gh-aw v0.76 emits it: the agent's
 * output and patch are re-read by the same engine inside the firewall (threat-detection allowlist, no MCP
 * servers) and the verdict gates the `safe_outputs` job.
 */
import { firewallImage, pinnedImagesStep } from "../../source/sandbox.ts";
import type { JobPlan, StepPlan } from "../types.ts";
import {
  agentOutputSteps,
  artifactName,
  type JobCtx,
  scriptStep,
  setupSteps,
  shStep,
  TRACE_OUTPUTS,
} from "../steps.ts";
import { VERSIONS } from "../../data/versions.ts";
import { Comment, dq, folded, lit, plain, sq } from "../../yaml/writer.ts";
import { ENGINES } from "../engines.ts";
import {
  CLAUDE_TOOLS,
  CODEX_HOME,
  codexDetectionGateway,
  type DetectionInput,
  detectionRun,
  GEMINI_DETECTION_CONFIG,
} from "./detection_engines.ts";
import { execEnv, federatedEnv } from "./detection_env.ts";
import { providerCliConfigScript, settingsMergeScript } from "../agent/engine_config_files.ts";

const GUARD = plain("always() && steps.detection_guard.outputs.run_detection == 'true'");

const PREPARE = `mkdir -p /tmp/gh-aw/threat-detection/aw-prompts
cp /tmp/gh-aw/aw-prompts/prompt.txt /tmp/gh-aw/threat-detection/aw-prompts/prompt.txt 2>/dev/null || true
cp /tmp/gh-aw/agent_output.json /tmp/gh-aw/threat-detection/agent_output.json 2>/dev/null || true
for f in /tmp/gh-aw/aw-*.patch; do
  [ -f "$f" ] && cp "$f" /tmp/gh-aw/threat-detection/ 2>/dev/null || true
done
for f in /tmp/gh-aw/aw-*.bundle; do
  [ -f "$f" ] && cp "$f" /tmp/gh-aw/threat-detection/ 2>/dev/null || true
done
echo "Prepared threat detection files:"
ls -la /tmp/gh-aw/threat-detection/ 2>/dev/null || true
`;

const GUARD_SCRIPT = `if [[ -n "$OUTPUT_TYPES" || "$HAS_PATCH" == "true" ]]; then
  echo "run_detection=true" >> "$GITHUB_OUTPUT"
  echo "Detection will run: output_types=$OUTPUT_TYPES, has_patch=$HAS_PATCH"
else
  echo "run_detection=false" >> "$GITHUB_OUTPUT"
  echo "Detection skipped: no agent outputs or patches to analyze"
fi
`;

const CONCLUDE = `try {
  const { setupGlobals } = require('\${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');
  setupGlobals(core, github, context, exec, io, getOctokit);
  const { main } = require('\${{ runner.temp }}/gh-aw/actions/parse_threat_detection_results.cjs');
  await main();
} catch (loadErr) {
  const continueOnError = process.env.GH_AW_DETECTION_CONTINUE_ON_ERROR !== 'false';
  const detectionExecutionFailed = process.env.DETECTION_AGENTIC_EXECUTION_OUTCOME === 'failure';
  const msg = 'ERR_SYSTEM: \\u274C Unexpected error loading threat detection module: ' + (loadErr && loadErr.message ? loadErr.message : String(loadErr));
  core.error(msg);
  core.setOutput('reason', 'parse_error');
  if (continueOnError && !detectionExecutionFailed) {
    core.warning('\\u26A0\\uFE0F ' + msg);
    core.setOutput('conclusion', 'warning');
    core.setOutput('success', 'false');
  } else {
    core.setOutput('conclusion', 'failure');
    core.setOutput('success', 'false');
    core.setFailed(msg);
  }
}
`;

/** The threat-detection job: every built-in engine reviews the agent's output with its own CLI. */
export function detectionJob(detectionInput: DetectionInput): JobPlan {
  const { ctx } = detectionInput;
  // Crush picks its credentials from the `provider/` prefix of its model (copilot without one).
  const crushModel = detectionInput.model ??
    `\${{ vars.GH_AW_MODEL_DETECTION_${detectionInput.engine.toUpperCase()} || '' }}`;
  const crushProvider =
    ["crush", "opencode", "pi"].includes(detectionInput.engine) && crushModel.includes("/")
      ? crushModel.split("/")[0]
      : "copilot";
  const steps: (StepPlan | Comment)[] = [
    ...prepareSteps(detectionInput),
    ...installSteps(detectionInput),
    execStep(detectionInput, crushModel, crushProvider),
    ...concludeSteps(ctx),
  ];
  void TRACE_OUTPUTS;
  return {
    needs: ["activation", "agent"],
    if: folded(
      "always() && needs.agent.result != 'skipped' && (needs.agent.outputs.output_types != '' || needs.agent.outputs.has_patch == 'true')\n",
    ),
    "runs-on": "ubuntu-latest",
    permissions: ctx.grantsCopilotRequests
      ? { contents: "read", "copilot-requests": "write" }
      : detectionInput.auth
      ? { contents: "read", "id-token": "write" }
      : { contents: "read" },
    outputs: {
      detection_conclusion: plain("${{ steps.detection_conclusion.outputs.conclusion }}"),
      detection_reason: plain("${{ steps.detection_conclusion.outputs.reason }}"),
      detection_success: plain("${{ steps.detection_conclusion.outputs.success }}"),
    },
    steps: steps as StepPlan[],
  };
}

/** Setup, the agent's output, patch context, image pulls and the detection guard and files. */
function prepareSteps(detectionInput: DetectionInput): (StepPlan | Comment)[] {
  const { ctx } = detectionInput;
  // Detection needs only the agent, so it reads the artifact prefix from the agent's outputs.
  const steps: (StepPlan | Comment)[] = [...setupSteps(ctx, true), ...agentOutputSteps(ctx, "agent")];
  if (ctx.experiments) {
    steps.push({
      name: "Download experiment artifact",
      "continue-on-error": true,
      uses: plain(ctx.refs.download),
      with: {
        name: `${ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase()}-experiment`,
        path: "/tmp/gh-aw/experiments/",
      },
    });
  }
  steps.push({
    name: "Checkout repository for patch context",
    if: plain("needs.agent.outputs.has_patch == 'true'"),
    uses: plain(ctx.refs.checkout),
    with: { "persist-credentials": false },
  });
  steps.push(new Comment("--- Threat Detection ---"));
  steps.push({
    name: "Clean stale firewall files from agent artifact",
    run: lit("rm -rf /tmp/gh-aw/sandbox/firewall/logs\nrm -rf /tmp/gh-aw/sandbox/firewall/audit\n"),
  });
  if (detectionInput.engine !== "codex") steps.push(...imageSteps(ctx, []));
  steps.push({
    name: "Check if detection needed",
    id: "detection_guard",
    if: plain("always()"),
    env: {
      OUTPUT_TYPES: plain("${{ needs.agent.outputs.output_types }}"),
      HAS_PATCH: plain("${{ needs.agent.outputs.has_patch }}"),
    },
    run: lit(GUARD_SCRIPT),
  });
  steps.push({
    name: "Clear MCP Config for detection",
    if: GUARD,
    run: lit(
      'rm -f "${RUNNER_TEMP}/gh-aw/mcp-config/mcp-servers.json"\nrm -f /home/runner/.copilot/mcp-config.json\nrm -f "$GITHUB_WORKSPACE/.gemini/settings.json"\n',
    ),
  });
  steps.push({ name: "Prepare threat detection files", if: GUARD, run: lit(PREPARE) });
  steps.push(scriptStep(ctx, "Setup threat detection", "setup_threat_detection", {
    if: GUARD,
    env: {
      WORKFLOW_NAME: dq(ctx.name),
      WORKFLOW_DESCRIPTION: dq(detectionInput.description),
      HAS_PATCH: plain("${{ needs.agent.outputs.has_patch }}"),
    },
  }));
  steps.push({
    name: "Ensure threat-detection directory and log",
    if: GUARD,
    run: lit("mkdir -p /tmp/gh-aw/threat-detection\ntouch /tmp/gh-aw/threat-detection/detection.log\n"),
  });
  return steps;
}

/** Node.js, the AWF binary and the engine's CLI (with its config). */
function installSteps(detectionInput: DetectionInput): StepPlan[] {
  const { ctx } = detectionInput;
  const steps: StepPlan[] = [];
  // Antigravity's CLI is a native binary: no Node.js set-up.
  if (detectionInput.engine !== "antigravity") {
    steps.push({
      name: "Setup Node.js",
      uses: plain(detectionInput.setupNodeRef),
      with: { "node-version": sq("24"), "package-manager-cache": false },
    });
  }
  const awfInstall = shStep(
    "Install AWF binary",
    "install_awf_binary",
    ctx.firewall?.version ?? VERSIONS.awf,
  );
  if (detectionInput.engine === "antigravity") {
    steps.push({
      name: "Install Antigravity CLI",
      run: plain(detectionInput.install),
      env: { ...ENGINES.antigravity.agentInstall.env },
    });
    steps.push(awfInstall);
    steps.push(settingsStep("Antigravity", ".antigravity"));
  } else if (detectionInput.engine === "copilot") {
    steps.push({
      name: "Install GitHub Copilot CLI",
      run: plain(detectionInput.install),
      env: { GH_HOST: "github.com" },
    });
    steps.push(awfInstall);
  } else if (detectionInput.engine === "codex") {
    steps.push({ name: "Install Codex CLI", run: plain(detectionInput.install) });
    steps.push(awfInstall);
    steps.push(...imageSteps(ctx, [`ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}`]));
    steps.push({
      name: "Start MCP Gateway",
      id: "start-mcp-gateway",
      env: { CODEX_HOME: CODEX_HOME },
      run: lit(codexDetectionGateway(detectionInput.frontmatterHash)),
    });
  } else if (detectionInput.engine === "crush" || detectionInput.engine === "opencode") {
    const cli = detectionInput.engine === "crush" ? "Crush" : "OpenCode";
    steps.push(awfInstall);
    steps.push({
      name: `Install ${cli} CLI`,
      run: plain(detectionInput.install),
      env: { NPM_CONFIG_MIN_RELEASE_AGE: sq("3") },
    });
    if (detectionInput.engine === "crush") {
      steps.push({ name: "Verify Crush CLI installation", run: plain("crush --version") });
    }
    steps.push({
      name: `Write ${cli} Config`,
      if: GUARD,
      "continue-on-error": true,
      run: lit(providerCliConfigScript(detectionInput.engine)),
    });
  } else if (detectionInput.engine === "pi") {
    steps.push(awfInstall);
    steps.push({ name: "Install Pi CLI", run: plain(detectionInput.install) });
  } else if (detectionInput.engine === "gemini") {
    steps.push(awfInstall);
    steps.push({ name: "Install Gemini CLI", run: plain(detectionInput.install) });
    steps.push(settingsStep("Gemini", ".gemini"));
  } else {
    steps.push(awfInstall);
    steps.push({ name: "Install Claude Code CLI", run: plain(detectionInput.install) });
  }
  return steps;
}

/** Pulls the firewall images (codex pulls them, with the MCP gateway's, after installing the firewall). */
function imageSteps(ctx: JobCtx, extra: string[]): StepPlan[] {
  const images = [
    ...(["agent", "api-proxy", "squid"] as const).map((r) => firewallImage(ctx.firewall, r)),
    ...extra,
  ];
  const pinned = pinnedImagesStep(ctx.firewall);
  return [
    shStep("Download container images", "download_docker_images", images.join(" ")),
    ...(pinned ? [{ name: pinned.name, run: lit(pinned.run) }] : []),
  ];
}

/** Gemini's and Antigravity's read-only detection settings, merged into their settings file. */
function settingsStep(cli: string, dir: string): StepPlan {
  const envName = `GH_AW_${cli.toUpperCase()}_BASE_CONFIG`;
  return {
    name: `Write ${cli} Config`,
    if: GUARD,
    "continue-on-error": true,
    run: lit(settingsMergeScript(dir, envName)),
    env: { [envName]: sq(GEMINI_DETECTION_CONFIG) },
  };
}

/** The git identity the detection CLIs commit as. */
/** The step that runs the engine's CLI on the agent's output. */
function execStep(detectionInput: DetectionInput, crushModel: string, crushProvider: string): StepPlan {
  const { ctx } = detectionInput;
  const exec: StepPlan = {
    name: {
      claude: "Execute Claude Code CLI",
      codex: "Execute Codex CLI",
      copilot: "Execute GitHub Copilot CLI",
      gemini: "Execute Gemini CLI",
      crush: "Execute Crush CLI",
      opencode: "Execute OpenCode CLI",
      pi: "Execute Pi CLI",
      antigravity: "Execute Antigravity CLI",
    }[
      detectionInput.engine
    ],
    if: GUARD,
    "continue-on-error": true,
    id: "detection_agentic_execution",
  };
  if (detectionInput.engine === "claude") {
    exec["#0"] = new Comment("Allowed tools (sorted):");
    CLAUDE_TOOLS.forEach((t, i) => (exec[`#${i + 1}`] = new Comment(`- ${t}`)));
  } else if (detectionInput.engine === "copilot") {
    exec["#"] = new Comment("Copilot CLI tool arguments (sorted):");
  }
  if (detectionInput.engine === "copilot" || detectionInput.engine === "claude") exec["timeout-minutes"] = 20;
  const auth = detectionInput.auth;
  exec.run = lit(
    detectionRun(
      detectionInput.engine,
      ctx.firewall,
      crushModel,
      ctx.maxEffectiveTokens,
      auth !== undefined,
      detectionInput.byokEnv !== undefined,
    ),
  );
  exec.env = execEnv(detectionInput, crushModel, crushProvider);
  if (auth) exec.env = federatedEnv(exec.env, auth);
  return exec;
}

/** The environment of the detection CLI, per engine. */
function concludeSteps(ctx: JobCtx): StepPlan[] {
  return [
    {
      name: "Upload threat detection log",
      if: GUARD,
      uses: plain(ctx.refs.upload),
      with: {
        name: artifactName(ctx, "detection", "agent"),
        path: "/tmp/gh-aw/threat-detection/detection.log",
        "if-no-files-found": "ignore",
      },
    },
    {
      name: "Parse and conclude threat detection",
      id: "detection_conclusion",
      if: plain("always()"),
      "continue-on-error": true,
      uses: plain(ctx.refs.githubScript),
      env: {
        RUN_DETECTION: plain("${{ steps.detection_guard.outputs.run_detection }}"),
        DETECTION_AGENTIC_EXECUTION_OUTCOME: plain("${{ steps.detection_agentic_execution.outcome }}"),
        GH_AW_DETECTION_CONTINUE_ON_ERROR: dq("true"),
      },
      with: { script: lit(CONCLUDE) },
    },
  ];
}
