/**
 * OpenAI Codex: run through gh-aw's Node.js harness with its config home holding the MCP gateway's TOML
 * (`../mcp/codex.ts` writes it); its review answers in a JSON schema through a gateway of its own.
 */
import type { Engine } from "./contract.ts";
import { DEFAULT_INSTRUCTION_FILES, DOCS } from "./facts.ts";
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { lit, plain, type YValue } from "../../yaml/writer.ts";
import { MCP_CLI_PATH, NODE_PATH_SETUP } from "../agent/awf_command.ts";
import { cliProxyEnabled, mcpSecretEnv } from "../agent/engine_tools.ts";
import { agentTools, commonEnv, PROMPT, secretNames, sorted, STEP_SUMMARY } from "../agent/engine_env.ts";
import { agentAwfScript } from "../agent/engine_exec.ts";
import { engineDomains } from "../network.ts";
import { heredocDelimiter } from "../../source/hash.ts";
import { VERSIONS } from "../../data/versions.ts";
import { codexConfigMergeLines } from "../mcp/codex.ts";
import {
  GATEWAY_DOCKER_ENV,
  gatewayDockerCommand,
  gatewayDockerLines,
  gatewayExportLines,
} from "../mcp/gateway_script.ts";
import {
  DETECTION_DIR,
  DETECTION_PROMPT,
  type DetectionInput,
  GIT_IDENTITY,
  imageSteps,
  NODE_HARNESS,
  phaseEnv,
} from "./review.ts";

const VERSION = "0.135.0";
/** The model used when neither the workflow nor the repository variables name one. */
const MODEL = "gpt-5.4";
const INSTALL = `npm install --ignore-scripts -g @openai/codex@${VERSION}`;

/** Codex's home: its config.toml with the MCP gateway's servers. */
const CODEX_HOME = "/tmp/gh-aw/mcp-config";

const RUST_LOG = plain(
  "${{ runner.debug == 1 && 'trace,hyper_util=info,mio=info,reqwest=info,os_info=info,codex_otel=warn,codex_core=debug,ocodex_exec=debug' || 'warn' }}",
);

const API_KEY = plain("${{ secrets.CODEX_API_KEY || secrets.OPENAI_API_KEY }}");

/** The Codex execution step. */
function execute(agentInput: AgentInput): StepPlan {
  const tools = agentTools(agentInput);
  const eng = agentInput.engine;
  const webSearch = tools["web-search"] !== undefined && tools["web-search"] !== false;
  const webFetch = tools["web-fetch"] !== undefined && tools["web-fetch"] !== false;
  const command =
    `${MCP_CLI_PATH} && ${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/codex_harness.cjs codex exec` +
    `\${GH_AW_MODEL_AGENT_CODEX:+ --model "$GH_AW_MODEL_AGENT_CODEX"}` +
    (webSearch ? "" : ` -c web_search="disabled"`) + (webFetch ? "" : ` -c fetch="disabled"`) +
    ` --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check  --prompt-file ${PROMPT}`;
  const env: Record<string, YValue> = {
    ...commonEnv(agentInput, tools, false),
    CODEX_API_KEY: API_KEY,
    CODEX_HOME,
    GH_AW_MCP_CONFIG: plain("${{ runner.temp }}/gh-aw/mcp-config/config.toml"),
    GH_AW_MODEL_AGENT_CODEX: plain(eng.model ?? eng.info.defaultModel),
    OPENAI_API_KEY: API_KEY,
    RUST_LOG,
  };
  delete env.GITHUB_WORKSPACE;
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  const exclude = ["MCP_GATEWAY_API_KEY", ...secretNames(env), ...Object.keys(mcpSecretEnv(agentInput))];
  if (tools.github !== undefined) exclude.push("GITHUB_MCP_SERVER_TOKEN");
  if (cliProxyEnabled(agentInput)) exclude.push("GH_TOKEN");
  return {
    name: `Execute ${eng.info.cliName}`,
    id: "agentic_execution",
    run: agentAwfScript(agentInput, {
      setup: [`mkdir -p "$CODEX_HOME/logs" && touch ${STEP_SUMMARY}`],
      tty: false,
      exclude,
      command,
    }),
    env: sorted(env),
  };
}

/** The verdict codex must answer in (`--output-schema`). */
const DETECTION_SCHEMA = JSON.stringify({
  type: "object",
  properties: {
    prompt_injection: { type: "boolean" },
    secret_leak: { type: "boolean" },
    malicious_patch: { type: "boolean" },
    reasons: { type: "array", items: { type: "string" } },
  },
  required: ["prompt_injection", "secret_leak", "malicious_patch", "reasons"],
  additionalProperties: false,
});

/** The shell policy codex runs detection with (its key and nothing else from the environment). */
const SHELL_POLICY = [
  "[shell_environment_policy]",
  'inherit = "core"',
  'include_only = ["^CODEX_API_KEY$", "^HOME$", "^OPENAI_API_KEY$", "^PATH$"]',
];

/**
 * "Start MCP Gateway" of codex detection: a gateway with no servers (codex reads its config through it) and
 * the TOML that points codex at the firewall's API proxy. gh-aw draws these heredoc delimiters at random;
 * ours are derived from the frontmatter hash so the lock stays byte-stable (docs/compiler-differences.md).
 */
