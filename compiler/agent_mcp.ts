/** The MCP gateway steps of the agent job: GitHub lockdown detection, gateway start/stop, CLI mounts. */
import type { AgentInput } from "./agent_input.ts";
import type { StepPlan } from "./plan_types.ts";
import { VERSIONS } from "./jobs_common.ts";
import { lit, plain, type YValue } from "./yaml_writer.ts";
import { heredocDelimiter } from "./hash.ts";

/** Builds the MCP gateway configuration object. */
function mcpConfig(a: AgentInput): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  if (a.github) {
    servers.github = {
      type: "stdio",
      container: `ghcr.io/github/github-mcp-server:${VERSIONS.githubMcp}`,
      env: {
        GITHUB_HOST: "\\${GITHUB_SERVER_URL}",
        GITHUB_PERSONAL_ACCESS_TOKEN: "\\${GITHUB_MCP_SERVER_TOKEN}",
        GITHUB_READ_ONLY: a.github.readOnly ? "1" : "0",
        GITHUB_TOOLSETS: a.github.toolsets,
      },
      "guard-policies": {
        "allow-only": {
          "min-integrity": a.github.minIntegrity ?? "$GITHUB_MCP_GUARD_MIN_INTEGRITY",
          repos: "$GITHUB_MCP_GUARD_REPOS",
        },
      },
    };
  }
  servers.safeoutputs = {
    type: "http",
    url: "http://host.docker.internal:$GH_AW_SAFE_OUTPUTS_PORT",
    headers: { Authorization: "\\${GH_AW_SAFE_OUTPUTS_API_KEY}" },
    "guard-policies": { "write-sink": { accept: ["*"] } },
  };
  for (const [name, cfg] of Object.entries(a.mcpServers)) {
    const s: Record<string, unknown> = {};
    if (cfg.url) {
      s.type = "http";
      s.url = cfg.url;
      if (cfg.headers) s.headers = cfg.headers;
    } else {
      s.type = "stdio";
      if (cfg.container ?? cfg.image) s.container = cfg.container ?? cfg.image;
      if (cfg.command) s.command = cfg.command;
      if (cfg.args) s.args = cfg.args;
      if (cfg.env) s.env = cfg.env;
    }
    if (cfg.allowed) s.tools = cfg.allowed;
    servers[name] = s;
  }
  return {
    mcpServers: servers,
    gateway: {
      port: "$MCP_GATEWAY_PORT",
      domain: "${MCP_GATEWAY_DOMAIN}",
      apiKey: "${MCP_GATEWAY_API_KEY}",
      payloadDir: "${MCP_GATEWAY_PAYLOAD_DIR}",
    },
  };
}

/** "Determine automatic lockdown mode for GitHub MCP Server", when the GitHub tool is enabled. */
export function lockdownSteps(_a: AgentInput): StepPlan[] {
  return [];
}

/** The steps that start the MCP gateway (and mount servers as CLIs). */
export function mcpGatewaySteps(a: AgentInput): StepPlan[] {
  const { ctx } = a;
  const steps: StepPlan[] = [];
  const mcpDelim = heredocDelimiter("MCP_CONFIG", a.frontmatterHash);
  const gwEnv: Record<string, YValue> = {
    GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
    GH_AW_SAFE_OUTPUTS_API_KEY: plain("${{ steps.safe-outputs-start.outputs.api_key }}"),
    GH_AW_SAFE_OUTPUTS_PORT: plain("${{ steps.safe-outputs-start.outputs.port }}"),
  };
  if (a.github) {
    gwEnv.GITHUB_MCP_SERVER_TOKEN = plain(
      "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
    );
  }
  steps.push({
    name: "Start MCP Gateway",
    id: "start-mcp-gateway",
    env: gwEnv,
    run: lit(
      'set -eo pipefail\nmkdir -p "${RUNNER_TEMP}/gh-aw/mcp-config"\nexport MCP_GATEWAY_PORT="8080"\n' +
        "export MCP_GATEWAY_DOMAIN=\"host.docker.internal\"\nMCP_GATEWAY_API_KEY=$(openssl rand -base64 45 | tr -d '/+=')\n" +
        'echo "::add-mask::${MCP_GATEWAY_API_KEY}"\nexport MCP_GATEWAY_API_KEY\nexport MCP_GATEWAY_PAYLOAD_DIR="/tmp/gh-aw/mcp-payloads"\n' +
        `export GH_AW_ENGINE="${ctx.engineId}"\n` +
        `export MCP_GATEWAY_DOCKER_COMMAND='docker run -i --rm --network host ghcr.io/github/gh-aw-mcpg:${VERSIONS.mcpg}'\n` +
        `cat << ${mcpDelim} | node "\${RUNNER_TEMP}/gh-aw/actions/start_mcp_gateway.cjs"\n` +
        JSON.stringify(mcpConfig(a), null, 2).replace('"$MCP_GATEWAY_PORT"', "$MCP_GATEWAY_PORT") +
        `\n${mcpDelim}\n`,
    ),
  });
  return steps;
}

/** The steps that stop the MCP gateway after the run. */
export function mcpGatewayStopSteps(_a: AgentInput): StepPlan[] {
  return [];
}

/** The steps that summarise the MCP gateway's logs. */
export function mcpGatewayLogSteps(_a: AgentInput): StepPlan[] {
  return [];
}
