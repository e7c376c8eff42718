/** The engine steps of the agent job: install the engine CLI, run it inside the AWF firewall, read its logs. */
import type { AgentInput } from "./agent_input.ts";
import type { StepPlan } from "./plan_types.ts";
import { shStep, VERSIONS } from "./jobs_common.ts";
import { dq, lit, plain, type YValue } from "./yaml_writer.ts";

function engineCommand(a: AgentInput): string {
  const id = a.ctx.engineId;
  const model = a.model ? ` --model ${a.model}` : "";
  switch (id) {
    case "claude":
      return `claude --print --disable-slash-commands --no-chrome${
        a.maxTurns !== undefined ? ` --max-turns ${a.maxTurns}` : ""
      }${model} --output-format stream-json --verbose "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    case "codex":
      return `codex${model} exec --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    case "gemini":
      return `gemini --yolo${model} --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    case "crush":
      return `crush run${model} "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    default: {
      const cont = a.maxContinuations !== undefined
        ? ` --autopilot --max-autopilot-continues ${a.maxContinuations}`
        : "";
      return `copilot --add-dir /tmp/gh-aw/ --log-level all --log-dir /tmp/gh-aw/sandbox/agent/logs/ --add-dir "\${GITHUB_WORKSPACE}" --disable-builtin-mcps --allow-all-tools --allow-all-paths${cont}${model} --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"`;
    }
  }
}

/** The steps that install the engine CLI and the AWF binary. */
export function engineInstallSteps(a: AgentInput): StepPlan[] {
  return [
    { name: `Install ${a.engineDisplay}`, run: plain(a.install) },
    shStep("Install AWF binary", "install_awf_binary", VERSIONS.awf),
  ];
}

/** The step running the engine inside the AWF firewall. */
export function engineExecuteSteps(a: AgentInput): StepPlan[] {
  const steps: StepPlan[] = [];
  const awfConfig = {
    $schema:
      `https://github.com/github/gh-aw-firewall/releases/download/${VERSIONS.awf}/awf-config.schema.json`,
    network: {
      allowDomains: a.allowedDomains,
      ...(a.blockedDomains.length ? { blockDomains: a.blockedDomains } : {}),
    },
    apiProxy: { enabled: true, maxRuns: 500, maxEffectiveTokens: 25000000 },
    container: { imageTag: VERSIONS.awfImageTag },
  };
  const execEnv: Record<string, YValue> = {};
  for (const s of a.secrets) execEnv[s] = plain(`\${{ secrets.${s} }}`);
  if (a.usesCopilotRequests) execEnv.COPILOT_GITHUB_TOKEN = plain("${{ github.token }}");
  if (a.model) execEnv.GH_AW_MODEL = dq(a.model);
  if (a.maxTurns !== undefined) execEnv.GH_AW_MAX_TURNS = dq(String(a.maxTurns));
  execEnv.GH_AW_PROMPT = "/tmp/gh-aw/aw-prompts/prompt.txt";
  execEnv.GH_AW_SAFE_OUTPUTS = plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}");
  execEnv.GITHUB_WORKSPACE = plain("${{ github.workspace }}");
  for (const [k, v] of Object.entries(a.engineEnv)) execEnv[k] = v;
  steps.push({
    name: `Execute ${a.engineDisplay}`,
    id: "agentic_execution",
    "timeout-minutes": a.timeoutMinutes,
    run: lit(
      "set -o pipefail\n" +
        `printf '%s\\n' '${JSON.stringify(awfConfig)}' > "\${RUNNER_TEMP}/gh-aw/awf-config.json"\n` +
        'sudo -E awf --config "${RUNNER_TEMP}/gh-aw/awf-config.json" --container-workdir "${GITHUB_WORKSPACE}" --env-all ' +
        a.secrets.map((s) => `--exclude-env ${s} `).join("") +
        "--log-level info --proxy-logs-dir /tmp/gh-aw/sandbox/firewall/logs --enable-host-access --skip-pull \\\n" +
        `  -- /bin/bash -c '${
          engineCommand(a).replace(/'/g, "'\\''")
        }' 2>&1 | tee -a /tmp/gh-aw/agent-stdio.log\n`,
    ),
    env: execEnv,
  });
  return steps;
}

/** Engine-specific steps after the run (session state, log parsing for the step summary). */
export function engineLogSteps(_a: AgentInput): StepPlan[] {
  return [];
}