function detectionGateway(frontmatterHash: string): string {
  const seed = `${frontmatterHash}:detection`;
  const toml = heredocDelimiter("MCP_CONFIG", `${seed}:toml`);
  const json = heredocDelimiter("MCP_CONFIG", `${seed}:json`);
  const policy = heredocDelimiter("CODEX_SHELL_POLICY", seed);
  return [
    ...gatewayExportLines("codex"),
    ...gatewayDockerLines(
      gatewayDockerCommand(
        [...GATEWAY_DOCKER_ENV, "CODEX_HOME"],
        `ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}`,
      ),
    ),
    `cat > "\${RUNNER_TEMP}/gh-aw/mcp-config/config.toml" << ${toml}`,
    "[history]",
    'persistence = "none"',
    "",
    ...SHELL_POLICY,
    toml,
    "",
    "# Generate JSON config for MCP gateway",
    "GH_AW_NODE=$(which node 2>/dev/null || command -v node 2>/dev/null || echo node)",
    `cat << ${json} | "$GH_AW_NODE" "\${RUNNER_TEMP}/gh-aw/actions/start_mcp_gateway.cjs"`,
    "{",
    '  "mcpServers": {',
    "  },",
    '  "gateway": {',
    '    "port": $MCP_GATEWAY_PORT,',
    '    "domain": "${MCP_GATEWAY_DOMAIN}",',
    '    "apiKey": "${MCP_GATEWAY_API_KEY}",',
    '    "payloadDir": "${MCP_GATEWAY_PAYLOAD_DIR}"',
    "  }",
    "}",
    json,
    "",
    "# Sync converter output to writable CODEX_HOME for Codex",
    "mkdir -p /tmp/gh-aw/mcp-config",
    `cat > "/tmp/gh-aw/mcp-config/config.toml" << ${policy}`,
    'model_provider = "openai-proxy"',
    "[model_providers.openai-proxy]",
    'name = "OpenAI AWF proxy"',
    'base_url = "http://172.30.0.30:10000"',
    'env_key = "OPENAI_API_KEY"',
    "supports_websockets = false",
    ...SHELL_POLICY,
    policy,
    ...codexConfigMergeLines("/tmp/gh-aw/mcp-config/config.toml"),
  ].join("\n") + "\n";
}

/** Codex reviewing, with its MCP config home and the detection model variable. */
function detectionEnv(d: DetectionInput): Record<string, YValue> {
  return {
    CODEX_API_KEY: API_KEY,
    CODEX_HOME,
    GH_AW_MCP_CONFIG: plain("${{ runner.temp }}/gh-aw/mcp-config/config.toml"),
    GH_AW_MODEL_DETECTION_CODEX: plain(
      d.model ?? `\${{ vars.GH_AW_MODEL_DETECTION_CODEX || vars.GH_AW_DEFAULT_MODEL_CODEX || '${MODEL}' }}`,
    ),
    ...phaseEnv(d),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
    ...GIT_IDENTITY,
    OPENAI_API_KEY: API_KEY,
    RUNNER_TEMP: plain("${{ runner.temp }}"),
    RUST_LOG,
  };
}

/** OpenAI Codex. */
export const codex: Engine = {
  id: "codex",
  displayName: "Codex",
  validateName: "Codex",
  version: VERSION,
  docs: `${DOCS}#openai-codex`,
  secrets: ["CODEX_API_KEY", "OPENAI_API_KEY"],
  defaultModel: `\${{ vars.GH_AW_MODEL_AGENT_CODEX || vars.GH_AW_DEFAULT_MODEL_CODEX || '${MODEL}' }}`,
  supportsMaxTurns: false,
  supportsMaxContinuations: false,
  experimental: false,
  providerAuth: false,
  toolsAllowlist: true,
  cliName: "Codex CLI",
  agentInstall: { run: INSTALL },
  needsNode: true,
  installAfterAwf: false,
  logParser: { module: "parse_codex_log", output: "/tmp/gh-aw/agent-stdio.log" },
  apiHosts: "api.openai.com",
  reportsFirewall: true,
  detectsErrors: false,
  reportsVersion: false,
  logPath: "/tmp/gh-aw/mcp-config/logs/",
  redactsUrls: true,
  agentDirs: { root: ".codex", agents: ".codex/agents", ext: ".md", skills: ".codex/skills" },
  pluginInstall: "codex plugin install",
  instructionFiles: DEFAULT_INSTRUCTION_FILES,
  mcp: { format: "toml", varRefs: false, gatewayEnv: { CODEX_HOME }, ghProxyFallback: true },
  copilotRequests: false,
  oauthHint: "use an API key secret",
  execute: (a) => [execute(a)],
  detection: {
    needsNode: true,
    imagesFirst: false,
    installSteps: (d, awf) => [
      { name: "Install Codex CLI", run: plain(INSTALL) },
      awf,
      ...imageSteps(d.ctx, [`ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}`]),
      {
        name: "Start MCP Gateway",
        id: "start-mcp-gateway",
        env: { CODEX_HOME },
        run: lit(detectionGateway(d.frontmatterHash)),
      },
    ],
    domains: (model) => engineDomains(codex, model),
    setup: [
      `mkdir -p "$CODEX_HOME/logs" && touch /tmp/gh-aw/agent-step-summary.md && mkdir -p ${DETECTION_DIR} && printf '%s' '${DETECTION_SCHEMA}' > ${DETECTION_DIR}/detection_schema.json`,
    ],
    command: () =>
      `${NODE_HARNESS}codex_harness.cjs codex exec\${GH_AW_MODEL_DETECTION_CODEX:+ --model "$GH_AW_MODEL_DETECTION_CODEX"} -c web_search="disabled" -c fetch="disabled" --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check  --output-schema ${DETECTION_DIR}/detection_schema.json -o ${DETECTION_DIR}/detection_result.json --prompt-file ${DETECTION_PROMPT}`,
    envArgs: () => "--env-all --exclude-env CODEX_API_KEY --exclude-env OPENAI_API_KEY",
    env: ({ d }) => detectionEnv(d),
  },
};
