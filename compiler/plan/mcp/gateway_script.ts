/**
 * The `run:` text of "Start MCP Gateway": gateway exports, the `docker run` command with its `-e` list,
 * and the per-engine configuration heredocs (Codex's TOML first), in gh-aw's exact text.
 */
import type { AgentInput } from "../agent/input.ts";
import { gatewayImage } from "./images.ts";
import { heredocDelimiter } from "../../source/hash.ts";
import { targetOf } from "../steps.ts";
import type { McpGatewayStyle } from "../../targets/target.ts";
import { BARE_BLANK, codexPrelude, type CodexServers, codexTail } from "./codex.ts";
import { githubServer, githubToolConfig, playwrightServer } from "./github.ts";
import {
  agenticWorkflows,
  cliServerNames,
  copilotStyle,
  gatewayConfigJson,
  gatewayEnv,
  mcpScripts,
  writeSink,
} from "./config.ts";

/** Variables every gateway container receives (before the workflow-specific ones). */
export const GATEWAY_DOCKER_ENV: readonly string[] = [
  "MCP_GATEWAY_PORT",
  "MCP_GATEWAY_DOMAIN",
  "MCP_GATEWAY_API_KEY",
  "MCP_GATEWAY_PAYLOAD_DIR",
  "MCP_GATEWAY_PAYLOAD_SIZE_THRESHOLD",
  "DOCKER_HOST=unix:///var/run/docker.sock",
  "DEBUG",
  "MCP_GATEWAY_LOG_DIR",
  "GH_AW_MCP_LOG_DIR",
  "GH_AW_SAFE_OUTPUTS",
  "GH_AW_SAFE_OUTPUTS_CONFIG_PATH",
  "GH_AW_SAFE_OUTPUTS_TOOLS_PATH",
  "GH_AW_ASSETS_BRANCH",
  "GH_AW_ASSETS_MAX_SIZE_KB",
  "GH_AW_ASSETS_ALLOWED_EXTS",
  "DEFAULT_BRANCH",
  "GITHUB_MCP_SERVER_TOKEN",
  "GITHUB_MCP_GUARD_MIN_INTEGRITY",
  "GITHUB_MCP_GUARD_REPOS",
  "GITHUB_REPOSITORY",
  "GITHUB_SERVER_URL",
  "GITHUB_SHA",
  "GITHUB_WORKSPACE",
  "GITHUB_TOKEN",
  "GITHUB_RUN_ID",
  "GITHUB_RUN_NUMBER",
  "GITHUB_RUN_ATTEMPT",
  "GITHUB_JOB",
  "GITHUB_ACTION",
  "GITHUB_EVENT_NAME",
  "GITHUB_EVENT_PATH",
  "GITHUB_ACTOR",
  "GITHUB_ACTOR_ID",
  "GITHUB_TRIGGERING_ACTOR",
  "GITHUB_WORKFLOW",
  "GITHUB_WORKFLOW_REF",
  "GITHUB_WORKFLOW_SHA",
  "GITHUB_REF",
  "GITHUB_REF_NAME",
  "GITHUB_REF_TYPE",
  "GITHUB_HEAD_REF",
  "GITHUB_BASE_REF",
];

/** The `-e` flags of the gateway container. */
function dockerEnv(agentInput: AgentInput): string[] {
  const style = gatewayStyle(agentInput);
  const out = style
    ? GATEWAY_DOCKER_ENV.flatMap((e) =>
      e === "GH_AW_SAFE_OUTPUTS_TOOLS_PATH"
        ? [e, "GH_AW_POLICY_ALLOW_CREATE_PULL_REQUEST"]
        : e === "GITHUB_MCP_GUARD_REPOS" && style.sinkVisibility
        ? [e, "GH_AW_SINK_VISIBILITY"]
        : [e]
    )
    : [...GATEWAY_DOCKER_ENV];
  const gh = githubServer(agentInput);
  if (gh?.mode === "remote" && copilotStyle(agentInput)) out.push("GITHUB_PERSONAL_ACCESS_TOKEN");
  if (mcpScripts(agentInput)) out.push("GH_AW_MCP_SCRIPTS_PORT", "GH_AW_MCP_SCRIPTS_API_KEY");
  if (!style?.safeOutputsStdio) out.push("GH_AW_SAFE_OUTPUTS_PORT", "GH_AW_SAFE_OUTPUTS_API_KEY");
  if (style) out.push("RUNNER_TEMP", "MCP_GATEWAY_ALLOWED_MOUNT_ROOTS");
  if (agentInput.ctx.otlp) {
    out.push("GITHUB_AW_OTEL_TRACE_ID", "GITHUB_AW_OTEL_PARENT_SPAN_ID", "OTEL_EXPORTER_OTLP_HEADERS");
  }
  const added = new Set(out.map((e) => e.split("=")[0]));
  for (const [k] of gatewayEnv(agentInput)) if (!added.has(k)) out.push(k);
  return out;
}

