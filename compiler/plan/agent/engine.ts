/**
 * The engine steps of the agent job, as gh-aw v0.76 writes them: install the engine CLI (and Node.js when
 * the CLI comes from npm) and the AWF binary, run the engine inside the AWF firewall, detect agent errors,
 * copy Copilot's session state and parse the engine's log for the step summary.
 */
import type { AgentInput } from "./input.ts";
import type { StepPlan } from "../types.ts";
import { scriptStep, shStep } from "../steps.ts";
import { VERSIONS } from "../../data/versions.ts";
import { plain, sq } from "../../yaml/writer.ts";
import { claudeExecute, codexExecute, copilotExecute } from "./engine_exec.ts";
import { otherExecute } from "./engine_experimental.ts";
import { geminiSettingsStep, geminiToolsCore, providerCliConfigStep } from "./engine_config_files.ts";
import { agentTools, obj } from "./engine_env.ts";
import { cliProxyEnabled, mountedCliServers, playwrightCliMode } from "./engine_tools.ts";

/** The `Setup Node.js` step engines installed with npm need. */
function setupNodeStep(agentInput: AgentInput): StepPlan {
  return {
    name: "Setup Node.js",
    uses: plain(agentInput.setupNodeRef ?? "actions/setup-node@v6.4.0"),
    with: { "node-version": sq("24"), "package-manager-cache": false },
  };
}

/** Steps installing playwright-cli when `tools.playwright.mode: cli`. */
function playwrightCliSteps(agentInput: AgentInput): StepPlan[] {
  const p = obj(agentInput.merged.tools.playwright);
  if (p.mode !== "cli") return [];
  return [
    {
      name: "Install Playwright CLI",
      run: plain("npm install -g @playwright/cli@0.1.13"),
      env: { NPM_CONFIG_MIN_RELEASE_AGE: sq("3") },
      "timeout-minutes": 10,
    },
    {
      name: "Install Playwright CLI skills",
      run: plain("playwright-cli install --skills"),
      env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: sq("1") },
      "timeout-minutes": 10,
    },
  ];
}

/** The steps that install the engine CLI and the AWF binary. */
export function engineInstallSteps(agentInput: AgentInput): StepPlan[] {
  const info = agentInput.engine.info;
  const install: StepPlan = { name: `Install ${info.cliName}`, run: plain(info.agentInstall.run) };
  if (info.agentInstall.env) {
    install.env = Object.fromEntries(
      Object.entries(info.agentInstall.env).map(([k, v]) => [k, /^\d+$/.test(v) ? sq(v) : v]),
    );
  }
  const awf = shStep(
    "Install AWF binary",
    "install_awf_binary",
    agentInput.ctx.firewall?.version ?? VERSIONS.awf,
  );
  const steps: StepPlan[] = info.needsNode ? [setupNodeStep(agentInput)] : [];
  if (typeof obj(agentInput.frontmatter.engine).command === "string") steps.push(awf); // custom command: no CLI install
  else steps.push(...(info.installAfterAwf ? [awf, install] : [install, awf]));
  if (info.id === "crush") {
    steps.push({ name: "Verify Crush CLI installation", run: plain("crush --version") });
  }
  steps.push(...playwrightCliSteps(agentInput));
  return steps;
}

/** The step running the engine inside the AWF firewall, then "Detect agent errors". */
export function engineExecuteSteps(agentInput: AgentInput): StepPlan[] {
  if (agentInput.engine.info.id !== "copilot") return legacyExecute(agentInput);
  return [copilotExecute(agentInput), {
    name: "Detect agent errors",
    if: plain("always()"),
    id: "detect-agent-errors",
    "continue-on-error": true,
    run: plain('node "${RUNNER_TEMP}/gh-aw/actions/detect_agent_errors.cjs"'),
  }];
}

function legacyExecute(agentInput: AgentInput): StepPlan[] {
  if (agentInput.engine.info.id === "claude") return [claudeExecute(agentInput)];
  if (agentInput.engine.info.id === "codex") return [codexExecute(agentInput)];
  const id = agentInput.engine.info.id;
  // Crush and OpenCode would stop on permission prompts: their config allowing every tool is written first.
  if (id === "crush" || id === "opencode") {
    return [providerCliConfigStep(id, agentInput.engine.info.displayName), otherExecute(agentInput)];
  }
  // Gemini and Antigravity get their settings (readable /tmp, allowed built-in tools) merged in first.
  if (id === "gemini" || id === "antigravity") {
    const tools = agentTools(agentInput);
    const extraBash = [
      ...mountedCliServers(agentInput).map((s) => `${s}:*`),
      ...(playwrightCliMode(tools) ? ["playwright-cli:*"] : []),
      ...(cliProxyEnabled(agentInput) ? ["gh:*"] : []),
    ];
    return [geminiSettingsStep(id, geminiToolsCore(tools, extraBash)), otherExecute(agentInput)];
  }
  return [otherExecute(agentInput)];
}

/**
 * Steps before the agent artifact is bundled: Gemini and Antigravity leave their error reports in /tmp/, moved
 * under /tmp/gh-aw/ so the upload keeps its common root.
 */
export function enginePreBundleSteps(agentInput: AgentInput): StepPlan[] {
  const id = agentInput.engine.info.id;
  if (id !== "gemini" && id !== "antigravity") return [];
  return [{
    name: `Move ${id === "gemini" ? "Gemini" : "Antigravity"} error files to artifact directory`,
    if: plain("always()"),
    run: plain(`mv /tmp/${id}-client-error-*.json /tmp/gh-aw/ 2>/dev/null || true`),
  }];
}

/** Agent-job outputs read from the "Detect agent errors" step. */
export const DETECT_ERROR_OUTPUTS = [
  "agentic_engine_timeout",
  "inference_access_error",
  "mcp_policy_error",
  "model_not_supported_error",
];

/** Whether the engine's run is followed by "Detect agent errors" (whose outputs the agent job exposes). */
export function engineDetectsErrors(agentInput: AgentInput): boolean {
  return agentInput.engine.info.id === "copilot";
}

/** Engine-specific steps after the run (session state, log parsing for the step summary). */
export function engineLogSteps(agentInput: AgentInput): StepPlan[] {
  const info = agentInput.engine.info;
  const steps: StepPlan[] = [];
  if (info.id === "copilot") {
    steps.push({
      name: "Copy Copilot session state files to logs",
      if: plain("always()"),
      "continue-on-error": true,
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/copy_copilot_session_state.sh"'),
    });
  }
  if (info.logParser) {
    steps.push(scriptStep(agentInput.ctx, "Parse agent logs for step summary", info.logParser.module, {
      if: plain("always()"),
      env: { GH_AW_AGENT_OUTPUT: info.logParser.output },
    }));
  }
  return steps;
}
