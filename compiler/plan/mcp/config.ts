/**
 * The MCP gateway's server configuration (the JSON piped into start_mcp_gateway.cjs) per engine dialect,
 * the step env its expressions need, and the servers mounted as CLIs.
 */
import type { AgentInput } from "../agent/input.ts";
import { githubMcpImage, nodeImage } from "./images.ts";
import { InlineJson, type JsonValue, RawJson, renderJson, ShallowJson } from "./json.ts";
import {
  customGithubServer,
  githubServer,
  type GithubTool,
  githubToolConfig,
  PLAYWRIGHT_IMAGE,
  playwrightServer,
} from "./github.ts";
import { mappingOf } from "../../source/values.ts";
import { targetOf } from "../steps.ts";

/** Whether `tools.cli-proxy` (the MCP-CLI feature) is on. */
export function cliProxyEnabled(agentInput: AgentInput): boolean {
  const v = agentInput.merged.tools["cli-proxy"];
  return v !== undefined && v !== false;
}

/** The `mcp-scripts:` tools, when configured. */
export function mcpScripts(agentInput: AgentInput): Record<string, Record<string, unknown>> | undefined {
  const m = agentInput.mcpScripts ?? agentInput.frontmatter["mcp-scripts"] ?? {};
  return Object.keys(m).length > 0 ? m : undefined;
}

/** Whether `tools.agentic-workflows` is on. */
export function agenticWorkflows(agentInput: AgentInput): boolean {
  const v = agentInput.merged.tools["agentic-workflows"];
  return v !== undefined && v !== false;
}

