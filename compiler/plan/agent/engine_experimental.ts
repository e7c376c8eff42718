/**
 * Execution steps of the experimental engines (Gemini, Antigravity, Pi, Crush, OpenCode), as gh-aw v0.76
 * writes them: the CLI runs directly after the tool-cache PATH set-up; Crush and OpenCode reach their
 * provider through the API proxy with a reduced env and no secret exclusions.
 */
import type { AgentInput } from "./input.ts";
import type { StepPlan } from "../types.ts";
import { lit, plain, type YValue } from "../../yaml/writer.ts";
import { type AwfConfigInput, awfScript, MCP_CLI_PATH, TOOL_PATH_SETUP } from "./awf_command.ts";
import { cliProxyEnabled, mcpSecretEnv } from "./engine_tools.ts";
import {
  agentTools,
  awfConfigInput,
  commonEnv,
  customMounts,
  extraAwfArgs,
  federationEnv,
  OIDC_REQUEST_ENV,
  PROMPT,
  secretNames,
  sorted,
  STEP_SUMMARY,
} from "./engine_env.ts";

const GEMINI_TARGET = { gemini: { host: "generativelanguage.googleapis.com" } };

/**
 * Pi's run: a models.json naming the API proxy as its only provider (the model id without its `provider/`),
 * then `pi` on the prompt with gh-aw's provider and steering extensions.
 */
export function piCommand(model: string): string {
  const modelId = model.includes("/") ? model.split("/").slice(1).join("/") : model;
  const providers = JSON.stringify({
    providers: {
      "aw-gateway": {
        api: "openai-completions",
        apiKey: "COPILOT_GITHUB_TOKEN",
        baseUrl: "http://api-proxy:10002",
        models: [{ id: modelId }],
      },
    },
  });
  return `mkdir -p /tmp/gh-aw/pi-agent-dir && printf '%s\\n' '${providers}' > /tmp/gh-aw/pi-agent-dir/models.json && cat ${PROMPT} | pi --print --mode json --no-session --model aw-gateway/${modelId} --extension "\${RUNNER_TEMP}/gh-aw/actions/pi_provider.cjs" --extension "\${RUNNER_TEMP}/gh-aw/actions/pi_steering_extension.cjs" 2>&1 | tee /tmp/gh-aw/pi-streaming.jsonl`;
}

/** Provider prefix of `provider/model` → env that routes the CLI through the API proxy. */
export const PROVIDER_ENV: Record<string, Record<string, string>> = {
  anthropic: {
    ANTHROPIC_API_KEY: "${{ secrets.ANTHROPIC_API_KEY }}",
    ANTHROPIC_BASE_URL: "http://host.docker.internal:10000",
  },
  copilot: {
    COPILOT_GITHUB_TOKEN: "${{ secrets.COPILOT_GITHUB_TOKEN }}",
    GITHUB_COPILOT_BASE_URL: "http://host.docker.internal:10002",
    OPENAI_API_KEY: "${{ secrets.COPILOT_GITHUB_TOKEN }}",
  },
};

interface Shape {
  /** Whether the GitHub CLI proxy flags are passed (not for Crush and OpenCode). */
  cliProxy?: boolean;
  setup: string[];
  command: string;
  env: Record<string, YValue>;
  exclude: string[];
  config: AwfConfigInput;
}

function fullEnvShape(
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

function shapeOf(agentInput: AgentInput): Shape {
  const id = agentInput.engine.info.id;
  const model = agentInput.engine.model ?? "";
  const prompt = `"$(cat ${PROMPT})"`;
  if (id === "gemini" || id === "antigravity") {
    const g = id === "gemini";
    const key = g ? "GEMINI_API_KEY" : "ANTIGRAVITY_API_KEY";
    const upper = g ? "GEMINI" : "ANTIGRAVITY";
    const shape = fullEnvShape(
      agentInput,
      g
        ? `gemini --yolo --skip-trust --output-format stream-json --prompt ${prompt}`
        : `agy --dangerously-skip-permissions --prompt ${prompt}`,
      {
        DEBUG: `${g ? "gemini" : "antigravity"}-cli:*`,
        [`${upper}_API_BASE_URL`]: "http://host.docker.internal:10003",
        [key]: plain(`\${{ secrets.${key} }}`),
        [`${upper}_CLI_TRUST_WORKSPACE`]: plain("true"),
        ...(g ? {} : { GEMINI_API_KEY: plain(`\${{ secrets.${key} }}`) }),
        GH_AW_MCP_CONFIG: plain(`\${{ github.workspace }}/.${g ? "gemini" : "antigravity"}/settings.json`),
      },
      [key],
    );
    shape.config = { ...shape.config, targets: GEMINI_TARGET };
    const auth = agentInput.engine.auth;
    if (auth) {
      delete shape.env[key];
      Object.assign(shape.env, federationEnv(auth));
      shape.exclude.push(...OIDC_REQUEST_ENV);
    }
    return shape;
  }
  if (id === "pi") {
    return fullEnvShape(
      agentInput,
      piCommand(model),
      {
        AWF_REFLECT_ENABLED: plain("1"),
        COPILOT_GITHUB_TOKEN: plain("${{ secrets.COPILOT_GITHUB_TOKEN }}"),
        GH_AW_PI_MODEL: model,
        PI_CODING_AGENT_DIR: "/tmp/gh-aw/pi-agent-dir",
      },
      ["COPILOT_GITHUB_TOKEN"],
    );
  }
  // Crush and OpenCode.
  const provider = model.includes("/") ? model.split("/")[0] : "copilot";
  const env: Record<string, YValue> = {
    GH_AW_MCP_CONFIG: plain(`\${{ github.workspace }}/${id === "crush" ? ".crush.json" : "opencode.jsonc"}`),
    GH_AW_PROMPT: PROMPT,
    GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    NO_PROXY: "localhost,127.0.0.1",
    RUNNER_TEMP: plain("${{ runner.temp }}"),
    [`${id.toUpperCase()}_MODEL`]: model,
  };
  for (const [k, v] of Object.entries(PROVIDER_ENV[provider] ?? {})) env[k] = plain(v);
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  return {
    setup: [],
    command: id === "crush"
      ? `crush run --verbose ${prompt}`
      : `opencode run --print-logs --log-level DEBUG ${prompt}`,
    env,
    exclude: [],
    config: awfConfigInput(agentInput),
    cliProxy: false,
  };
}

/** The execution step of an experimental engine. */
export function otherExecute(agentInput: AgentInput): StepPlan {
  const s = shapeOf(agentInput);
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
