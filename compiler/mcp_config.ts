/**
 * The MCP gateway's start script: its step env, exports, `docker run` command and the per-engine server
 * configuration (JSON heredoc piped into start_mcp_gateway.cjs), in gh-aw's exact text.
 */
import type { AgentInput } from "./agent_input.ts";
import { VERSIONS } from "./jobs_common.ts";
import { heredocDelimiter } from "./hash.ts";
import { InlineJson, type JsonValue, RawJson, renderJson, ShallowJson } from "./mcp_json.ts";
import { BARE_BLANK, codexPrelude, type CodexServers, codexTail } from "./mcp_codex.ts";

/** The token chain the GitHub MCP server (and the CLI proxy) use unless `github-token` is set. */
export const MCP_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** The resolved `tools.github` settings the gateway needs. */
export interface GithubTool {
  /** `local` (docker), `remote` (hosted) or `gh-proxy` (no MCP server; the CLI proxy serves `gh`). */
  mode: string;
  /** Whether `min-integrity` or `allowed-repos` fixes the guard policy (else it is detected at runtime). */
  guardConfigured: boolean;
  /** Whether a GitHub App mints the token. */
  app: boolean;
  toolsets: string;
  readOnly: boolean;
  minIntegrity?: string;
  /** `allowed-repos`: `all`, `public` or a list of `owner/repo` / `owner/*`. */
  repos?: string | string[];
  /** The token expression for the server. */
  token: string;
  allowed?: string[];
  /** The merged `tools.github` object. */
  raw: Record<string, unknown>;
}

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
}

/**
 * `tools.github.mode`. The corpus shows an imported mode (`shared/gh.md`'s `gh-proxy`) applying only when
 * the workflow declares no GitHub settings of its own, or declares some without a mode; codex, crush and
 * opencode then fall back to the local server (`local-fallback`). A bare `github:` means the local server.
 */
function githubMode(a: McpView, merged: Record<string, unknown>): string {
  const of = (m: Record<string, unknown>) =>
    typeof m.mode === "string" ? m.mode : m.type === "remote" ? "remote" : "local";
  const tools = obj(a.frontmatter.tools);
  if (!("github" in tools)) return of(merged);
  const own = tools.github;
  if (own === null || own === undefined || own === true) return "local";
  if (typeof obj(own).mode === "string" || obj(own).type !== undefined) return of(obj(own));
  const mode = of(merged);
  return mode === "gh-proxy" && ["codex", "crush", "opencode"].includes(a.ctx.engineId)
    ? "local-fallback"
    : mode;
}

/** The default toolsets (`default`), which the local fallback of an imported gh-proxy mode serves. */
const DEFAULT_TOOLSETS = "context,repos,issues,pull_requests";

/** The parts of the agent input the GitHub tool and container list depend on. */
export type McpView = Pick<AgentInput, "ctx" | "merged" | "frontmatter" | "github" | "mcpServers">;

/** The GitHub tool's settings, or undefined when `tools.github: false`. */
export function githubToolConfig(a: McpView): GithubTool | undefined {
  const raw = a.merged.tools.github;
  if (raw === false || !a.github) return undefined;
  const g = obj(raw);
  const resolved = githubMode(a, g);
  const fallback = resolved === "local-fallback";
  const mode = fallback ? "local" : resolved;
  const repos = g["allowed-repos"] ?? g.repos;
  return {
    mode,
    guardConfigured: g["min-integrity"] !== undefined || repos !== undefined,
    app: g.app !== undefined || g["github-app"] !== undefined,
    // On that fallback gh-aw serves the imported (mode-only) settings: the default toolsets.
    toolsets: fallback ? DEFAULT_TOOLSETS : a.github.toolsets,
    readOnly: a.github.readOnly,
    minIntegrity: typeof g["min-integrity"] === "string" ? g["min-integrity"] : undefined,
    repos: Array.isArray(repos) ? repos.map(String) : typeof repos === "string" ? repos : undefined,
    token: typeof g["github-token"] === "string" ? g["github-token"] : MCP_TOKEN,
    allowed: Array.isArray(g.allowed) ? g.allowed.map(String) : undefined,
    raw: g,
  };
}

/** Whether the GitHub MCP server runs behind the gateway (on, and not replaced by the CLI proxy). */
function githubServer(a: McpView): GithubTool | undefined {
  const gh = githubToolConfig(a);
  return gh && gh.mode !== "gh-proxy" ? gh : undefined;
}