/** The `docker run` command of the gateway container, passing `envNames` through. */
export function gatewayDockerCommand(
  envNames: readonly string[],
  image: string,
  style?: McpGatewayStyle,
  bind = "127.0.0.1",
): string {
  const q = (v: string) => `'"\${${v}}"'`;
  const network = style
    ? `docker run -i --rm --network bridge -p ${bind}:${q("MCP_GATEWAY_PORT")}:${q("MCP_GATEWAY_PORT")}` +
      ` --name ${style.containerName} --add-host host.docker.internal:host-gateway`
    : "docker run -i --rm --network host --add-host host.docker.internal:127.0.0.1";
  // The safe-outputs server's container writes its files through the gateway's mount.
  const safeOutputs = style?.safeOutputsStdio
    ? ` -v ${q("RUNNER_TEMP")}/gh-aw/safeoutputs:${q("RUNNER_TEMP")}/gh-aw/safeoutputs:rw`
    : "";
  return network +
    ` --user ${q("MCP_GATEWAY_UID")}:${q("MCP_GATEWAY_GID")} --group-add ${q("DOCKER_SOCK_GID")}` +
    ` -v ${q("DOCKER_SOCK_PATH")}:/var/run/docker.sock` +
    envNames.map((e) => ` -e ${e}`).join("") +
    " -v /tmp/gh-aw/mcp-payloads:/tmp/gh-aw/mcp-payloads:rw -v /opt:/opt:ro -v /tmp:/tmp:rw" +
    ` -v ${q("GITHUB_WORKSPACE")}:${q("GITHUB_WORKSPACE")}:rw${safeOutputs} ${image}`;
}

/** The target's way of running the gateway, when it differs from v0.76.1's. */
export function gatewayStyle(agentInput: AgentInput): McpGatewayStyle | undefined {
  return targetOf(agentInput.ctx).jobs.agent.gateway;
}

/** Lines that give the safe-outputs server a copy of the event payload it may read (stdio-container releases). */
const EVENT_PATH_COPY = [
  'if [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -r "${GITHUB_EVENT_PATH}" ]; then',
  '  GH_AW_SAFEOUTPUTS_EVENT_PATH="${RUNNER_TEMP}/gh-aw/safeoutputs/github_event.json"',
  '  cp "${GITHUB_EVENT_PATH}" "${GH_AW_SAFEOUTPUTS_EVENT_PATH}"',
  '  export GITHUB_EVENT_PATH="${GH_AW_SAFEOUTPUTS_EVENT_PATH}"',
  "fi",
];

/** The roots the gateway lets stdio containers mount: the release's, plus the host folders servers mount. */
export function allowedMountRoots(agentInput: AgentInput, style: McpGatewayStyle): string[] {
  const roots = new Set(style.allowedMountRoots);
  for (const cfg of Object.values(agentInput.mcpServers)) {
    for (const m of Array.isArray(cfg.mounts) ? cfg.mounts.map(String) : []) {
      const parts = m.split(":");
      if (parts.length >= 2) roots.add(`${parts[0]}:${parts.length >= 3 ? parts[2] : "rw"}`);
    }
  }
  // Ordered by folder (a folder before the ones inside it), then by mode.
  const path = (r: string) => r.slice(0, r.lastIndexOf(":"));
  return [...roots].sort((
    a,
    b,
  ) => (path(a) < path(b) ? -1 : path(a) > path(b) ? 1 : a < b ? -1 : a > b ? 1 : 0));
}

