/**
 * How each engine's own CLI runs the threat review inside the firewall: its command line, its allowlist,
 * and the configuration files it needs (codex's MCP gateway config, Gemini's settings, Crush/OpenCode
 * provider configs) merged over what the workspace holds.
 */
import { type EngineAuth, OIDC_REQUEST_ENV } from "../engine_auth.ts";
import { AWF_HOST_PREPARATION } from "../agent/awf_command.ts";
import { heredocDelimiter } from "../../source/hash.ts";
import { codexConfigMergeLines } from "../mcp/codex.ts";
import {
  GATEWAY_DOCKER_ENV,
  gatewayDockerCommand,
  gatewayDockerLines,
  gatewayExportLines,
} from "../mcp/gateway_script.ts";
import type { Firewall } from "../../source/sandbox.ts";
import type { JobCtx } from "../steps.ts";
import { VERSIONS } from "../../data/versions.ts";
import { ECOSYSTEMS } from "../../data/network_ecosystems.ts";
import { engineDomains } from "../network.ts";
import { piCommand } from "../agent/engine_experimental.ts";

/** The tools Claude Code may use while reviewing: reading, searching and writing under /tmp only. */
export const CLAUDE_TOOLS = [
  "Bash",
  "BashOutput",
  "Edit(/tmp/*)",
  "ExitPlanMode",
  "Glob",
  "Grep",
  "KillBash",
  "LS",
  "MultiEdit(/tmp/*)",
  "NotebookRead",
  "Read",
  "Read(/tmp/*)",
  "Task",
  "TodoWrite",
  "Write(/tmp/*)",
];

/**
 * The firewall-wrapped command line that runs the engine's CLI on the review prompt. The review spends from
 * the workflow's own `max-effective-tokens` budget (the firewall's default when unset); its run count stays
 * the default.
 */