/** Whether `tools.cli-proxy` (the MCP-CLI feature) is on. */
export function cliProxyEnabled(a: AgentInput): boolean {
  const v = a.merged.tools["cli-proxy"];
  return v !== undefined && v !== false;
}

/** The `mcp-scripts:` tools, when configured. */
export function mcpScripts(a: AgentInput): Record<string, Record<string, unknown>> | undefined {
  const m = obj(a.mcpScripts ?? a.frontmatter["mcp-scripts"]);
  return Object.keys(m).length > 0 ? m as Record<string, Record<string, unknown>> : undefined;
}

function agenticWorkflows(a: AgentInput): boolean {
  const v = a.merged.tools["agentic-workflows"];
  return v !== undefined && v !== false;
}

/** Whether the engine gets copilot's config dialect (`\${VAR}` references, explicit `"type": "stdio"`). */
function copilotStyle(a: AgentInput): boolean {
  return a.ctx.engineId === "copilot";
}

/** Variables an expression-bearing value needs, each mapped to the expression that sets it. */
function expressionVars(value: string): { text: string; vars: [string, string][] } {
  const vars: [string, string][] = [];
  const text = value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (whole, inner: string) => {
    const names = [...inner.matchAll(/(?<![\w.])(?:secrets|env|vars)\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) =>
      m[1]
    );
    if (names.length === 0) return whole;
    for (const n of names) if (!vars.some(([k]) => k === n)) vars.push([n, whole]);
    return `\\\${${names[0]}}`;
  });
  return { text, vars };
}

interface CustomServer {
  json: Record<string, JsonValue>;
  env: [string, string][];
}

/** A `mcp-servers:` entry rendered for the gateway, with the step env its expressions need. */
function customServer(a: AgentInput, cfg: Record<string, unknown>): CustomServer {
  const env: [string, string][] = [];
  const add = (vars: [string, string][]) => {
    for (const v of vars) if (!env.some(([k]) => k === v[0])) env.push(v);
  };
  const s: Record<string, JsonValue> = {};
  const allowed = Array.isArray(cfg.allowed) ? cfg.allowed.map(String) : undefined;
  const tools = allowed ?? (copilotStyle(a) ? ["*"] : undefined);
  const envCfg = obj(cfg.env);
  if (cfg.url !== undefined) {
    s.type = "http";
    // The gateway runs in a container: the runner's localhost is host.docker.internal there.
    s.url = String(cfg.url).replace("//localhost:", "//host.docker.internal:");
    const headers = obj(cfg.headers);
    if (Object.keys(headers).length > 0) {
      const h: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(headers)) {
        const e = expressionVars(String(v));
        h[k] = e.text;
        add(e.vars);
      }
      s.headers = h;
    }
    if (tools) s.tools = tools;
    for (const [k, v] of Object.entries(envCfg)) {
      const vars = expressionVars(String(v)).vars;
      add(vars.length > 0 ? vars : [[k, String(v)]]);
    }
    if (env.length > 0) {
      const e: Record<string, JsonValue> = {};
      for (const [k] of [...env].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) e[k] = `\\\${${k}}`;
      s.env = e;
    }
  } else {
    s.type = "stdio";
    const command = typeof cfg.command === "string" ? cfg.command : undefined;
    const args = Array.isArray(cfg.args) ? cfg.args.map(String) : undefined;
    if (command === "npx" || command === "uvx") {
      s.container = command === "npx" ? "node:lts-alpine" : "python:alpine";
      s.entrypoint = command;
      if (args) s.entrypointArgs = args;
    } else {
      const image = String(cfg.container ?? cfg.image ?? "");
      s.container = cfg.version !== undefined ? `${image}:${cfg.version}` : image;
      if (cfg.entrypoint !== undefined) s.entrypoint = String(cfg.entrypoint);
      if (Array.isArray(cfg.entrypointArgs)) s.entrypointArgs = cfg.entrypointArgs.map(String);
      if (Array.isArray(cfg.mounts)) s.mounts = cfg.mounts.map(String);
      if (args) s.args = args;
    }
    if (tools) s.tools = tools;
    const keys = Object.keys(envCfg).sort();
    if (keys.length > 0) {
      const e: Record<string, JsonValue> = {};
      for (const k of keys) {
        const raw = String(envCfg[k]);
        const x = expressionVars(raw);
        // Copilot's dialect escapes every reference; the others expand only whole-value expressions.
        if (copilotStyle(a)) e[k] = x.text;
        else {e[k] = x.vars.length > 0 && /^\$\{\{\s*secrets\.[^}]*\}\}$/.test(raw.trim())
            ? `\${${x.vars[0][0]}}`
            : raw;}
        add(x.vars);
      }
      s.env = e;
    }
  }
  return { json: s, env };
}

