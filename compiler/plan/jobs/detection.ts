/**
 * The threat-detection job for the copilot engine, laid out exactly as gh-aw v0.76 emits it: the agent's
 * output and patch are re-read by the same engine inside the firewall (threat-detection allowlist, no MCP
 * servers) and the verdict gates the `safe_outputs` job.
 */
import { AWF_HOST_PREPARATION } from "../agent/awf_command.ts";
import { heredocDelimiter } from "../../source/hash.ts";
import { codexConfigMergeLines } from "../mcp/codex.ts";
import {
  GATEWAY_DOCKER_ENV,
  gatewayDockerCommand,
  gatewayDockerLines,
  gatewayExportLines,
} from "../mcp/gateway_script.ts";
import { type Firewall, firewallImage, pinnedImagesStep } from "../../source/sandbox.ts";
import type { JobPlan, StepPlan } from "../types.ts";
import { agentOutputSteps, type JobCtx, scriptStep, setupSteps, shStep, TRACE_OUTPUTS } from "../steps.ts";
import { VERSIONS } from "../../data/versions.ts";
import { Comment, dq, folded, lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { ECOSYSTEMS, ENGINE_DOMAINS, PROVIDER_DOMAINS } from "../../data/network_ecosystems.ts";
import { piCommand, PROVIDER_ENV } from "../agent/engine_experimental.ts";
import { ENGINES } from "../engines.ts";

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

const CLAUDE_TOOLS = [
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

function detectionRun(
  engine: DetectionEngine,
  fw: Firewall | undefined,
  provider: string,
  model: string,
): string {
  // Crush and OpenCode reach their provider's API and npm's registry (Crush also its catalogue at charm.land).
  const providerCli = engine === "crush" || engine === "opencode" || engine === "pi";
  const domains = engine === "copilot" ? [...ECOSYSTEMS["threat-detection"]] : providerCli
    ? [
      ...new Set([
        ...ENGINE_DOMAINS[engine],
        PROVIDER_DOMAINS[provider],
        ...(engine === "crush" ? ["charm.land"] : engine === "pi" ? ["api.pi.ai"] : []),
        "registry.npmjs.org",
      ]),
    ].filter(Boolean)
    : [...ENGINE_DOMAINS[engine]];
  const awf = {
    $schema: `https://github.com/github/gh-aw-firewall/releases/download/${
      fw?.version ?? VERSIONS.awf
    }/awf-config.schema.json`,
    network: { allowDomains: domains.sort() },
    apiProxy: {
      enabled: true,
      enableTokenSteering: true,
      maxRuns: 500,
      maxEffectiveTokens: 25000000,
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
      : providerCli
      ? "--env-all"
      : "--env-all --exclude-env COPILOT_GITHUB_TOKEN") +
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

const DETECTION_DIR = "/tmp/gh-aw/threat-detection";

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

const CODEX_HOME = "/tmp/gh-aw/mcp-config";

/** What every detection run is told about its phase and prompt. */
const PHASE_ENV = {
  GH_AW_PHASE: "detection",
  GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
  GH_AW_VERSION: "dev",
} as const;

/** Gemini's settings for detection: read /tmp, and only reading and shell tools. */
const GEMINI_DETECTION_CONFIG = JSON.stringify({
  context: { includeDirectories: ["/tmp/"] },
  tools: {
    core: ["glob", "grep_search", "list_directory", "read_file", "read_many_files", "run_shell_command"],
  },
});

/** Writes `$BASE_CONFIG` to the file in `$<fileVar>`, deep-merged over what the file already holds. */
function jqMergeLines(fileVar: string): string[] {
  const file = `"$${fileVar}"`;
  return [
    `if [ -f ${file} ]; then`,
    `  MERGED=$(jq -n --argjson base "$BASE_CONFIG" --argjson existing "$(cat ${file})" '$existing * $base')`,
    `  echo "$MERGED" > ${file}`,
    "else",
    `  echo "$BASE_CONFIG" > ${file}`,
    "fi",
  ];
}

/**
 * Crush's or OpenCode's project config for detection: the tools allowed inside the sandbox, merged over the
 * workspace's own config (the two CLIs spell the key differently).
 */
function providerCliConfigScript(engine: "crush" | "opencode"): string {
  const allow = ["bash", "edit", "read", "glob", "grep", "write", "webfetch", "websearch"];
  const permission = Object.fromEntries(
    [...allow, ...(engine === "crush" ? ["external_directory"] : [])].map((k) => [k, "allow"]),
  );
  const config = { agent: { build: { [engine === "crush" ? "permission" : "permissions"]: permission } } };
  return [
    "umask 077",
    'mkdir -p "$GITHUB_WORKSPACE"',
    `CONFIG="$GITHUB_WORKSPACE/${engine === "crush" ? ".crush.json" : "opencode.jsonc"}"`,
    `BASE_CONFIG='${JSON.stringify(config)}'`,
    ...jqMergeLines("CONFIG"),
    'chmod 600 "$CONFIG"',
  ].join("\n") + "\n";
}

/** Merges {@link GEMINI_DETECTION_CONFIG} over the workspace's `<dir>/settings.json` (Gemini's or Antigravity's). */
function settingsMergeScript(dir: string, envName: string): string {
  return [
    `mkdir -p "$GITHUB_WORKSPACE/${dir}"`,
    `SETTINGS="$GITHUB_WORKSPACE/${dir}/settings.json"`,
    `BASE_CONFIG="$${envName}"`,
    ...jqMergeLines("SETTINGS"),
  ].join("\n") + "\n";
}

/** The shell policy codex runs detection with (its key and nothing else from the environment). */
const CODEX_SHELL_POLICY = [
  "[shell_environment_policy]",
  'inherit = "core"',
  'include_only = ["^CODEX_API_KEY$", "^HOME$", "^OPENAI_API_KEY$", "^PATH$"]',
];

/**
 * "Start MCP Gateway" of codex detection: a gateway with no servers (codex reads its config through it) and
 * the TOML that points codex at the firewall's API proxy. gh-aw draws these heredoc delimiters at random;
 * ours are derived from the frontmatter hash so the lock stays byte-stable (docs/compiler-differences.md).
 */
function codexDetectionGateway(frontmatterHash: string): string {
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
}

/** The threat-detection job: every built-in engine reviews the agent's output with its own CLI. */
export function detectionJob(d: DetectionInput): JobPlan {
  const { ctx } = d;
  // Crush picks its credentials from the `provider/` prefix of its model (copilot without one).
  const crushModel = d.model ?? `\${{ vars.GH_AW_MODEL_DETECTION_${d.engine.toUpperCase()} || '' }}`;
  const crushProvider = ["crush", "opencode", "pi"].includes(d.engine) && crushModel.includes("/")
    ? crushModel.split("/")[0]
    : "copilot";
  const steps: (StepPlan | Comment)[] = [
    ...prepareSteps(d),
    ...installSteps(d),
    execStep(d, crushModel, crushProvider),
    ...concludeSteps(ctx),
  ];
  void TRACE_OUTPUTS;
  return {
    needs: ["activation", "agent"],
    if: folded(
      "always() && needs.agent.result != 'skipped' && (needs.agent.outputs.output_types != '' || needs.agent.outputs.has_patch == 'true')\n",
    ),
    "runs-on": "ubuntu-latest",
    permissions: ctx.copilotRequests
      ? { contents: "read", "copilot-requests": "write" }
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
function prepareSteps(d: DetectionInput): (StepPlan | Comment)[] {
  const { ctx } = d;
  const steps: (StepPlan | Comment)[] = [...setupSteps(ctx, true), ...agentOutputSteps(ctx)];
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
  if (d.engine !== "codex") steps.push(...imageSteps(ctx, []));
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
      WORKFLOW_DESCRIPTION: dq(d.description),
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
function installSteps(d: DetectionInput): StepPlan[] {
  const { ctx } = d;
  const steps: StepPlan[] = [];
  // Antigravity's CLI is a native binary: no Node.js set-up.
  if (d.engine !== "antigravity") {
    steps.push({
      name: "Setup Node.js",
      uses: plain(d.setupNodeRef),
      with: { "node-version": sq("24"), "package-manager-cache": false },
    });
  }
  const awfInstall = shStep(
    "Install AWF binary",
    "install_awf_binary",
    ctx.firewall?.version ?? VERSIONS.awf,
  );
  if (d.engine === "antigravity") {
    steps.push({
      name: "Install Antigravity CLI",
      run: plain(d.install),
      env: { ...ENGINES.antigravity.agentInstall.env },
    });
    steps.push(awfInstall);
    steps.push(settingsStep("Antigravity", ".antigravity", dq));
  } else if (d.engine === "copilot") {
    steps.push({ name: "Install GitHub Copilot CLI", run: plain(d.install), env: { GH_HOST: "github.com" } });
    steps.push(awfInstall);
  } else if (d.engine === "codex") {
    steps.push({ name: "Install Codex CLI", run: plain(d.install) });
    steps.push(awfInstall);
    steps.push(...imageSteps(ctx, [`ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}`]));
    steps.push({
      name: "Start MCP Gateway",
      id: "start-mcp-gateway",
      env: { CODEX_HOME: CODEX_HOME },
      run: lit(codexDetectionGateway(d.frontmatterHash)),
    });
  } else if (d.engine === "crush" || d.engine === "opencode") {
    const cli = d.engine === "crush" ? "Crush" : "OpenCode";
    steps.push(awfInstall);
    steps.push({
      name: `Install ${cli} CLI`,
      run: plain(d.install),
      env: { NPM_CONFIG_MIN_RELEASE_AGE: sq("3") },
    });
    if (d.engine === "crush") {
      steps.push({ name: "Verify Crush CLI installation", run: plain("crush --version") });
    }
    steps.push({
      name: `Write ${cli} Config`,
      if: GUARD,
      "continue-on-error": true,
      run: dq(providerCliConfigScript(d.engine)),
    });
  } else if (d.engine === "pi") {
    steps.push(awfInstall);
    steps.push({ name: "Install Pi CLI", run: plain(d.install) });
  } else if (d.engine === "gemini") {
    steps.push(awfInstall);
    steps.push({ name: "Install Gemini CLI", run: plain(d.install) });
    steps.push(settingsStep("Gemini", ".gemini", lit));
  } else {
    steps.push(awfInstall);
    steps.push({ name: "Install Claude Code CLI", run: plain(d.install) });
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
/** Gemini's and Antigravity's read-only detection settings, merged into their settings file. */
function settingsStep(cli: string, dir: string, style: typeof lit): StepPlan {
  const envName = `GH_AW_${cli.toUpperCase()}_BASE_CONFIG`;
  return {
    name: `Write ${cli} Config`,
    if: GUARD,
    "continue-on-error": true,
    run: style(settingsMergeScript(dir, envName)),
    env: { [envName]: sq(GEMINI_DETECTION_CONFIG) },
  };
}

/** The git identity the detection CLIs commit as. */
const GIT_IDENTITY = {
  GIT_AUTHOR_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_AUTHOR_NAME: plain("github-actions[bot]"),
  GIT_COMMITTER_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_COMMITTER_NAME: plain("github-actions[bot]"),
};

/** The step that runs the engine's CLI on the agent's output. */
function execStep(d: DetectionInput, crushModel: string, crushProvider: string): StepPlan {
  const { ctx } = d;
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
      d.engine
    ],
    if: GUARD,
    "continue-on-error": true,
    id: "detection_agentic_execution",
  };
  if (d.engine === "claude") {
    exec["#0"] = new Comment("Allowed tools (sorted):");
    CLAUDE_TOOLS.forEach((t, i) => (exec[`#${i + 1}`] = new Comment(`- ${t}`)));
  } else if (d.engine === "copilot") exec["#"] = new Comment("Copilot CLI tool arguments (sorted):");
  if (d.engine === "copilot" || d.engine === "claude") exec["timeout-minutes"] = 20;
  exec.run = lit(detectionRun(d.engine, ctx.firewall, crushProvider, crushModel));
  exec.env = execEnv(d, crushModel, crushProvider);
  return exec;
}

/** The environment of the detection CLI, per engine. */
function execEnv(d: DetectionInput, crushModel: string, crushProvider: string): Record<string, YValue> {
  const { ctx } = d;
  if (d.engine === "antigravity") {
    return {
      ANTIGRAVITY_API_BASE_URL: plain("http://host.docker.internal:10003"),
      ANTIGRAVITY_API_KEY: plain("${{ secrets.ANTIGRAVITY_API_KEY }}"),
      ANTIGRAVITY_CLI_TRUST_WORKSPACE: plain("true"),
      DEBUG: "antigravity-cli:*",
      GEMINI_API_KEY: plain("${{ secrets.ANTIGRAVITY_API_KEY }}"),
      ...PHASE_ENV,
      GITHUB_AW: plain("true"),
      GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
      GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
      ...GIT_IDENTITY,
      RUNNER_TEMP: plain("${{ runner.temp }}"),
    };
  } else if (d.engine === "pi") {
    return {
      AWF_REFLECT_ENABLED: plain("1"),
      COPILOT_GITHUB_TOKEN: plain("${{ secrets.COPILOT_GITHUB_TOKEN }}"),
      GH_AW_PHASE: "detection",
      GH_AW_PI_MODEL: plain(crushModel),
      GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
      GH_AW_VERSION: "dev",
      GITHUB_AW: plain("true"),
      GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
      GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
      ...GIT_IDENTITY,
      PI_CODING_AGENT_DIR: "/tmp/gh-aw/pi-agent-dir",
      RUNNER_TEMP: plain("${{ runner.temp }}"),
    };
  } else if (d.engine === "crush" || d.engine === "opencode") {
    const env: Record<string, YValue> = {
      [`${d.engine.toUpperCase()}_MODEL`]: plain(crushModel),
      GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
      GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
      NO_PROXY: "localhost,127.0.0.1",
      RUNNER_TEMP: plain("${{ runner.temp }}"),
    };
    for (const [k, v] of Object.entries(PROVIDER_ENV[crushProvider] ?? {})) env[k] = plain(v);
    return Object.fromEntries(Object.keys(env).sort().map((k) => [k, env[k]]));
  } else if (d.engine === "gemini") {
    return {
      DEBUG: "gemini-cli:*",
      GEMINI_API_BASE_URL: plain("http://host.docker.internal:10003"),
      GEMINI_API_KEY: plain("${{ secrets.GEMINI_API_KEY }}"),
      GEMINI_CLI_TRUST_WORKSPACE: plain("true"),
      ...PHASE_ENV,
      GITHUB_AW: plain("true"),
      GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
      GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
      ...GIT_IDENTITY,
      RUNNER_TEMP: plain("${{ runner.temp }}"),
    };
  } else if (d.engine === "codex") {
    const key = plain("${{ secrets.CODEX_API_KEY || secrets.OPENAI_API_KEY }}");
    return {
      CODEX_API_KEY: key,
      CODEX_HOME: CODEX_HOME,
      GH_AW_MCP_CONFIG: plain("${{ runner.temp }}/gh-aw/mcp-config/config.toml"),
      GH_AW_MODEL_DETECTION_CODEX: plain(
        d.model ?? "${{ vars.GH_AW_MODEL_DETECTION_CODEX || vars.GH_AW_DEFAULT_MODEL_CODEX || 'gpt-5.4' }}",
      ),
      ...PHASE_ENV,
      GITHUB_AW: plain("true"),
      GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
      ...GIT_IDENTITY,
      OPENAI_API_KEY: key,
      RUNNER_TEMP: plain("${{ runner.temp }}"),
      RUST_LOG: plain(
        "${{ runner.debug == 1 && 'trace,hyper_util=info,mio=info,reqwest=info,os_info=info,codex_otel=warn,codex_core=debug,ocodex_exec=debug' || 'warn' }}",
      ),
    };
  } else if (d.engine === "claude") {
    return {
      ANTHROPIC_API_KEY: plain("${{ secrets.ANTHROPIC_API_KEY }}"),
      BASH_DEFAULT_TIMEOUT_MS: plain("60000"),
      BASH_MAX_TIMEOUT_MS: plain("60000"),
      CLAUDE_CODE_DISABLE_FAST_MODE: plain("1"),
      DISABLE_BUG_COMMAND: plain("1"),
      DISABLE_ERROR_REPORTING: plain("1"),
      DISABLE_TELEMETRY: plain("1"),
      GH_AW_MODEL_DETECTION_CLAUDE: plain(
        d.model ?? "${{ vars.GH_AW_MODEL_DETECTION_CLAUDE || vars.GH_AW_DEFAULT_MODEL_CLAUDE || '' }}",
      ),
      ...PHASE_ENV,
      GITHUB_AW: plain("true"),
      GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
      GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
      ...GIT_IDENTITY,
      MCP_TIMEOUT: plain("120000"),
      MCP_TOOL_TIMEOUT: plain("60000"),
      RUNNER_TEMP: plain("${{ runner.temp }}"),
    };
  } else {
    const model = d.model ??
      "${{ vars.GH_AW_MODEL_DETECTION_COPILOT || vars.GH_AW_DEFAULT_MODEL_COPILOT || 'claude-sonnet-4.6' }}";
    return {
      AWF_REFLECT_ENABLED: plain("1"),
      COPILOT_AGENT_RUNNER_TYPE: "STANDALONE",
      COPILOT_DUMMY_BYOK: "dummy-byok-key-for-offline-mode",
      COPILOT_GITHUB_TOKEN: plain(
        ctx.copilotRequests ? "${{ github.token }}" : "${{ secrets.COPILOT_GITHUB_TOKEN }}",
      ),
      COPILOT_MODEL: plain(model),
      ...PHASE_ENV,
      GITHUB_API_URL: plain("${{ github.api_url }}"),
      GITHUB_AW: plain("true"),
      GITHUB_COPILOT_INTEGRATION_ID: "agentic-workflows",
      GITHUB_HEAD_REF: plain("${{ github.head_ref }}"),
      GITHUB_REF_NAME: plain("${{ github.ref_name }}"),
      GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
      GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
      GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
      ...GIT_IDENTITY,
      RUNNER_TEMP: plain("${{ runner.temp }}"),
      ...(ctx.copilotRequests ? { S2STOKENS: plain("true") } : {}),
      XDG_CONFIG_HOME: "/home/runner",
    };
  }
}

/** The detection log upload and the conclusion step. */
function concludeSteps(ctx: JobCtx): StepPlan[] {
  return [
    {
      name: "Upload threat detection log",
      if: GUARD,
      uses: plain(ctx.refs.upload),
      with: {
        name: "detection",
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
