/**
 * The engine steps of the agent job, as gh-aw v0.76 writes them: install the engine CLI (and Node.js when
 * the CLI comes from npm) and the AWF binary, run the engine inside the AWF firewall (its module's
 * `execute`), then what the engine leaves behind: session state, error reports and its log parsed for the
 * step summary.
 */
import type { AgentInput } from "./input.ts";
import type { StepPlan } from "../types.ts";
import { scriptStep, shStep, targetOf } from "../steps.ts";
import { VERSIONS } from "../../data/versions.ts";
import { Comment, plain, sq } from "../../yaml/writer.ts";
import { engineOf } from "../engines/registry.ts";
import { mappingOf } from "../../source/values.ts";

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
  const p = mappingOf(agentInput.merged.tools.playwright);
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
  const engine = engineOf(agentInput.engine);
  const install: StepPlan = { name: `Install ${engine.cliName}`, run: plain(engine.agentInstall.run) };
  if (engine.agentInstall.env) {
    install.env = Object.fromEntries(
      Object.entries(engine.agentInstall.env).map(([k, v]) => [k, /^\d+$/.test(v) ? sq(v) : v]),
    );
  }
  const awf = shStep(
    "Install AWF binary",
    "install_awf_binary",
    [agentInput.ctx.firewall?.version ?? VERSIONS.awf, targetOf(agentInput.ctx).jobs.agent.awfScriptArgs]
      .filter(Boolean).join(" "),
  );
  const steps: StepPlan[] = engine.needsNode ? [setupNodeStep(agentInput)] : [];
  // A `sandbox.agent.runtime` the release installs (gVisor's runsc) comes right before the firewall.
  const runtime = runtimeInstallSteps(agentInput);
  if (typeof mappingOf(agentInput.frontmatter.engine).command === "string") steps.push(...runtime, awf); // custom command: no CLI install
  else steps.push(...(engine.installAfterAwf ? [...runtime, awf, install] : [install, ...runtime, awf]));
  steps.push(...engine.afterInstall ?? []);
  steps.push(...playwrightCliSteps(agentInput));
  return steps;
}

/** The Docker Hub login the docker-sbx runtime pulls with. */
const DOCKER_HUB_ENV = {
  DOCKER_PAT_VAL: plain("${{ secrets.DOCKER_PAT }}"),
  DOCKER_USERNAME_VAL: plain("${{ secrets.DOCKER_USERNAME }}"),
};

/** The agent's `sandbox.agent.runtime` when the release runs the firewall rootless (it supports runtimes). */
function agentRuntime(agentInput: AgentInput): string | undefined {
  return targetOf(agentInput.ctx).jobs.agent.awf ? agentInput.ctx.sandboxInfo?.agentRuntime : undefined;
}

/**
 * The set-up of the agent's sandbox runtime, right before the firewall is installed: gVisor's runsc (the
 * release's pinned build), or the docker-sbx microVM (KVM and secrets checked, installed, started, tried).
 */
function runtimeInstallSteps(agentInput: AgentInput): StepPlan[] {
  const runtime = agentRuntime(agentInput);
  if (runtime === "docker-sbx") {
    const sh = (name: string, script: string, extra: StepPlan = {}): StepPlan => ({
      name,
      ...extra,
      run: plain(`bash "\${RUNNER_TEMP}/gh-aw/actions/${script}.sh"`),
    });
    return [
      sh("Check KVM availability for docker-sbx", "docker_sbx_kvm_check"),
      sh("Check Docker Hub secrets for docker-sbx", "docker_sbx_secrets_check", {
        id: "docker-sbx-secrets",
        env: { ...DOCKER_HUB_ENV },
      }),
      sh("Install docker-sbx", "sudo_docker_sbx_install"),
      sh("Start docker-sbx daemon and authenticate", "docker_sbx_daemon", { env: { ...DOCKER_HUB_ENV } }),
      sh("Run docker-sbx pre-flight smoke test", "docker_sbx_preflight"),
    ];
  }
  const gvisor = targetOf(agentInput.ctx).jobs.agent.awf?.gvisorRelease;
  if (!gvisor || runtime !== "gvisor") return [];
  return [{
    name: "Install gVisor (runsc)",
    "#": new Comment(
      "runner-guard:ignore RGS-012 -- pinned release, SHA-512 verified artifacts, download-only step (no outbound secret transmission).",
    ),
    run: plain(`bash "\${RUNNER_TEMP}/gh-aw/actions/sudo_gvisor_install.sh" ${gvisor}`),
  }];
}

/** Right before the engine runs in the docker-sbx microVM: its Docker Hub credentials refreshed. */
export function runtimeRefreshSteps(agentInput: AgentInput): StepPlan[] {
  if (agentRuntime(agentInput) !== "docker-sbx") return [];
  return [{
    name: "Refresh sbx credentials",
    env: { ...DOCKER_HUB_ENV },
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/docker_sbx_credential_refresh.sh"'),
  }];
}

/** The step(s) running the engine inside the AWF firewall (Copilot's followed by "Detect agent errors"). */
export function engineExecuteSteps(agentInput: AgentInput): StepPlan[] {
  return engineOf(agentInput.engine).execute(agentInput);
}

/**
 * Steps before the agent artifact is bundled: Gemini and Antigravity leave their error reports in /tmp/, moved
 * under /tmp/gh-aw/ so the upload keeps its common root.
 */
export function enginePreBundleSteps(agentInput: AgentInput): StepPlan[] {
  return engineOf(agentInput.engine).preBundle?.(agentInput) ?? [];
}

/** Engine-specific steps after the run (session state, log parsing for the step summary). */
export function engineLogSteps(agentInput: AgentInput): StepPlan[] {
  const engine = engineOf(agentInput.engine);
  const steps: StepPlan[] = [...engine.afterRun?.(agentInput) ?? []];
  if (engine.logParser) {
    steps.push(scriptStep(agentInput.ctx, "Parse agent logs for step summary", engine.logParser.module, {
      if: plain("always()"),
      env: {
        GH_AW_AGENT_OUTPUT: engine.logParser.output,
        ...(targetOf(agentInput.ctx).jobs.agent.logParserReadsSafeOutputs
          ? { GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}") }
          : {}),
      },
    }));
  }
  return steps;
}