/** The opening of every "Start MCP Gateway" script: gateway settings, up to the engine export. */
export function gatewayExportLines(
  engineId: string,
  style?: McpGatewayStyle,
  mountRoots?: string[],
  playwright = false,
  microVm = false,
): string[] {
  return [
    "set -eo pipefail",
    'mkdir -p "${RUNNER_TEMP}/gh-aw/mcp-config"',
    ...(style?.safeOutputsStdio ? EVENT_PATH_COPY : []),
    // The browser's container writes as another user.
    ...(playwright
      ? ["mkdir -p /tmp/gh-aw/mcp-logs/playwright", "chmod 777 /tmp/gh-aw/mcp-logs/playwright"]
      : []),
    "",
    "# Export gateway environment variables for MCP config and gateway script",
    'export MCP_GATEWAY_PORT="8080"',
    `export MCP_GATEWAY_DOMAIN="${style && !microVm ? style.containerName : "host.docker.internal"}"`,
    `export MCP_GATEWAY_HOST_DOMAIN="${microVm ? "host.docker.internal" : "localhost"}"`,
    "MCP_GATEWAY_API_KEY=$(openssl rand -base64 45 | tr -d '/+=')",
    'echo "::add-mask::${MCP_GATEWAY_API_KEY}"',
    "export MCP_GATEWAY_API_KEY",
    'export MCP_GATEWAY_PAYLOAD_DIR="/tmp/gh-aw/mcp-payloads"',
    'mkdir -p "${MCP_GATEWAY_PAYLOAD_DIR}"',
    'export MCP_GATEWAY_PAYLOAD_SIZE_THRESHOLD="524288"',
    ...(style ? [`export MCP_GATEWAY_ALLOWED_MOUNT_ROOTS="${(mountRoots ?? []).join(",")}"`] : []),
    'export DEBUG="*"',
    "",
    `export GH_AW_ENGINE="${engineId}"`,
  ];
}

/** The container user, Docker socket and `MCP_GATEWAY_DOCKER_COMMAND` lines (then an empty line). */
export function gatewayDockerLines(dockerCommand: string, style?: McpGatewayStyle): string[] {
  if (style) {
    return [
      "MCP_GATEWAY_UID=$(id -u 2>/dev/null || echo '0')",
      "MCP_GATEWAY_GID=$(id -g 2>/dev/null || echo '0')",
      'source "${RUNNER_TEMP}/gh-aw/actions/resolve_docker_socket_gid.sh"',
      `export MCP_GATEWAY_DOCKER_COMMAND='${dockerCommand}'`,
      "",
    ];
  }
  return [
    "MCP_GATEWAY_UID=$(id -u 2>/dev/null || echo '0')",
    "MCP_GATEWAY_GID=$(id -g 2>/dev/null || echo '0')",
    'case "${DOCKER_HOST:-}" in',
    '  unix://* ) DOCKER_SOCK_PATH="${DOCKER_HOST#unix://}" ;;',
    '  /* ) DOCKER_SOCK_PATH="$DOCKER_HOST" ;;',
    "  * ) DOCKER_SOCK_PATH=/var/run/docker.sock ;;",
    "esac",
    "DOCKER_SOCK_GID=$(stat -c '%g' \"$DOCKER_SOCK_PATH\" 2>/dev/null || echo '0')",
    `export MCP_GATEWAY_DOCKER_COMMAND='${dockerCommand}'`,
    "",
  ];
}

