/**
 * The execution step of the engines whose CLI runs directly after the tool-cache PATH set-up (Gemini,
 * Antigravity, Pi, Crush, OpenCode), as gh-aw v0.76 writes it: each engine module gives the step's `Shape`
 * (its command, env, hidden variables and firewall config); Crush and OpenCode reach their provider through
 * the API proxy with a reduced env and no secret exclusions.
 */
import type { AgentInput } from "./input.ts";
import type { StepPlan } from "../types.ts";
import { lit, type YValue } from "../../yaml/writer.ts";
import { type AwfConfigInput, awfScript, MCP_CLI_PATH, TOOL_PATH_SETUP } from "./awf_command.ts";
import { cliProxyEnabled, mcpSecretEnv } from "./engine_tools.ts";
import {
  agentTools,
  awfConfigInput,
  commonEnv,
  customMounts,
  extraAwfArgs,
  secretNames,
  sorted,
  STEP_SUMMARY,
} from "./engine_env.ts";

/** The engine-specific part of an execution step. */
export interface Shape {
  /** Whether the GitHub CLI proxy flags are passed (not for Crush and OpenCode). */
  cliProxy?: boolean;
  setup: string[];
  command: string;
  env: Record<string, YValue>;
  exclude: string[];
  config: AwfConfigInput;
}

/**
 * The shape of a CLI that sees the agent's whole environment: the common env plus `extra` and `engine.env`,
 * with every secret, `keys`, the MCP servers' secrets and the GitHub tokens hidden from the container.
 */
export function fullEnvShape(
  agentInput: AgentInput,
  command: string,
  extra: Record<string, YValue>,
  keys: string[],
): Shape {
  const tools = agentTools(agentInput);
  const env: Record<string, YValue> = { ...commonEnv(agentInput, tools, false), ...extra };
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  const exclude = [
    "MCP_GATEWAY_API_KEY",
    ...keys,
    ...secretNames(env),
    ...Object.keys(mcpSecretEnv(agentInput)),
  ];
  if (tools.github !== undefined) exclude.push("GITHUB_MCP_SERVER_TOKEN");
  if (cliProxyEnabled(agentInput)) exclude.push("GH_TOKEN");
  return { setup: [`touch ${STEP_SUMMARY}`], command, env, exclude, config: awfConfigInput(agentInput) };
}

/** The execution step of a CLI run on the tool-cache PATH, from its shape. */
export function shapedExecute(agentInput: AgentInput, s: Shape): StepPlan {
  return {
    name: `Execute ${agentInput.engine.info.cliName}`,
    id: "agentic_execution",
    run: lit(awfScript({
      setup: s.setup,
      config: s.config,
      extraArgs: extraAwfArgs(agentInput),
      tty: false,
      excludeEnv: s.exclude,
      mounts: customMounts(agentInput),
      cliProxy: s.cliProxy ?? cliProxyEnabled(agentInput),
      command: `${MCP_CLI_PATH} && ${TOOL_PATH_SETUP} && ${s.command}`,
    })),
    env: sorted(s.env),
  };
}