/** Whether the engine gets copilot's config dialect (`\${VAR}` references, explicit `"type": "stdio"`). */
export function copilotStyle(agentInput: AgentInput): boolean {
  return agentInput.ctx.engine.mcp.varRefs;
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
function customServer(agentInput: AgentInput, cfg: Record<string, unknown>): CustomServer {
  const env: [string, string][] = [];
  const add = (vars: [string, string][]) => {
    for (const v of vars) if (!env.some(([k]) => k === v[0])) env.push(v);
  };
  const s: Record<string, JsonValue> = {};
  const allowed = Array.isArray(cfg.allowed) ? cfg.allowed.map(String) : undefined;
  const tools = allowed ?? (copilotStyle(agentInput) ? ["*"] : undefined);
  const envCfg = mappingOf(cfg.env);
  if (cfg.url !== undefined) {
    s.type = "http";
    // The gateway runs in a container: the runner's localhost is host.docker.internal there.
    s.url = String(cfg.url).replace("//localhost:", "//host.docker.internal:");
    const headers = mappingOf(cfg.headers);
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
        if (copilotStyle(agentInput)) e[k] = x.text;
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
export function writeSink(gh: GithubTool | undefined): JsonValue | undefined {
  if (!gh) return undefined;
  const accept = Array.isArray(gh.repos)
    ? gh.repos.map((r) => `private:${r.endsWith("/*") ? r.slice(0, -2) : r}`)
    : ["*"];
  return { "write-sink": { accept } };
}

function githubJson(agentInput: AgentInput, gh: GithubTool): Record<string, JsonValue> {
  const cp = copilotStyle(agentInput);
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
    s.container = githubMcpImage(agentInput.ctx);
    if (gh.allowed && cp) s.tools = gh.allowed;
    const style = targetOf(agentInput.ctx).jobs.agent.gateway;
    // Releases with a features flag expand these in the gateway itself (no escaping).
    const local = (v: string) => (style ? `\${${v}}` : ref(v));
    s.env = {
      ...(style ? { GITHUB_FEATURES: style.githubFeatures } : {}),
      GITHUB_HOST: local("GITHUB_SERVER_URL"),
      GITHUB_PERSONAL_ACCESS_TOKEN: local("GITHUB_MCP_SERVER_TOKEN"),
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

/** The Playwright MCP server: a browser in its own container, writing its output under the MCP logs. */
function playwrightJson(agentInput: AgentInput): Record<string, JsonValue> {
  const s: Record<string, JsonValue> = {};
  if (copilotStyle(agentInput)) s.type = "stdio";
  s.container = PLAYWRIGHT_IMAGE;
  s.args = new InlineJson([
    "--init",
    "--network",
    "host",
    "--security-opt",
    "seccomp=unconfined",
    "--ipc=host",
  ]);
  s.entrypointArgs = new InlineJson(["--output-dir", "/tmp/gh-aw/mcp-logs/playwright", "--no-sandbox"]);
  s.mounts = new InlineJson(["/tmp/gh-aw/mcp-logs:/tmp/gh-aw/mcp-logs:rw"]);
  return s;
}

/** Variables the safe-outputs server's container receives, in the order the release writes them. */
const SAFE_OUTPUTS_SERVER_ENV = [
  "DEFAULT_BRANCH",
  "GH_AW_ASSETS_ALLOWED_EXTS",
  "GH_AW_ASSETS_BRANCH",
  "GH_AW_ASSETS_MAX_SIZE_KB",
  "GH_AW_MCP_LOG_DIR",
  "GH_AW_SAFE_OUTPUTS",
  "GH_AW_SAFE_OUTPUTS_CONFIG_PATH",
  "GH_AW_SAFE_OUTPUTS_TOOLS_PATH",
  "GH_AW_POLICY_ALLOW_CREATE_PULL_REQUEST",
  "GITHUB_EVENT_NAME",
  "GITHUB_EVENT_PATH",
  "GITHUB_REPOSITORY",
  "GITHUB_SHA",
  "GITHUB_TOKEN",
  "GITHUB_WORKSPACE",
  "RUNNER_TEMP",
];

/** The safe-outputs MCP server as a stdio container of the gateway (the release's Node.js image). */
function safeOutputsStdio(agentInput: AgentInput, ref: (v: string) => string): Record<string, JsonValue> {
  const s: Record<string, JsonValue> = {};
  if (copilotStyle(agentInput)) s.type = "stdio";
  s.container = nodeImage(agentInput.ctx);
  s.mounts = new InlineJson([
    "\\${GITHUB_WORKSPACE}:\\${GITHUB_WORKSPACE}:rw",
    "${RUNNER_TEMP}/gh-aw/safeoutputs:${RUNNER_TEMP}/gh-aw/safeoutputs:rw",
    "/tmp/gh-aw:/tmp/gh-aw:rw",
  ]);
  s.args = new InlineJson(["-w", "\\${GITHUB_WORKSPACE}"]);
  s.entrypoint = "sh";
  s.entrypointArgs = new InlineJson(["-c", "sh ${RUNNER_TEMP}/gh-aw/safeoutputs/start_safe_outputs_mcp.sh"]);
  const env: Record<string, JsonValue> = { DEBUG: "*" };
  for (const k of SAFE_OUTPUTS_SERVER_ENV) env[k] = ref(k);
  s.env = env;
  return s;
}

/** The gateway's servers (sorted by name) and the step env their expressions need. */
function servers(agentInput: AgentInput): { json: Record<string, JsonValue>; env: [string, string][] } {
  const cp = copilotStyle(agentInput);
  const ref = (v: string) => (cp ? `\\\${${v}}` : `$${v}`);
  const gh = githubToolConfig(agentInput);
  const sink = writeSink(gh);
  const list: [string, Record<string, JsonValue>][] = [];
  const env: [string, string][] = [];
  const http = (port: string, key: string): Record<string, JsonValue> => ({
    type: "http",
    url: `http://host.docker.internal:$${port}`,
    headers: { Authorization: ref(key) },
  });
  if (agenticWorkflows(agentInput)) {
    const s: Record<string, JsonValue> = {};
    if (cp) s.type = "stdio";
    const workspace = "\\${GITHUB_WORKSPACE}:\\${GITHUB_WORKSPACE}:rw";
    if (agentInput.ctx.actionMode === "dev") {
      // Dev mode runs the image built from source (agenticWorkflowsBuildSteps).
      s.container = "localhost/gh-aw:dev";
      s.mounts = new InlineJson([workspace, "/tmp/gh-aw:/tmp/gh-aw:rw"]);
    } else {
      // Release mode runs the installed binary in alpine (from gh-aw's own tests; not in the dev corpus).
      s.container = "alpine:latest";
      s.entrypoint = "${RUNNER_TEMP}/gh-aw/gh-aw";
      s.entrypointArgs = new InlineJson(["mcp-server", "--validate-actor"]);
      s.mounts = new InlineJson([
        "${RUNNER_TEMP}/gh-aw:${RUNNER_TEMP}/gh-aw:ro",
        "/usr/bin/gh:/usr/bin/gh:ro",
        workspace,
        "/tmp/gh-aw:/tmp/gh-aw:rw",
      ]);
    }
    s.args = new InlineJson(["--network", "host", "-w", "\\${GITHUB_WORKSPACE}"]);
    s.env = {
      DEBUG: "*",
      GITHUB_TOKEN: ref("GITHUB_TOKEN"),
      GITHUB_ACTOR: ref("GITHUB_ACTOR"),
      GITHUB_REPOSITORY: ref("GITHUB_REPOSITORY"),
    };
    list.push(["agenticworkflows", s]);
  }
  const ghs = githubServer(agentInput);
  if (ghs) list.push(["github", githubJson(agentInput, ghs)]);
  if (playwrightServer(agentInput)) list.push(["playwright", playwrightJson(agentInput)]);
  if (mcpScripts(agentInput)) {
    list.push(["mcpscripts", http("GH_AW_MCP_SCRIPTS_PORT", "GH_AW_MCP_SCRIPTS_API_KEY")]);
  }
  const style = targetOf(agentInput.ctx).jobs.agent.gateway;
  list.push([
    "safeoutputs",
    style?.safeOutputsStdio
      ? safeOutputsStdio(agentInput, ref)
      : http("GH_AW_SAFE_OUTPUTS_PORT", "GH_AW_SAFE_OUTPUTS_API_KEY"),
  ]);
  const custom = new Set<string>();
  for (const [name, cfg] of Object.entries(agentInput.mcpServers)) {
    // The built-in server stands in for a custom `github` entry where the release merges it into the tool.
    if (name === "github" && customGithubServer(agentInput)) continue;
    const c = customServer(agentInput, cfg);
    list.push([name, c.json]);
    custom.add(name);
    for (const v of c.env) if (!env.some(([k]) => k === v[0])) env.push(v);
  }
  list.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const json: Record<string, JsonValue> = {};
  const visibleSink = sink && style?.sinkVisibility
    ? {
      "write-sink": {
        ...(sink as { "write-sink": Record<string, JsonValue> })["write-sink"],
        "sink-visibility": "${GH_AW_SINK_VISIBILITY}",
      },
    }
    : sink;
  for (const [name, s] of list) {
    if (name !== "github" && visibleSink) s["guard-policies"] = visibleSink;
    json[name] = custom.has(name) && agentInput.ctx.engine.mcp.format === "toml" ? new ShallowJson(s) : s;
  }
  return { json, env };
}

/** The names mounted as CLIs (`GH_AW_MCP_CLI_SERVERS`), when the MCP-CLI feature is on. */
export function cliServerNames(agentInput: AgentInput): string[] {
  if (!cliProxyEnabled(agentInput)) return [];
  const all = targetOf(agentInput.ctx).jobs.mountAllMcpServers;
  return Object.keys(servers(agentInput).json).filter((n) => all || n !== "github");
}

/**
 * Whether the agent job runs "Determine automatic lockdown mode for GitHub MCP Server": the GitHub tool is on
 * (not as a GitHub App) and its guard policy is left to the repository's visibility — or, in releases that
 * bound write sinks by visibility, whatever the policy.
 */
export function lockdownDetected(agentInput: AgentInput): boolean {
  const gh = githubToolConfig(agentInput);
  if (!gh || gh.app) return false;
  return !gh.guardConfigured || targetOf(agentInput.ctx).jobs.agent.gateway?.sinkVisibility === true;
}

/** The "Start MCP Gateway" step env, sorted by name. */
export function gatewayEnv(agentInput: AgentInput): [string, string][] {
  const env = new Map<string, string>();
  const gh = githubToolConfig(agentInput);
  if (agentInput.safeOutputs.types.includes("upload-asset")) {
    for (const k of ["GH_AW_ASSETS_ALLOWED_EXTS", "GH_AW_ASSETS_BRANCH", "GH_AW_ASSETS_MAX_SIZE_KB"]) {
      env.set(k, `\${{ env.${k} }}`);
    }
  }
  const scripts = mcpScripts(agentInput);
  if (scripts) {
    env.set("GH_AW_MCP_SCRIPTS_API_KEY", "${{ steps.mcp-scripts-start.outputs.api_key }}");
    env.set("GH_AW_MCP_SCRIPTS_PORT", "${{ steps.mcp-scripts-start.outputs.port }}");
    // Secrets the script tools read reach them through the gateway.
    for (const tool of Object.values(scripts)) {
      for (const [k, v] of Object.entries(mappingOf(mappingOf(tool).env))) {
        if (typeof v === "string" && v.includes("secrets.")) env.set(k, v);
      }
    }
  }
  const style = targetOf(agentInput.ctx).jobs.agent.gateway;
  env.set("GH_AW_SAFE_OUTPUTS", "${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}");
  if (style?.safeOutputsStdio) {
    env.set(
      "GH_AW_POLICY_ALLOW_CREATE_PULL_REQUEST",
      "${{ vars.GH_AW_POLICY_ALLOW_CREATE_PULL_REQUEST || 'true' }}",
    );
    for (const k of ["GH_AW_SAFE_OUTPUTS_CONFIG_PATH", "GH_AW_SAFE_OUTPUTS_TOOLS_PATH"]) {
      env.set(k, `\${{ steps.set-runtime-paths.outputs.${k} }}`);
    }
    // The safe-outputs server's container reads the workflow token.
    env.set("GITHUB_TOKEN", "${{ secrets.GITHUB_TOKEN }}");
  } else {
    env.set("GH_AW_SAFE_OUTPUTS_API_KEY", "${{ steps.safe-outputs-start.outputs.api_key }}");
    env.set("GH_AW_SAFE_OUTPUTS_PORT", "${{ steps.safe-outputs-start.outputs.port }}");
  }
  if (gh && style?.sinkVisibility && lockdownDetected(agentInput)) {
    env.set("GH_AW_SINK_VISIBILITY", "${{ steps.determine-automatic-lockdown.outputs.visibility }}");
  }
  if (gh && githubServer(agentInput) && !gh.guardConfigured && !gh.app) {
    env.set(
      "GITHUB_MCP_GUARD_MIN_INTEGRITY",
      "${{ steps.determine-automatic-lockdown.outputs.min_integrity }}",
    );
    env.set("GITHUB_MCP_GUARD_REPOS", "${{ steps.determine-automatic-lockdown.outputs.repos }}");
  }
  if (githubServer(agentInput)) env.set("GITHUB_MCP_SERVER_TOKEN", gh!.token);
  if (agenticWorkflows(agentInput)) env.set("GITHUB_TOKEN", "${{ secrets.GITHUB_TOKEN }}");
  for (const [k, v] of Object.entries(agentInput.ctx.engine.mcp.gatewayEnv ?? {})) env.set(k, v);
  for (const [k, v] of servers(agentInput).env) if (!env.has(k)) env.set(k, v);
  return [...env.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}

/** The configuration piped into start_mcp_gateway.cjs. */
export function gatewayConfigJson(agentInput: AgentInput): string {
  const gateway: Record<string, JsonValue> = {
    port: new RawJson("$MCP_GATEWAY_PORT"),
    domain: "${MCP_GATEWAY_DOMAIN}",
    apiKey: "${MCP_GATEWAY_API_KEY}",
    payloadDir: "${MCP_GATEWAY_PAYLOAD_DIR}",
  };
  const keepalive = mappingOf(mappingOf(agentInput.frontmatter.sandbox).mcp)["keepalive-interval"];
  if (typeof keepalive === "number") gateway.keepaliveInterval = keepalive;
  const style = targetOf(agentInput.ctx).jobs.agent.gateway;
  if (style) gateway.startupTimeout = style.startupTimeout;
  if (agentInput.ctx.otlp) {
    gateway.opentelemetry = {
      endpoint: "${OTEL_EXPORTER_OTLP_ENDPOINT}",
      traceId: "${GITHUB_AW_OTEL_TRACE_ID}",
      spanId: "${GITHUB_AW_OTEL_PARENT_SPAN_ID}",
    };
  }
  return renderJson({ mcpServers: servers(agentInput).json, gateway });
}
