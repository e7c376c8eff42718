/**
 * Codex's side of the MCP gateway start script: the TOML config Codex reads (written before the gateway
 * JSON) and the tail that merges the converter's output into `CODEX_HOME`, in gh-aw's exact text.
 */
import type { AgentInput } from "../agent/input.ts";
import { VERSIONS } from "../../data/versions.ts";
import { heredocDelimiter } from "../../source/hash.ts";

/** Marks a blank line gh-aw writes without indentation inside the run script. */
export const BARE_BLANK = "\u0000";

/** The inputs the TOML needs, resolved by mcp_config.ts. */
export interface CodexServers {
  agenticWorkflows: boolean;
  github?: { mode: string; readOnly: boolean; toolsets: string };
  mcpScripts: boolean;
  custom: [string, Record<string, unknown>][];
  /** `write-sink` accept list, when the GitHub tool is on. */
  sink?: string[];
}

const q = (s: string) => `"${s.replace(/"/g, '\\"')}"`;
const inline = (xs: string[]) => `[${xs.map(q).join(", ")}]`;

/** `[shell_environment_policy] include_only`: the variables Codex's shell may see. */
function includeOnly(servers: CodexServers): string {
  const names = [
    "CODEX_API_KEY",
    "GH_AW_ASSETS_ALLOWED_EXTS",
    "GH_AW_ASSETS_BRANCH",
    "GH_AW_ASSETS_MAX_SIZE_KB",
    "GH_AW_SAFE_OUTPUTS",
    "GITHUB_REPOSITORY",
    "GITHUB_SERVER_URL",
    "HOME",
    "OPENAI_API_KEY",
    "PATH",
  ];
  if (servers.github) names.push("GITHUB_PERSONAL_ACCESS_TOKEN");
  if (servers.agenticWorkflows) names.push("GITHUB_TOKEN");
  return `include_only = ${inline(names.sort().map((n) => `^${n}$`))}`;
}

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

function sinkLines(name: string, sink: string[] | undefined): string[] {
  if (!sink) return [];
  return [
    "",
    `[mcp_servers.${name}."guard-policies"]`,
    "",
    `[mcp_servers.${name}."guard-policies".write-sink]`,
    `accept = ${inline(sink)}`,
  ];
}

function customLines(name: string, cfg: Record<string, unknown>): string[] {
  const out = [`[mcp_servers.${name}]`];
  if (cfg.url !== undefined) {
    out.push(`url = ${q(String(cfg.url).replace("//localhost:", "//host.docker.internal:"))}`);
    return out;
  }
  const list = (k: string) => Array.isArray(cfg[k]) ? (cfg[k] as unknown[]).map(String) : undefined;
  const command = typeof cfg.command === "string" ? cfg.command : undefined;
  if (command === "npx" || command === "uvx") {
    out.push(`container = ${q(command === "npx" ? "node:lts-alpine" : "python:alpine")}`);
    out.push(`entrypoint = ${q(command)}`);
    const args = list("args");
    if (args) out.push(`entrypointArgs = ${inline(args)}`);
    return out;
  }
  const image = String(cfg.container ?? cfg.image ?? "");
  out.push(`container = ${q(cfg.version !== undefined ? `${image}:${cfg.version}` : image)}`);
  if (cfg.entrypoint !== undefined) out.push(`entrypoint = ${q(String(cfg.entrypoint))}`);
  const ea = list("entrypointArgs");
  if (ea) out.push(`entrypointArgs = ${inline(ea)}`);
  const mounts = list("mounts");
  if (mounts) out.push(`mounts = ${inline(mounts)}`);
  const args = list("args");
  if (args) out.push("args = [", ...args.map((x) => `  ${q(x)},`), "]");
  return out;
}