/** The `guard-policies` of servers that can write (every server but GitHub's), when GitHub is on. */
function writeSink(gh: GithubTool | undefined): JsonValue | undefined {
  if (!gh) return undefined;
  const accept = Array.isArray(gh.repos)
    ? gh.repos.map((r) => `private:${r.endsWith("/*") ? r.slice(0, -2) : r}`)
    : ["*"];
  return { "write-sink": { accept } };
}

function githubJson(a: AgentInput, gh: GithubTool): Record<string, JsonValue> {
  const cp = copilotStyle(a);
  const ref = (v: string) => (cp ? `\\\${${v}}` : `$${v}`);
  const s: Record<string, JsonValue> = {};
  if (gh.mode === "remote") {
    s.type = "http";
    s.url = "https://api.githubcopilot.com/mcp/";
    s.headers = {
      Authorization: `Bearer ${ref(cp ? "GITHUB_PERSONAL_ACCESS_TOKEN" : "GITHUB_MCP_SERVER_TOKEN")}`,
      ...(gh.readOnly ? { "X-MCP-Readonly": "true" } : {}),
      "X-MCP-Toolsets": gh.toolsets,
    };
    if (cp) {
      if (gh.allowed) s.tools = gh.allowed;
      s.env = {
        GITHUB_PERSONAL_ACCESS_TOKEN: ref("GITHUB_MCP_SERVER_TOKEN"),
        GITHUB_HOST: ref("GITHUB_SERVER_URL"),
      };
    }
  } else {
    if (cp) s.type = "stdio";
    s.container = `ghcr.io/github/github-mcp-server:${VERSIONS.githubMcp}`;
    if (gh.allowed && cp) s.tools = gh.allowed;
    s.env = {
      GITHUB_HOST: ref("GITHUB_SERVER_URL"),
      GITHUB_PERSONAL_ACCESS_TOKEN: ref("GITHUB_MCP_SERVER_TOKEN"),
      ...(gh.readOnly ? { GITHUB_READ_ONLY: "1" } : {}),
      GITHUB_TOOLSETS: gh.toolsets,
    };
  }
  if (gh.guardConfigured) {
    const out = (k: string) => new RawJson(`\${{ steps.parse-guard-vars.outputs.${k} }}`);
    s["guard-policies"] = {
      "allow-only": {
        "approval-labels": out("approval_labels"),
        "blocked-users": out("blocked_users"),
        "min-integrity": gh.minIntegrity ?? "none",
        repos: gh.repos ?? "all",
        "trusted-users": out("trusted_users"),
      },
    };
  } else {
    s["guard-policies"] = {
      "allow-only": { "min-integrity": "$GITHUB_MCP_GUARD_MIN_INTEGRITY", repos: "$GITHUB_MCP_GUARD_REPOS" },
    };
  }
  return s;
}