export function detectionRun(
  engine: DetectionEngine,
  fw: Firewall | undefined,
  model: string,
  maxEffectiveTokens: number | string | undefined,
  federated = false,
  /** A BYOK Copilot review has no Copilot token to keep from the sandbox. */
  byok = false,
): string {
  // Crush, OpenCode and Pi reach their provider's API and the hosts their CLIs need, as in the agent job.
  const domains = engine === "copilot" ? [...ECOSYSTEMS["threat-detection"]] : engineDomains(engine, model);
  const awf = {
    $schema: `https://github.com/github/gh-aw-firewall/releases/download/${
      fw?.version ?? VERSIONS.awf
    }/awf-config.schema.json`,
    network: { allowDomains: domains.sort() },
    apiProxy: {
      enabled: true,
      enableTokenSteering: true,
      maxRuns: 500,
      maxEffectiveTokens: typeof maxEffectiveTokens === "number"
        ? maxEffectiveTokens
        : typeof maxEffectiveTokens === "string" && /^\d+$/.test(maxEffectiveTokens)
        ? Number(maxEffectiveTokens)
        : 25000000,
      ...(engine === "gemini" || engine === "antigravity"
        ? { targets: { gemini: { host: "generativelanguage.googleapis.com" } } }
        : {}),
    },
    container: { imageTag: fw?.imageTag ?? VERSIONS.awfImageTag },
  };
  const harnessed =
    `GH_AW_TOOL_CACHE="\${RUNNER_TOOL_CACHE:-/opt/hostedtoolcache}"; export PATH="$(find "$GH_AW_TOOL_CACHE" /opt/hostedtoolcache /home/runner/work/_tool -maxdepth 5 -type d -name bin 2>/dev/null | tr '\\''\\n'\\'' '\\'':'\\'')$PATH"; [ -n "$GOROOT" ] && export PATH="$GOROOT/bin:$PATH" || true && GH_AW_NODE_EXEC="\${GH_AW_NODE_BIN:-}"; if [ -z "$GH_AW_NODE_EXEC" ] || [ ! -x "$GH_AW_NODE_EXEC" ]; then GH_AW_NODE_EXEC="$(command -v node 2>/dev/null || true)"; fi; if [ -z "$GH_AW_NODE_EXEC" ]; then echo "node runtime missing on this runner — check runtimes.node in workflow YAML" >&2; exit 127; fi; "$GH_AW_NODE_EXEC" \${RUNNER_TEMP}/gh-aw/actions/` +
    (engine === "codex"
      ? `codex_harness.cjs codex exec\${GH_AW_MODEL_DETECTION_CODEX:+ --model "$GH_AW_MODEL_DETECTION_CODEX"} -c web_search="disabled" -c fetch="disabled" --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check  --output-schema ${DETECTION_DIR}/detection_schema.json -o ${DETECTION_DIR}/detection_result.json --prompt-file /tmp/gh-aw/aw-prompts/prompt.txt`
      : engine === "claude"
      ? `claude_harness.cjs claude --print --no-chrome --allowed-tools '\\''${
        CLAUDE_TOOLS.join(",")
      }'\\'' --debug-file /tmp/gh-aw/threat-detection/detection.log --verbose --permission-mode acceptEdits --output-format stream-json --prompt-file /tmp/gh-aw/aw-prompts/prompt.txt\${GH_AW_MODEL_DETECTION_CLAUDE:+ --model "$GH_AW_MODEL_DETECTION_CLAUDE"}`
      : `copilot_harness.cjs /usr/local/bin/copilot --add-dir /tmp/gh-aw/ --log-level all --log-dir /tmp/gh-aw/sandbox/agent/logs/ --disable-builtin-mcps --no-ask-user --allow-all-tools --add-dir "\${GITHUB_WORKSPACE}" --prompt-file /tmp/gh-aw/aw-prompts/prompt.txt`);
  // Gemini's CLI runs directly on the tool-cache PATH, without a node harness.
  const toolPath = harnessed.slice(0, harnessed.indexOf(" && GH_AW_NODE_EXEC="));
  const inner = engine === "antigravity"
    ? toolPath + ' && agy --dangerously-skip-permissions --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"'
    : engine === "gemini"
    ? toolPath +
      ' && gemini --yolo --skip-trust --output-format stream-json --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"'
    : engine === "crush"
    ? toolPath + ' && crush run --verbose "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"'
    : engine === "pi"
    ? `${toolPath} && ${piCommand(model).replaceAll("'", "'\\''")}`
    : engine === "opencode"
    ? toolPath + ' && opencode run --print-logs --log-level DEBUG "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"'
    : harnessed;
  return [
    "set -o pipefail",
    `printf '%s' "$(date +%s%3N)" > /tmp/gh-aw/agent_cli_start_ms.txt`,
    ...(engine === "crush" || engine === "opencode" ? [] : [
      engine === "codex"
        ? `mkdir -p "$CODEX_HOME/logs" && touch /tmp/gh-aw/agent-step-summary.md && mkdir -p ${DETECTION_DIR} && printf '%s' '${DETECTION_SCHEMA}' > ${DETECTION_DIR}/detection_schema.json`
        : "touch /tmp/gh-aw/agent-step-summary.md",
    ]),
    ...(engine === "copilot"
      ? [
        "GH_AW_NODE_BIN=$(command -v node 2>/dev/null || true)",
        "export GH_AW_NODE_BIN",
        'export COPILOT_API_KEY="$COPILOT_DUMMY_BYOK"',
      ]
      : []),
    "(umask 177 && touch /tmp/gh-aw/threat-detection/detection.log)",
    `printf '%s\\n' '${JSON.stringify(awf)}' > "\${RUNNER_TEMP}/gh-aw/awf-config.json"`,
    ...AWF_HOST_PREPARATION,
    'sudo -E awf --config "${RUNNER_TEMP}/gh-aw/awf-config.json" --container-workdir "${GITHUB_WORKSPACE}" --mount "${RUNNER_TEMP}/gh-aw:${RUNNER_TEMP}/gh-aw:ro" --mount "${RUNNER_TEMP}/gh-aw:/host${RUNNER_TEMP}/gh-aw:ro" ${GH_AW_TOOL_CACHE_MOUNT:+--mount "$GH_AW_TOOL_CACHE_MOUNT"} ${GH_AW_DOCKER_HOST_PATH_PREFIX_ARGS} ' +
    (engine === "claude"
      ? "--tty --env-all --exclude-env ANTHROPIC_API_KEY"
      : engine === "codex"
      ? "--env-all --exclude-env CODEX_API_KEY --exclude-env OPENAI_API_KEY"
      : engine === "gemini"
      ? "--env-all --exclude-env GEMINI_API_KEY"
      : engine === "antigravity"
      ? "--env-all --exclude-env ANTIGRAVITY_API_KEY --exclude-env GEMINI_API_KEY"
      : engine === "pi"
      ? "--env-all --exclude-env COPILOT_GITHUB_TOKEN"
      : engine === "crush" || engine === "opencode" || byok
      ? "--env-all"
      : "--env-all --exclude-env COPILOT_GITHUB_TOKEN") +
    // A federated engine's OIDC request variables stay with the API proxy (see engine_auth.ts).
    (federated ? OIDC_REQUEST_ENV.map((v) => ` --exclude-env ${v}`).join("") : "") +
    " --log-level info --proxy-logs-dir /tmp/gh-aw/sandbox/firewall/logs --audit-dir /tmp/gh-aw/sandbox/firewall/audit --enable-host-access --allow-host-ports 80,443,8080 --skip-pull \\",
    `  -- /bin/bash -c '${inner}' 2>&1 | tee -a /tmp/gh-aw/threat-detection/detection.log`,
  ].join("\n") + "\n";
}

