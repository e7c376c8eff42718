/**
 * The `mcp-scripts:` server of the agent job: its tools.json and HTTP server script, one shell file per
 * tool, the port/API-key step, the server start, and the log summary — in gh-aw's exact text.
 */
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { scriptBody } from "../steps.ts";
import { heredocDelimiter } from "../../source/hash.ts";
import { litPadded, plain, sq, type YValue } from "../../yaml/writer.ts";
import { mcpScripts } from "./config.ts";
import { mappingOf } from "../../source/values.ts";

const LOG_DIR = "${RUNNER_TEMP}/gh-aw/mcp-scripts/logs";
const DIR = "${RUNNER_TEMP}/gh-aw/mcp-scripts";

/** JSON as Go's encoder writes it: `<`, `>` and `&` escaped, two-space indentation. */
function goJson(v: unknown): string {
  return JSON.stringify(v, null, 2).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(
    /&/g,
    "\\u0026",
  );
}

function sortedKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}

/** One tool's entry in tools.json. */
function toolEntry(name: string, cfg: Record<string, unknown>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [k, v] of Object.entries(mappingOf(cfg.inputs))) {
    const input = mappingOf(v);
    const p: Record<string, unknown> = {};
    if (input.default !== undefined) p.default = input.default;
    if (input.description !== undefined) p.description = input.description;
    p.type = input.type ?? "string";
    properties[k] = p;
    if (input.required === true) required.push(k);
  }
  const schema: Record<string, unknown> = { properties: sortedKeys(properties) };
  if (required.length > 0) schema.required = required;
  schema.type = "object";
  const entry: Record<string, unknown> = { name, description: cfg.description ?? "", inputSchema: schema };
  entry.handler = `${name}.sh`;
  const env = Object.keys(mappingOf(cfg.env)).sort();
  if (env.length > 0) entry.env = Object.fromEntries(env.map((k) => [k, k]));
  entry.timeout = typeof cfg.timeout === "number" ? cfg.timeout : 60;
  return entry;
}

const SERVER_JS = [
  'const path = require("path");',
  'const { startHttpServer } = require("./mcp_scripts_mcp_server_http.cjs");',
  'const configPath = path.join(__dirname, "tools.json");',
  'const port = parseInt(process.env.GH_AW_MCP_SCRIPTS_PORT || "3000", 10);',
  'const apiKey = process.env.GH_AW_MCP_SCRIPTS_API_KEY || "";',
  "startHttpServer(configPath, {",
  "  port: port,",
  "  stateless: true,",
  `  logDir: "${LOG_DIR}"`,
  "}).catch(error => {",
  '  console.error("Failed to start mcp-scripts HTTP server:", error);',
  "  process.exit(1);",
  "});",
];

/** The shell tools (`run:`) in name order. */
function shellTools(agentInput: AgentInput): [string, Record<string, unknown>][] {
  return Object.entries(mcpScripts(agentInput) ?? {}).map(([k, v]) =>
    [k, mappingOf(v)] as [string, Record<string, unknown>]
  )
    .filter(([, c]) => typeof c.run === "string")
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
}

/** "Write MCP Scripts Config" … "Start MCP Scripts HTTP Server", before the gateway starts. */
export function mcpScriptsSteps(agentInput: AgentInput): StepPlan[] {
  const scripts = mcpScripts(agentInput);
  if (!scripts) return [];
  const hash = agentInput.frontmatterHash;
  const tools = shellTools(agentInput);
  const toolsJson = goJson({
    serverName: "mcpscripts",
    version: "1.0.0",
    logDir: LOG_DIR,
    tools: tools.map(([n, c]) => toolEntry(n, c)),
  });
  const toolsDelim = heredocDelimiter("MCP_SCRIPTS_TOOLS", hash);
  const serverDelim = heredocDelimiter("MCP_SCRIPTS_SERVER", hash);
  const config = [
    `mkdir -p "${LOG_DIR}"`,
    `cat > "${DIR}/tools.json" << '${toolsDelim}'`,
    toolsJson,
    toolsDelim,
    `cat > "${DIR}/mcp-server.cjs" << '${serverDelim}'`,
    ...SERVER_JS.map((l) => `  ${l}`),
    serverDelim,
    `chmod +x "${DIR}/mcp-server.cjs"`,
  ];
  const files: string[] = [];
  for (const [name, cfg] of tools) {
    const delim = heredocDelimiter(`MCP_SCRIPTS_SH_${name.toUpperCase()}`, hash);
    const script = `#!/bin/bash\n# Auto-generated mcp-script tool: ${name}\n# ${cfg.description ?? ""}\n\n` +
      `set -euo pipefail\n\n${cfg.run}\n`;
    files.push(
      `cat > "${DIR}/${name}.sh" << '${delim}'`,
      ...script.split("\n"),
      delim,
      `chmod +x "${DIR}/${name}.sh"`,
    );
  }
  const env: Record<string, YValue> = {
    DEBUG: sq("*"),
    GH_AW_MCP_SCRIPTS_PORT: plain("${{ steps.mcp-scripts-config.outputs.mcp_scripts_port }}"),
    GH_AW_MCP_SCRIPTS_API_KEY: plain("${{ steps.mcp-scripts-config.outputs.mcp_scripts_api_key }}"),
  };
  const secrets = new Map<string, string>();
  for (const tool of Object.values(scripts)) {
    for (const [k, v] of Object.entries(mappingOf(mappingOf(tool).env))) {
      if (typeof v === "string" && v.includes("secrets.")) secrets.set(k, v);
    }
  }
  for (const k of [...secrets.keys()].sort()) env[k] = plain(secrets.get(k)!);
  return [
    { name: "Write MCP Scripts Config", run: litPadded(config.join("\n") + "\n") },
    { name: "Write MCP Scripts Tool Files", run: litPadded(files.join("\n") + "\n") },
    {
      name: "Generate MCP Scripts Server Config",
      id: "mcp-scripts-config",
      run: litPadded(
        "# Generate a secure random API key (360 bits of entropy, 40+ chars)\n" +
          "# Mask immediately to prevent timing vulnerabilities\nAPI_KEY=$(openssl rand -base64 45 | tr -d '/+=')\n" +
          'echo "::add-mask::${API_KEY}"\n\nPORT=3000\n\n# Set outputs for next steps\n{\n' +
          '  echo "mcp_scripts_api_key=${API_KEY}"\n  echo "mcp_scripts_port=${PORT}"\n} >> "$GITHUB_OUTPUT"\n\n' +
          'echo "MCP Scripts server will run on port ${PORT}"\n',
      ),
    },
    {
      name: "Start MCP Scripts HTTP Server",
      id: "mcp-scripts-start",
      env,
      run: litPadded(
        "# Environment variables are set above to prevent template injection\nexport DEBUG\n" +
          "export GH_AW_MCP_SCRIPTS_PORT\nexport GH_AW_MCP_SCRIPTS_API_KEY\n" +
          '\nbash "${RUNNER_TEMP}/gh-aw/actions/start_mcp_scripts_server.sh"\n',
      ),
    },
  ];
}

/** "Parse MCP Scripts logs for step summary". */
export function mcpScriptsLogSteps(agentInput: AgentInput): StepPlan[] {
  if (!mcpScripts(agentInput)) return [];
  return [{
    name: "Parse MCP Scripts logs for step summary",
    if: plain("always()"),
    uses: plain(agentInput.ctx.refs.githubScript),
    with: { script: scriptBody("parse_mcp_scripts_logs") },
  }];
}