/** The gateway's servers (sorted by name) and the step env their expressions need. */
function servers(a: AgentInput): { json: Record<string, JsonValue>; env: [string, string][] } {
  const cp = copilotStyle(a);
  const ref = (v: string) => (cp ? `\\\${${v}}` : `$${v}`);
  const gh = githubToolConfig(a);
  const sink = writeSink(gh);
  const list: [string, Record<string, JsonValue>][] = [];
  const env: [string, string][] = [];
  const http = (port: string, key: string): Record<string, JsonValue> => ({
    type: "http",
    url: `http://host.docker.internal:$${port}`,
    headers: { Authorization: ref(key) },
  });
  if (agenticWorkflows(a)) {
    const s: Record<string, JsonValue> = {};
    if (cp) s.type = "stdio";
    s.container = "localhost/gh-aw:dev";
    s.mounts = new InlineJson(["\\${GITHUB_WORKSPACE}:\\${GITHUB_WORKSPACE}:rw", "/tmp/gh-aw:/tmp/gh-aw:rw"]);
    s.args = new InlineJson(["--network", "host", "-w", "\\${GITHUB_WORKSPACE}"]);
    s.env = {
      DEBUG: "*",
      GITHUB_TOKEN: ref("GITHUB_TOKEN"),
      GITHUB_ACTOR: ref("GITHUB_ACTOR"),
      GITHUB_REPOSITORY: ref("GITHUB_REPOSITORY"),
    };
    list.push(["agenticworkflows", s]);
  }
  const ghs = githubServer(a);
  if (ghs) list.push(["github", githubJson(a, ghs)]);
  if (mcpScripts(a)) list.push(["mcpscripts", http("GH_AW_MCP_SCRIPTS_PORT", "GH_AW_MCP_SCRIPTS_API_KEY")]);
  list.push(["safeoutputs", http("GH_AW_SAFE_OUTPUTS_PORT", "GH_AW_SAFE_OUTPUTS_API_KEY")]);
  const custom = new Set<string>();
  for (const [name, cfg] of Object.entries(a.mcpServers)) {
    const c = customServer(a, cfg);
    list.push([name, c.json]);
    custom.add(name);
    for (const v of c.env) if (!env.some(([k]) => k === v[0])) env.push(v);
  }
  list.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const json: Record<string, JsonValue> = {};
  for (const [name, s] of list) {
    if (name !== "github" && sink) s["guard-policies"] = sink;
    json[name] = custom.has(name) && a.ctx.engineId === "codex" ? new ShallowJson(s) : s;
  }
  return { json, env };
}

/** The names mounted as CLIs (`GH_AW_MCP_CLI_SERVERS`), when the MCP-CLI feature is on. */
export function cliServerNames(a: AgentInput): string[] {
  if (!cliProxyEnabled(a)) return [];
  return Object.keys(servers(a).json).filter((n) => n !== "github");
}

