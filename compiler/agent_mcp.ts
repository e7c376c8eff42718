/** The MCP gateway steps of the agent job: GitHub lockdown detection, gateway start/stop, CLI mounts. */
import type { AgentInput } from "./agent_input.ts";
import type { StepPlan } from "./plan_types.ts";
import { scriptBody } from "./jobs_common.ts";
import { lit, plain, type YValue } from "./yaml_writer.ts";
import { gatewayEnv, gatewayScript, githubToolConfig } from "./mcp_config.ts";

/** `with.script` of the CLI-mount step (its globals setup passes no `getOctokit`). */
const MOUNT_SCRIPT =
  "const { setupGlobals } = require('${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');\n" +
  "setupGlobals(core, github, context, exec, io);\n" +
  "const { main } = require('${{ runner.temp }}/gh-aw/actions/mount_mcp_as_cli.cjs');\nawait main();\n";

const GATEWAY_OUTPUT = (k: string) => plain(`\${{ steps.start-mcp-gateway.outputs.${k} }}`);

/**
 * "Determine automatic lockdown mode for GitHub MCP Server": when the GitHub tool is on and its guard
 * policy (`min-integrity` / `allowed-repos`) is left to be chosen from the repository's visibility.
 */
export function lockdownSteps(a: AgentInput): StepPlan[] {
  const gh = githubToolConfig(a);
  if (!gh || gh.guardConfigured || gh.app) return [];
  return [{
    name: "Determine automatic lockdown mode for GitHub MCP Server",
    id: "determine-automatic-lockdown",
    // gh-aw resolves this action through its "source" pin; the comment names both versions.
    uses: plain(`${a.ctx.refs.githubScript} (source v9)`),
    env: {
      GH_AW_GITHUB_TOKEN: plain("${{ secrets.GH_AW_GITHUB_TOKEN }}"),
      GH_AW_GITHUB_MCP_SERVER_TOKEN: plain("${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN }}"),
    },
    with: {
      script: lit(
        "const determineAutomaticLockdown = require('${{ runner.temp }}/gh-aw/actions/determine_automatic_lockdown.cjs');\n" +
          "await determineAutomaticLockdown(github, context, core);\n",
      ),
    },
  }];
}

/** "Start MCP Gateway" and "Mount MCP servers as CLIs". */
export function mcpGatewaySteps(a: AgentInput): StepPlan[] {
  const env: Record<string, YValue> = {};
  for (const [k, v] of gatewayEnv(a)) env[k] = plain(v);
  return [
    { name: "Start MCP Gateway", id: "start-mcp-gateway", env, run: lit(gatewayScript(a)) },
    {
      name: "Mount MCP servers as CLIs",
      id: "mount-mcp-clis",
      "continue-on-error": true,
      env: {
        MCP_GATEWAY_API_KEY: GATEWAY_OUTPUT("gateway-api-key"),
        MCP_GATEWAY_DOMAIN: GATEWAY_OUTPUT("gateway-domain"),
        MCP_GATEWAY_PORT: GATEWAY_OUTPUT("gateway-port"),
      },
      uses: plain(a.ctx.refs.githubScript),
      with: { script: lit(MOUNT_SCRIPT) },
    },
  ];
}

/** "Stop MCP Gateway", after the engine ran. */
export function mcpGatewayStopSteps(_a: AgentInput): StepPlan[] {
  return [{
    name: "Stop MCP Gateway",
    if: plain("always()"),
    "continue-on-error": true,
    env: {
      MCP_GATEWAY_PORT: GATEWAY_OUTPUT("gateway-port"),
      MCP_GATEWAY_API_KEY: GATEWAY_OUTPUT("gateway-api-key"),
      GATEWAY_PID: GATEWAY_OUTPUT("gateway-pid"),
    },
    run: lit('bash "${RUNNER_TEMP}/gh-aw/actions/stop_mcp_gateway.sh" "$GATEWAY_PID"\n'),
  }];
}

/** "Parse MCP Gateway logs for step summary" (its outputs feed the job's effective-token outputs). */
export function mcpGatewayLogSteps(a: AgentInput): StepPlan[] {
  return [{
    name: "Parse MCP Gateway logs for step summary",
    if: plain("always()"),
    id: "parse-mcp-gateway",
    uses: plain(a.ctx.refs.githubScript),
    with: { script: scriptBody("parse_mcp_gateway_log") },
  }];
}
