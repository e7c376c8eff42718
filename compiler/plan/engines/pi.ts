/**
 * Pi: its models.json names the API proxy as its only provider, then `pi` runs on the prompt with gh-aw's
 * provider and steering extensions. It reads no MCP gateway config of its own.
 */
import type { Engine } from "./contract.ts";
import { DEFAULT_INSTRUCTION_FILES, DOCS } from "./facts.ts";
import { plain } from "../../yaml/writer.ts";
import { fullEnvShape, shapedExecute } from "../agent/engine_experimental.ts";
import { PROMPT } from "../agent/engine_env.ts";
import { engineDomains } from "../network.ts";
import { GIT_IDENTITY, TOOL_PATH, TOUCH_SUMMARY } from "./review.ts";
import { ghAwVersion } from "../steps.ts";

const VERSION = "0.75.4";
const INSTALL = `npm install --ignore-scripts -g @earendil-works/pi-coding-agent@${VERSION}`;
const PROVIDER_HOSTS = ["api.pi.ai", "registry.npmjs.org"];

/** Pi's run on the prompt: the model id without its `provider/`, through the proxy's `aw-gateway` provider. */
function piCommand(model: string): string {
  const modelId = model.includes("/") ? model.split("/").slice(1).join("/") : model;
  const providers = JSON.stringify({
    providers: {
      "aw-gateway": {
        api: "openai-completions",
        apiKey: "COPILOT_GITHUB_TOKEN",
        baseUrl: "http://api-proxy:10002",
        models: [{ id: modelId }],
      },
    },
  });
  return `mkdir -p /tmp/gh-aw/pi-agent-dir && printf '%s\\n' '${providers}' > /tmp/gh-aw/pi-agent-dir/models.json && cat ${PROMPT} | pi --print --mode json --no-session --model aw-gateway/${modelId} --extension "\${RUNNER_TEMP}/gh-aw/actions/pi_provider.cjs" --extension "\${RUNNER_TEMP}/gh-aw/actions/pi_steering_extension.cjs" 2>&1 | tee /tmp/gh-aw/pi-streaming.jsonl`;
}

/** Pi. */
export const pi: Engine = {
  id: "pi",
  displayName: "Pi",
  validateName: "Pi",
  version: VERSION,
  docs: `${DOCS}#pi`,
  secrets: ["COPILOT_GITHUB_TOKEN"],
  defaultModel: "${{ vars.GH_AW_MODEL_AGENT_PI || '' }}",
  supportsMaxTurns: false,
  supportsMaxContinuations: false,
  experimental: true,
  providerAuth: true,
  toolsAllowlist: true,
  cliName: "Pi CLI",
  agentInstall: { run: INSTALL },
  needsNode: true,
  installAfterAwf: true,
  logParser: { module: "parse_pi_log", output: "/tmp/gh-aw/pi-streaming.jsonl" },
  apiHosts: "",
  providerHosts: PROVIDER_HOSTS,
  reportsFirewall: false,
  detectsErrors: false,
  reportsVersion: false,
  logPath: "/tmp/gh-aw/pi-streaming.jsonl",
  redactsUrls: true,
  instructionFiles: DEFAULT_INSTRUCTION_FILES,
  mcp: { format: "none", varRefs: false, ghProxyFallback: false },
  copilotRequests: false,
  oauthHint: "use an API key secret",
  execute: (a) => {
    const model = a.engine.model ?? "";
    return [shapedExecute(
      a,
      fullEnvShape(
        a,
        piCommand(model),
        {
          AWF_REFLECT_ENABLED: plain("1"),
          COPILOT_GITHUB_TOKEN: plain("${{ secrets.COPILOT_GITHUB_TOKEN }}"),
          GH_AW_PI_MODEL: model,
          PI_CODING_AGENT_DIR: "/tmp/gh-aw/pi-agent-dir",
        },
        ["COPILOT_GITHUB_TOKEN"],
      ),
    )];
  },
  detection: {
    needsNode: true,
    imagesFirst: true,
    installSteps: (_d, awf) => [awf, { name: "Install Pi CLI", run: plain(INSTALL) }],
    domains: (model) => engineDomains(pi, model),
    setup: [TOUCH_SUMMARY],
    command: (model) => `${TOOL_PATH} && ${piCommand(model).replaceAll("'", "'\\''")}`,
    envArgs: () => "--env-all --exclude-env COPILOT_GITHUB_TOKEN",
    env: ({ d, model }) => ({
      AWF_REFLECT_ENABLED: plain("1"),
      COPILOT_GITHUB_TOKEN: plain("${{ secrets.COPILOT_GITHUB_TOKEN }}"),
      GH_AW_PHASE: "detection",
      GH_AW_PI_MODEL: plain(model),
      GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
      GH_AW_VERSION: ghAwVersion(d.ctx),
      GITHUB_AW: plain("true"),
      GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
      GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
      ...GIT_IDENTITY,
      PI_CODING_AGENT_DIR: "/tmp/gh-aw/pi-agent-dir",
      RUNNER_TEMP: plain("${{ runner.temp }}"),
    }),
  },
};