/** Engines whose own CLI re-reads the agent's output in the threat-detection job. */
export type DetectionEngine =
  | "copilot"
  | "claude"
  | "codex"
  | "gemini"
  | "crush"
  | "opencode"
  | "pi"
  | "antigravity";

/** Engines with a detection job of their own (others fall back to copilot's). */
export const DETECTION_ENGINES: readonly string[] = [
  "copilot",
  "claude",
  "codex",
  "gemini",
  "crush",
  "opencode",
  "pi",
  "antigravity",
];

/** Where the review's inputs (prompt, agent output, patches) are copied. */
export const DETECTION_DIR = "/tmp/gh-aw/threat-detection";

/** The verdict codex must answer in (`--output-schema`). */
export const DETECTION_SCHEMA = JSON.stringify({
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

/** Codex's home: its config.toml with the detection MCP gateway. */
export const CODEX_HOME = "/tmp/gh-aw/mcp-config";

/** Gemini's settings for detection: read /tmp, and only reading and shell tools. */
export const GEMINI_DETECTION_CONFIG = JSON.stringify({
  context: { includeDirectories: ["/tmp/"] },
  tools: {
    core: ["glob", "grep_search", "list_directory", "read_file", "read_many_files", "run_shell_command"],
  },
});

/** The shell policy codex runs detection with (its key and nothing else from the environment). */
export const CODEX_SHELL_POLICY = [
  "[shell_environment_policy]",
  'inherit = "core"',
  'include_only = ["^CODEX_API_KEY$", "^HOME$", "^OPENAI_API_KEY$", "^PATH$"]',
];

/**
 * "Start MCP Gateway" of codex detection: a gateway with no servers (codex reads its config through it) and
 * the TOML that points codex at the firewall's API proxy. gh-aw draws these heredoc delimiters at random;
 * ours are derived from the frontmatter hash so the lock stays byte-stable (docs/compiler-differences.md).
 */
export function codexDetectionGateway(frontmatterHash: string): string {
  const seed = `${frontmatterHash}:detection`;
  const toml = heredocDelimiter("MCP_CONFIG", `${seed}:toml`);
  const json = heredocDelimiter("MCP_CONFIG", `${seed}:json`);
  const policy = heredocDelimiter("CODEX_SHELL_POLICY", seed);
  return [
    ...gatewayExportLines("codex"),
    ...gatewayDockerLines(gatewayDockerCommand([...GATEWAY_DOCKER_ENV, "CODEX_HOME"])),
    `cat > "\${RUNNER_TEMP}/gh-aw/mcp-config/config.toml" << ${toml}`,
    "[history]",
    'persistence = "none"',
    "",
    ...CODEX_SHELL_POLICY,
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
    ...CODEX_SHELL_POLICY,
    policy,
    ...codexConfigMergeLines("/tmp/gh-aw/mcp-config/config.toml"),
  ].join("\n") + "\n";
}

/** Inputs of the threat-detection job. */
export interface DetectionInput {
  ctx: JobCtx;
  description: string;
  setupNodeRef: string;
  model?: string;
  install: string;
  engine: DetectionEngine;
  /** Seeds codex's heredoc delimiters. */
  frontmatterHash: string;
  /** The engine's workload identity federation, which the review uses too. */
  auth?: EngineAuth;
  /** A BYOK Copilot's `engine.env`: the review talks to the same provider, without the Copilot token. */
  byokEnv?: Record<string, string>;
}
