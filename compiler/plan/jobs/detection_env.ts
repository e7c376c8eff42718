/**
 * The environment of the threat-detection run, per engine: its credential, model variable and the
 * settings its CLI reads, plus what every run is told about its phase. Listed per engine as gh-aw's locks
 * write them (key order included).
 */
import { plain, type YValue } from "../../yaml/writer.ts";
import { PROVIDER_ENV } from "../agent/engine_experimental.ts";
import { CODEX_HOME, type DetectionEngine, type DetectionInput } from "./detection_engines.ts";
import { ghAwVersion } from "../steps.ts";
import { type EngineAuth } from "../engine_auth.ts";
import { federationEnv } from "../agent/engine_env.ts";

/** What every detection run is told about its phase, prompt and gh-aw version. */
export function phaseEnv(d: DetectionInput): Record<string, YValue> {
  return {
    GH_AW_PHASE: "detection",
    GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
    GH_AW_VERSION: ghAwVersion(d.ctx),
  };
}

/** The commit identity of anything the review writes (gh-aw's bot). */
export const GIT_IDENTITY = {
  GIT_AUTHOR_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_AUTHOR_NAME: plain("github-actions[bot]"),
  GIT_COMMITTER_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_COMMITTER_NAME: plain("github-actions[bot]"),
};

/** The engine-specific inputs of an environment builder. */
interface EnvInput {
  d: DetectionInput;
  /** The model, `provider/model` for the provider CLIs. */
  crushModel: string;
  /** The provider whose credentials a provider CLI gets. */
  crushProvider: string;
}

/** Antigravity's CLI, pointed at the firewall's API proxy. */
function antigravityEnv({ d }: EnvInput): Record<string, YValue> {
  return {
    ANTIGRAVITY_API_BASE_URL: plain("http://host.docker.internal:10003"),
    ANTIGRAVITY_API_KEY: plain("${{ secrets.ANTIGRAVITY_API_KEY }}"),
    ANTIGRAVITY_CLI_TRUST_WORKSPACE: plain("true"),
    DEBUG: "antigravity-cli:*",
    GEMINI_API_KEY: plain("${{ secrets.ANTIGRAVITY_API_KEY }}"),
    ...phaseEnv(d),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    ...GIT_IDENTITY,
    RUNNER_TEMP: plain("${{ runner.temp }}"),
  };
}

/** Pi, with its agent directory and model. */
function piEnv({ d, crushModel }: EnvInput): Record<string, YValue> {
  return {
    AWF_REFLECT_ENABLED: plain("1"),
    COPILOT_GITHUB_TOKEN: plain("${{ secrets.COPILOT_GITHUB_TOKEN }}"),
    GH_AW_PHASE: "detection",
    GH_AW_PI_MODEL: plain(crushModel),
    GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
    GH_AW_VERSION: ghAwVersion(d.ctx),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    ...GIT_IDENTITY,
    PI_CODING_AGENT_DIR: "/tmp/gh-aw/pi-agent-dir",
    RUNNER_TEMP: plain("${{ runner.temp }}"),
  };
}

/** Crush and OpenCode: their model and the provider credentials its prefix names (sorted). */
function providerCliEnv({ d, crushModel, crushProvider }: EnvInput): Record<string, YValue> {
  const env: Record<string, YValue> = {
    [`${d.engine.toUpperCase()}_MODEL`]: plain(crushModel),
    GH_AW_PROMPT: "/tmp/gh-aw/aw-prompts/prompt.txt",
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    NO_PROXY: "localhost,127.0.0.1",
    RUNNER_TEMP: plain("${{ runner.temp }}"),
  };
  for (const [k, v] of Object.entries(PROVIDER_ENV[crushProvider] ?? {})) env[k] = plain(v);
  return Object.fromEntries(Object.keys(env).sort().map((k) => [k, env[k]]));
}

/** Gemini's CLI, pointed at the firewall's API proxy. */
function geminiEnv({ d }: EnvInput): Record<string, YValue> {
  return {
    DEBUG: "gemini-cli:*",
    GEMINI_API_BASE_URL: plain("http://host.docker.internal:10003"),
    GEMINI_API_KEY: plain("${{ secrets.GEMINI_API_KEY }}"),
    GEMINI_CLI_TRUST_WORKSPACE: plain("true"),
    ...phaseEnv(d),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    ...GIT_IDENTITY,
    RUNNER_TEMP: plain("${{ runner.temp }}"),
  };
}