/** The "Start MCP Gateway" step env, sorted by name. */
export function gatewayEnv(a: AgentInput): [string, string][] {
  const env = new Map<string, string>();
  const gh = githubToolConfig(a);
  if (a.safeOutputs.types.includes("upload-asset")) {
    for (const k of ["GH_AW_ASSETS_ALLOWED_EXTS", "GH_AW_ASSETS_BRANCH", "GH_AW_ASSETS_MAX_SIZE_KB"]) {
      env.set(k, `\${{ env.${k} }}`);
    }
  }
  const scripts = mcpScripts(a);
  if (scripts) {
    env.set("GH_AW_MCP_SCRIPTS_API_KEY", "${{ steps.mcp-scripts-start.outputs.api_key }}");
    env.set("GH_AW_MCP_SCRIPTS_PORT", "${{ steps.mcp-scripts-start.outputs.port }}");
    // Secrets the script tools read reach them through the gateway.
    for (const tool of Object.values(scripts)) {
      for (const [k, v] of Object.entries(obj(obj(tool).env))) {
        if (typeof v === "string" && v.includes("secrets.")) env.set(k, v);
      }
    }
  }
  env.set("GH_AW_SAFE_OUTPUTS", "${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}");
  env.set("GH_AW_SAFE_OUTPUTS_API_KEY", "${{ steps.safe-outputs-start.outputs.api_key }}");
  env.set("GH_AW_SAFE_OUTPUTS_PORT", "${{ steps.safe-outputs-start.outputs.port }}");
  if (gh && githubServer(a) && !gh.guardConfigured && !gh.app) {
    env.set(
      "GITHUB_MCP_GUARD_MIN_INTEGRITY",
      "${{ steps.determine-automatic-lockdown.outputs.min_integrity }}",
    );
    env.set("GITHUB_MCP_GUARD_REPOS", "${{ steps.determine-automatic-lockdown.outputs.repos }}");
  }
  if (githubServer(a)) env.set("GITHUB_MCP_SERVER_TOKEN", gh!.token);
  if (agenticWorkflows(a)) env.set("GITHUB_TOKEN", "${{ secrets.GITHUB_TOKEN }}");
  if (a.ctx.engineId === "codex") env.set("CODEX_HOME", "/tmp/gh-aw/mcp-config");
  for (const [k, v] of servers(a).env) if (!env.has(k)) env.set(k, v);
  return [...env.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}

/** Variables every gateway container receives (before the workflow-specific ones). */
const BASE_DOCKER_ENV = [
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
function dockerEnv(a: AgentInput): string[] {
  const out = [...BASE_DOCKER_ENV];
  const gh = githubServer(a);
  if (gh?.mode === "remote" && copilotStyle(a)) out.push("GITHUB_PERSONAL_ACCESS_TOKEN");
  if (mcpScripts(a)) out.push("GH_AW_MCP_SCRIPTS_PORT", "GH_AW_MCP_SCRIPTS_API_KEY");
  out.push("GH_AW_SAFE_OUTPUTS_PORT", "GH_AW_SAFE_OUTPUTS_API_KEY");
  if (a.ctx.otlp) {
    out.push("GITHUB_AW_OTEL_TRACE_ID", "GITHUB_AW_OTEL_PARENT_SPAN_ID", "OTEL_EXPORTER_OTLP_HEADERS");
  }
  const added = new Set(out.map((e) => e.split("=")[0]));
  for (const [k] of gatewayEnv(a)) if (!added.has(k)) out.push(k);
  return out;
}

function dockerCommand(a: AgentInput): string {
  const q = (v: string) => `'"\${${v}}"'`;
  return "docker run -i --rm --network host --add-host host.docker.internal:127.0.0.1" +
    ` --user ${q("MCP_GATEWAY_UID")}:${q("MCP_GATEWAY_GID")} --group-add ${q("DOCKER_SOCK_GID")}` +
    ` -v ${q("DOCKER_SOCK_PATH")}:/var/run/docker.sock` +
    dockerEnv(a).map((e) => ` -e ${e}`).join("") +
    " -v /tmp/gh-aw/mcp-payloads:/tmp/gh-aw/mcp-payloads:rw -v /opt:/opt:ro -v /tmp:/tmp:rw" +
    ` -v ${q("GITHUB_WORKSPACE")}:${q("GITHUB_WORKSPACE")}:rw ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}`;
}

/** The configuration piped into start_mcp_gateway.cjs. */
export function gatewayConfigJson(a: AgentInput): string {
  const gateway: Record<string, JsonValue> = {
    port: new RawJson("$MCP_GATEWAY_PORT"),
    domain: "${MCP_GATEWAY_DOMAIN}",
    apiKey: "${MCP_GATEWAY_API_KEY}",
    payloadDir: "${MCP_GATEWAY_PAYLOAD_DIR}",
  };
  const keepalive = obj(obj(a.frontmatter.sandbox).mcp)["keepalive-interval"];
  if (typeof keepalive === "number") gateway.keepaliveInterval = keepalive;
  if (a.ctx.otlp) {
    gateway.opentelemetry = {
      endpoint: "${OTEL_EXPORTER_OTLP_ENDPOINT}",
      traceId: "${GITHUB_AW_OTEL_TRACE_ID}",
      spanId: "${GITHUB_AW_OTEL_PARENT_SPAN_ID}",
    };
  }
  return renderJson({ mcpServers: servers(a).json, gateway });
}

/** The full `run:` text of "Start MCP Gateway". */
export function gatewayScript(a: AgentInput): string {
  const delim = heredocDelimiter("MCP_CONFIG", a.frontmatterHash);
  const lines = [
    "set -eo pipefail",
    'mkdir -p "${RUNNER_TEMP}/gh-aw/mcp-config"',
    "",
    "# Export gateway environment variables for MCP config and gateway script",
    'export MCP_GATEWAY_PORT="8080"',
    'export MCP_GATEWAY_DOMAIN="host.docker.internal"',
    'export MCP_GATEWAY_HOST_DOMAIN="localhost"',
    "MCP_GATEWAY_API_KEY=$(openssl rand -base64 45 | tr -d '/+=')",
    'echo "::add-mask::${MCP_GATEWAY_API_KEY}"',
    "export MCP_GATEWAY_API_KEY",
    'export MCP_GATEWAY_PAYLOAD_DIR="/tmp/gh-aw/mcp-payloads"',
    'mkdir -p "${MCP_GATEWAY_PAYLOAD_DIR}"',
    'export MCP_GATEWAY_PAYLOAD_SIZE_THRESHOLD="524288"',
    'export DEBUG="*"',
    "",
    `export GH_AW_ENGINE="${a.ctx.engineId}"`,
  ];
  const cli = cliServerNames(a);
  if (cli.length > 0) {
    const list = JSON.stringify(cli);
    lines.push(
      `export GH_AW_MCP_CLI_SERVERS='${list}'`,
      `echo GH_AW_MCP_CLI_SERVERS='${list}' >> "$GITHUB_ENV"`,
    );
  }
  if (githubServer(a)?.mode === "remote" && copilotStyle(a)) {
    lines.push('export GITHUB_PERSONAL_ACCESS_TOKEN="$GITHUB_MCP_SERVER_TOKEN"');
  }
  lines.push(
    "MCP_GATEWAY_UID=$(id -u 2>/dev/null || echo '0')",
    "MCP_GATEWAY_GID=$(id -g 2>/dev/null || echo '0')",
    'case "${DOCKER_HOST:-}" in',
    '  unix://* ) DOCKER_SOCK_PATH="${DOCKER_HOST#unix://}" ;;',
    '  /* ) DOCKER_SOCK_PATH="$DOCKER_HOST" ;;',
    "  * ) DOCKER_SOCK_PATH=/var/run/docker.sock ;;",
    "esac",
    "DOCKER_SOCK_GID=$(stat -c '%g' \"$DOCKER_SOCK_PATH\" 2>/dev/null || echo '0')",
    `export MCP_GATEWAY_DOCKER_COMMAND='${dockerCommand(a)}'`,
    "",
  );
  // Pi reads no gateway config of its own: the script ends after the docker command.
  if (a.ctx.engineId === "pi") return lines.join("\n") + "\n";
  const codex = a.ctx.engineId === "codex" ? codexServers(a) : undefined;
  if (a.ctx.engineId === "copilot") lines.push("mkdir -p /home/runner/.copilot");
  if (codex) lines.push(...codexPrelude(a, codex));
  lines.push(
    "GH_AW_NODE=$(which node 2>/dev/null || command -v node 2>/dev/null || echo node)",
    `cat << ${delim} | "$GH_AW_NODE" "\${RUNNER_TEMP}/gh-aw/actions/start_mcp_gateway.cjs"`,
    gatewayConfigJson(a),
    delim,
  );
  if (codex) lines.push(...codexTail(a, codex));
  return lines.join("\n") + "\n";
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
function codexServers(a: AgentInput): CodexServers {
  const gh = githubServer(a);
  const sink = writeSink(githubToolConfig(a)) as { "write-sink": { accept: string[] } } | undefined;
  return {
    agenticWorkflows: agenticWorkflows(a),
    github: gh ? { mode: gh.mode, readOnly: gh.readOnly, toolsets: gh.toolsets } : undefined,
    mcpScripts: mcpScripts(a) !== undefined,
    custom: Object.entries(a.mcpServers),
    sink: sink?.["write-sink"].accept,
  };
}

/** The image a `mcp-servers:` entry runs (`npx`/`uvx` commands run in node/python images). */
function serverImage(cfg: Record<string, unknown>): string | undefined {
  if (cfg.url !== undefined) return undefined;
  if (cfg.command === "npx") return "node:lts-alpine";
  if (cfg.command === "uvx") return "python:alpine";
  const image = cfg.container ?? cfg.image;
  if (typeof image !== "string") return undefined;
  return cfg.version !== undefined ? `${image}:${cfg.version}` : image;
}

/**
 * Images the agent job pulls ("Download container images", the header and the manifest), sorted: the
 * firewall (plus its CLI proxy in gh-proxy mode), the gateway, the GitHub server (unless hosted) and every custom
 * server's image. `node:lts-alpine` is always listed (the digest-pinned form, see VERSIONS.nodeImage).
 */
export function mcpContainerImages(v: McpView): string[] {
  const gh = githubToolConfig(v);
  const images = new Set<string>([
    `ghcr.io/github/gh-aw-firewall/agent:${VERSIONS.awfImageTag}`,
    `ghcr.io/github/gh-aw-firewall/api-proxy:${VERSIONS.awfImageTag}`,
    ...(gh?.mode === "gh-proxy" ? [`ghcr.io/github/gh-aw-firewall/cli-proxy:${VERSIONS.awfImageTag}`] : []),
    `ghcr.io/github/gh-aw-firewall/squid:${VERSIONS.awfImageTag}`,
    `ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}`,
    // Listed in gh-proxy mode too (the proxy serves the same image); the hosted server needs none.
    ...(gh && gh.mode !== "remote" ? [`ghcr.io/github/github-mcp-server:${VERSIONS.githubMcp}`] : []),
  ]);
  for (const cfg of Object.values(v.mcpServers)) {
    const image = serverImage(cfg);
    if (image && image !== "node:lts-alpine") images.add(image);
  }
  images.add(VERSIONS.nodeImage);
  return [...images].sort();
}