/** The full `run:` text of "Start MCP Gateway". */
export function gatewayScript(agentInput: AgentInput): string {
  const style = gatewayStyle(agentInput);
  // The docker-sbx microVM reaches the gateway through the host, on every interface.
  const microVm = style !== undefined && agentInput.ctx.sandboxInfo?.agentRuntime === "docker-sbx";
  const lines = gatewayExportLines(
    agentInput.ctx.engine.id,
    style,
    style ? allowedMountRoots(agentInput, style) : undefined,
    playwrightServer(agentInput),
    microVm,
  );
  const cli = cliServerNames(agentInput);
  if (cli.length > 0) {
    const list = JSON.stringify(cli);
    lines.push(`export GH_AW_MCP_CLI_SERVERS='${list}'`);
    // Later releases leave it out of the job env.
    if (!style) lines.push(`echo GH_AW_MCP_CLI_SERVERS='${list}' >> "$GITHUB_ENV"`);
  }
  if (githubServer(agentInput)?.mode === "remote" && copilotStyle(agentInput)) {
    lines.push('export GITHUB_PERSONAL_ACCESS_TOKEN="$GITHUB_MCP_SERVER_TOKEN"');
  }
  lines.push(
    ...gatewayDockerLines(
      gatewayDockerCommand(
        dockerEnv(agentInput),
        gatewayImage(agentInput.ctx, agentInput.frontmatter),
        style,
        microVm ? "0.0.0.0" : "127.0.0.1",
      ),
      style,
    ),
  );
  const mcp = agentInput.ctx.engine.mcp;
  // An engine reading no gateway config of its own (Pi): the script ends after the docker command.
  if (mcp.format === "none") return lines.join("\n") + "\n";
  const codex = mcp.format === "toml" ? codexServers(agentInput) : undefined;
  if (mcp.configDir) lines.push(`mkdir -p ${mcp.configDir}`);
  if (codex) lines.push(...codexPrelude(agentInput, codex));
  const config = gatewayConfigJson(agentInput);
  const delim = style?.delimiterFromContent
    ? contentDelimiter("MCP_CONFIG", indented(config))
    : heredocDelimiter("MCP_CONFIG", agentInput.frontmatterHash);
  lines.push(
    "GH_AW_NODE=$(which node 2>/dev/null || command -v node 2>/dev/null || echo node)",
    `cat << ${delim} | "$GH_AW_NODE" "\${RUNNER_TEMP}/gh-aw/actions/start_mcp_gateway.cjs"`,
    config,
    delim,
  );
  if (codex) lines.push(...codexTail(agentInput, codex));
  return lines.join("\n") + "\n";
}

/** The config as the lock indents it under `run: |` (each line by ten spaces, then a newline). */
function indented(text: string): string {
  return text.split("\n").map((l) => `          ${l}`).join("\n") + "\n";
}

/**
 * A heredoc delimiter derived from the text it wraps (as the lock writes it): `GH_AW_<NAME>_<FNV-1a 64 of name
 * and text, 16 hex>_EOF`, stable while the text is.
 */
export function contentDelimiter(name: string, text: string): string {
  // The 64-bit state as two unsigned 32-bit halves; the prime is 2^40 + 0x1b3, so h·prime is h·0x1b3 plus
  // the low half shifted into the high one (every intermediate stays an exact integer below 2^53).
  let hi = 0xcbf29ce4, lo = 0x84222325;
  for (const b of new TextEncoder().encode(name.toUpperCase() + text)) {
    lo = (lo ^ b) >>> 0;
    const low = lo * 0x1b3;
    hi = (hi * 0x1b3 + Math.floor(low / 0x100000000) + ((lo << 8) >>> 0)) >>> 0;
    lo = low >>> 0;
  }
  const hex = (n: number) => n.toString(16).padStart(8, "0");
  return `GH_AW_${name.toUpperCase()}_${hex(hi)}${hex(lo)}_EOF`;
}

/** Indices of the script lines gh-aw leaves unindented (see {@link BARE_BLANK}). */
export function bareBlankLines(script: string): number[] {
  return script.split("\n").flatMap((l, i) => (l === BARE_BLANK ? [i] : []));
}

/** The script text with its bare-blank markers emptied. */
export function withoutMarkers(script: string): string {
  return script.split("\n").map((l) => (l === BARE_BLANK ? "" : l)).join("\n");
}

/** What Codex's TOML config lists. */
function codexServers(agentInput: AgentInput): CodexServers {
  const gh = githubServer(agentInput);
  const sink = writeSink(githubToolConfig(agentInput)) as { "write-sink": { accept: string[] } } | undefined;
  return {
    agenticWorkflows: agenticWorkflows(agentInput),
    github: gh ? { mode: gh.mode, readOnly: gh.readOnly, toolsets: gh.toolsets } : undefined,
    mcpScripts: mcpScripts(agentInput) !== undefined,
    custom: Object.entries(agentInput.mcpServers),
    sink: sink?.["write-sink"].accept,
  };
}