/** Codex, with its MCP config home and the detection model variable. */
function codexEnv({ d }: EnvInput): Record<string, YValue> {
  const key = plain("${{ secrets.CODEX_API_KEY || secrets.OPENAI_API_KEY }}");
  return {
    CODEX_API_KEY: key,
    CODEX_HOME: CODEX_HOME,
    GH_AW_MCP_CONFIG: plain("${{ runner.temp }}/gh-aw/mcp-config/config.toml"),
    GH_AW_MODEL_DETECTION_CODEX: plain(
      d.model ?? "${{ vars.GH_AW_MODEL_DETECTION_CODEX || vars.GH_AW_DEFAULT_MODEL_CODEX || 'gpt-5.4' }}",
    ),
    ...phaseEnv(d),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
    ...GIT_IDENTITY,
    OPENAI_API_KEY: key,
    RUNNER_TEMP: plain("${{ runner.temp }}"),
    RUST_LOG: plain(
      "${{ runner.debug == 1 && 'trace,hyper_util=info,mio=info,reqwest=info,os_info=info,codex_otel=warn,codex_core=debug,ocodex_exec=debug' || 'warn' }}",
    ),
  };
}

/** Claude Code, with bounded shell and MCP timeouts. */
function claudeEnv({ d }: EnvInput): Record<string, YValue> {
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
    ...phaseEnv(d),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    ...GIT_IDENTITY,
    MCP_TIMEOUT: plain("120000"),
    MCP_TOOL_TIMEOUT: plain("60000"),
    RUNNER_TEMP: plain("${{ runner.temp }}"),
  };
}

/** The Copilot CLI (also the fallback of engines without their own review). */
function copilotEnv({ d }: EnvInput): Record<string, YValue> {
  const { ctx } = d;
  const model = d.model ??
    "${{ vars.GH_AW_MODEL_DETECTION_COPILOT || vars.GH_AW_DEFAULT_MODEL_COPILOT || 'claude-sonnet-4.6' }}";
  const env: Record<string, YValue> = {
    AWF_REFLECT_ENABLED: plain("1"),
    COPILOT_AGENT_RUNNER_TYPE: "STANDALONE",
    COPILOT_DUMMY_BYOK: "dummy-byok-key-for-offline-mode",
    COPILOT_GITHUB_TOKEN: plain(
      ctx.copilotRequests ? "${{ github.token }}" : "${{ secrets.COPILOT_GITHUB_TOKEN }}",
    ),
    COPILOT_MODEL: plain(model),
    ...phaseEnv(d),
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
  if (!d.byokEnv) return env;
  // A BYOK review reaches the author's provider with the engine's own env (its model included).
  delete env.COPILOT_GITHUB_TOKEN;
  Object.assign(env, d.byokEnv);
  return Object.fromEntries(Object.keys(env).sort().map((k) => [k, env[k]]));
}

/** Each engine's environment builder. */
const ENV_BY_ENGINE: Record<DetectionEngine, (input: EnvInput) => Record<string, YValue>> = {
  antigravity: antigravityEnv,
  pi: piEnv,
  crush: providerCliEnv,
  opencode: providerCliEnv,
  gemini: geminiEnv,
  codex: codexEnv,
  claude: claudeEnv,
  copilot: copilotEnv,
};

/** The environment of the detection run for `d.engine`. */
export function execEnv(
  detectionInput: DetectionInput,
  crushModel: string,
  crushProvider: string,
): Record<string, YValue> {
  return ENV_BY_ENGINE[detectionInput.engine]({ d: detectionInput, crushModel, crushProvider });
}

/** The API-key secrets a federated review no longer reads. */
const ENGINE_KEYS = ["ANTHROPIC_API_KEY", "GEMINI_API_KEY"];

/** A detection env with the engine's API key replaced by its federation variables (sorted as gh-aw writes). */
export function federatedEnv(env: Record<string, YValue>, auth: EngineAuth): Record<string, YValue> {
  const out: Record<string, YValue> = { ...federationEnv(auth) };
  for (const [k, v] of Object.entries(env)) if (!ENGINE_KEYS.includes(k)) out[k] = v;
  return Object.fromEntries(Object.keys(out).sort().map((k) => [k, out[k]]));
}