/** The `config.toml` heredoc body (without delimiters). */
function codexToml(agentInput: AgentInput, servers: CodexServers): string[] {
  const sections: [string, string[]][] = [];
  if (servers.agenticWorkflows) {
    sections.push(["agenticworkflows", [
      "[mcp_servers.agenticworkflows]",
      ...(agentInput.ctx.actionMode === "dev"
        ? [
          'container = "localhost/gh-aw:dev"',
          'mounts = ["\\${GITHUB_WORKSPACE}:\\${GITHUB_WORKSPACE}:rw", "/tmp/gh-aw:/tmp/gh-aw:rw"]',
        ]
        : [
          // Release mode (from gh-aw's own tests; the dev corpus has no example).
          'container = "alpine:latest"',
          'entrypoint = "${RUNNER_TEMP}/gh-aw/gh-aw"',
          'entrypointArgs = ["mcp-server", "--validate-actor"]',
          'mounts = ["${RUNNER_TEMP}/gh-aw:${RUNNER_TEMP}/gh-aw:ro", "/usr/bin/gh:/usr/bin/gh:ro", ' +
          '"\\${GITHUB_WORKSPACE}:\\${GITHUB_WORKSPACE}:rw", "/tmp/gh-aw:/tmp/gh-aw:rw"]',
        ]),
      'env_vars = ["DEBUG", "GH_TOKEN", "GITHUB_TOKEN", "GITHUB_ACTOR", "GITHUB_REPOSITORY"]',
      ...sinkLines("agenticworkflows", servers.sink),
    ]]);
  }
  if (servers.github) {
    const g = servers.github;
    const lines = [
      "[mcp_servers.github]",
      `user_agent = ${q(slug(agentInput.ctx.name))}`,
      "startup_timeout_sec = 120",
      "tool_timeout_sec = 60",
    ];
    if (g.mode === "remote") {
      lines.push(
        `url = ${
          q(g.readOnly ? "https://api.githubcopilot.com/mcp-readonly/" : "https://api.githubcopilot.com/mcp/")
        }`,
        'bearer_token_env_var = "GH_AW_GITHUB_TOKEN"',
      );
    } else {
      const env: [string, string][] = [
        ["GITHUB_HOST", "$GITHUB_SERVER_URL"],
        ["GITHUB_PERSONAL_ACCESS_TOKEN", "$GH_AW_GITHUB_TOKEN"],
        ...(g.readOnly ? [["GITHUB_READ_ONLY", "1"] as [string, string]] : []),
        ["GITHUB_TOOLSETS", g.toolsets],
      ];
      lines.push(
        `container = ${q(`ghcr.io/github/github-mcp-server:${VERSIONS.githubMcp}`)}`,
        `env = { ${env.map(([k, v]) => `${q(k)} = ${q(v)}`).join(", ")} }`,
        `env_vars = ${inline(env.map(([k]) => k))}`,
      );
    }
    sections.push(["github", lines]);
  }
  const http = (name: string, port: string, key: string): [string, string[]] => [name, [
    `[mcp_servers.${name}]`,
    'type = "http"',
    `url = "http://host.docker.internal:$${port}"`,
    "",
    `[mcp_servers.${name}.headers]`,
    `Authorization = "$${key}"`,
    ...sinkLines(name, servers.sink),
  ]];
  if (servers.mcpScripts) {
    sections.push(http("mcpscripts", "GH_AW_MCP_SCRIPTS_PORT", "GH_AW_MCP_SCRIPTS_API_KEY"));
  }
  sections.push(http("safeoutputs", "GH_AW_SAFE_OUTPUTS_PORT", "GH_AW_SAFE_OUTPUTS_API_KEY"));
  for (const [name, cfg] of servers.custom) {
    sections.push([name, [...customLines(name, cfg), ...sinkLines(name, servers.sink)]]);
  }
  sections.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return [
    "[history]",
    'persistence = "none"',
    "",
    "[shell_environment_policy]",
    'inherit = "core"',
    includeOnly(servers),
    ...sections.flatMap(([, lines]) => ["", ...lines]),
  ];
}

/** Script lines between the docker command and the gateway JSON: the TOML heredoc. */
export function codexPrelude(agentInput: AgentInput, servers: CodexServers): string[] {
  const delim = heredocDelimiter("MCP_CONFIG", agentInput.frontmatterHash);
  return [
    `cat > "\${RUNNER_TEMP}/gh-aw/mcp-config/config.toml" << ${delim}`,
    ...codexToml(agentInput, servers),
    delim,
    "",
    "# Generate JSON config for MCP gateway",
  ];
}

/** Script lines after the gateway JSON: the AWF OpenAI proxy provider merged into `CODEX_HOME`. */
export function codexTail(agentInput: AgentInput, servers: CodexServers): string[] {
  const delim = heredocDelimiter("CODEX_SHELL_POLICY", agentInput.frontmatterHash);
  const target = "/tmp/gh-aw/mcp-config/config.toml";
  return [
    "",
    "# Sync converter output to writable CODEX_HOME for Codex",
    "mkdir -p /tmp/gh-aw/mcp-config",
    `cat > "${target}" << ${delim}`,
    BARE_BLANK,
    'model_provider = "openai-proxy"',
    BARE_BLANK,
    "[model_providers.openai-proxy]",
    'name = "OpenAI AWF proxy"',
    'base_url = "http://172.30.0.30:10000"',
    'env_key = "OPENAI_API_KEY"',
    "supports_websockets = false",
    "[shell_environment_policy]",
    'inherit = "core"',
    includeOnly(servers),
    delim,
    ...codexConfigMergeLines(target),
  ];
}

/**
 * Appends the converter's config (without its own provider) to the proxy-provider config at `target`, then
 * copies it into `CODEX_HOME` with owner-only permissions.
 */
export function codexConfigMergeLines(target: string): string[] {
  return [
    "awk '",
    "  BEGIN { skip_openai_proxy = 0 }",
    "  /^[[:space:]]*model_provider[[:space:]]*=/ { next }",
    "  /^\\[model_providers\\.openai-proxy\\][[:space:]]*$/ { skip_openai_proxy = 1; next }",
    "  /^\\[/ { skip_openai_proxy = 0 }",
    "  !skip_openai_proxy { print }",
    `' "\${RUNNER_TEMP}/gh-aw/mcp-config/config.toml" >> "${target}"`,
    `chmod 600 "${target}"`,
    'mkdir -p "${CODEX_HOME}"',
    `if [ "${target}" != "\${CODEX_HOME}/config.toml" ]; then cp "${target}" "\${CODEX_HOME}/config.toml"; fi`,
    'chmod 600 "${CODEX_HOME}/config.toml"',
  ];
}
