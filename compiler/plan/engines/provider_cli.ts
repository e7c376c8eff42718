/**
 * What Crush and OpenCode share: CLIs that pick their provider from `provider/model` (Copilot's without a
 * prefix), reach it through the firewall's API proxy with a reduced env, and would stop on permission prompts
 * unless their project config allows every tool first.
 */
import type { EngineDetection } from "./contract.ts";
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { shapedExecute } from "../agent/engine_experimental.ts";
import { jqMergeLines } from "../agent/engine_config_files.ts";
import { awfConfigInput, PROMPT } from "../agent/engine_env.ts";
import { engineDomains } from "../network.ts";
import { DETECTION_PROMPT, GUARD, sortedEnv, TOOL_PATH } from "./review.ts";

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

/** Where a provider CLI (Crush, OpenCode) reads its project config and how it spells the permission key. */
export interface ProviderCliConfig {
  /** The config file, relative to the workspace. */
  file: string;
  /** The key of the permission map (`permission` or `permissions`). */
  key: string;
  /** Permissions beside the common ones. */
  extra: string[];
}

/**
 * A provider CLI's project config: every tool allowed inside the sandbox (so the CLI never stops on a
 * permission prompt), merged over the workspace's own config. The agent job and the threat detection both
 * write it before running the CLI.
 */
function providerCliConfigScript(cli: ProviderCliConfig): string {
  const allow = ["bash", "edit", "read", "glob", "grep", "write", "webfetch", "websearch"];
  const permission = Object.fromEntries([...allow, ...cli.extra].map((k) => [k, "allow"]));
  const config = { agent: { build: { [cli.key]: permission } } };
  return [
    "umask 077",
    'mkdir -p "$GITHUB_WORKSPACE"',
    `CONFIG="$GITHUB_WORKSPACE/${cli.file}"`,
    `BASE_CONFIG='${JSON.stringify(config)}'`,
    ...jqMergeLines("CONFIG"),
    'chmod 600 "$CONFIG"',
  ].join("\n") + "\n";
}

/** The "Write Crush Config" / "Write OpenCode Config" step (a literal block, as gh-aw writes it). */
function providerCliConfigStep(cli: ProviderCliConfig, cliName: string): StepPlan {
  return { name: `Write ${cliName} Config`, run: lit(providerCliConfigScript(cli)) };
}

/** The provider a `provider/model` names (`copilot` without a prefix). */
export function providerOf(model: string): string {
  return model.includes("/") ? model.split("/")[0] : "copilot";
}

/** One provider CLI. */
export interface ProviderCli {
  id: string;
  /** Its display name ("Write Crush Config"). */
  title: string;
  config: ProviderCliConfig;
  /** The command on the prompt (its text in `$PROMPT_TEXT`). */
  command: string;
  install: { run: string };
  /** Steps after its install (Crush verifies it). */
  afterInstall: StepPlan[];
}

function command(cli: ProviderCli, prompt: string): string {
  return cli.command.replace("$PROMPT_TEXT", `"$(cat ${prompt})"`);
}

/** The agent job's run: the config allowing every tool, then the CLI with its provider's env. */
export function providerExecute(cli: ProviderCli, agentInput: AgentInput): StepPlan[] {
  const model = agentInput.engine.model ?? "";
  const env: Record<string, YValue> = {
    GH_AW_MCP_CONFIG: plain(`\${{ github.workspace }}/${cli.config.file}`),
    GH_AW_PROMPT: PROMPT,
    GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    NO_PROXY: "localhost,127.0.0.1",
    RUNNER_TEMP: plain("${{ runner.temp }}"),
    [`${cli.id.toUpperCase()}_MODEL`]: model,
  };
  for (const [k, v] of Object.entries(PROVIDER_ENV[providerOf(model)] ?? {})) env[k] = plain(v);
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  return [
    providerCliConfigStep(cli.config, cli.title),
    shapedExecute(agentInput, {
      setup: [],
      command: command(cli, PROMPT),
      env,
      exclude: [],
      config: awfConfigInput(agentInput),
      cliProxy: false,
    }),
  ];
}

/** The review: the CLI installed after the AWF binary, its config written, its provider's env. */
export function providerDetection(
  cli: ProviderCli,
  facts: { id: string; providerHosts?: string[] },
): EngineDetection {
  return {
    needsNode: true,
    imagesFirst: true,
    installSteps: (_d, awf) => [
      awf,
      {
        name: `Install ${cli.title} CLI`,
        run: plain(cli.install.run),
        env: { NPM_CONFIG_MIN_RELEASE_AGE: sq("3") },
      },
      ...cli.afterInstall,
      {
        name: `Write ${cli.title} Config`,
        if: GUARD,
        "continue-on-error": true,
        run: lit(providerCliConfigScript(cli.config)),
      },
    ],
    domains: (model) => engineDomains(facts, model),
    setup: [],
    command: () => `${TOOL_PATH} && ${command(cli, DETECTION_PROMPT)}`,
    envArgs: () => "--env-all",
    env: ({ model, provider }) => {
      const env: Record<string, YValue> = {
        [`${cli.id.toUpperCase()}_MODEL`]: plain(model),
        GH_AW_PROMPT: DETECTION_PROMPT,
        GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
        NO_PROXY: "localhost,127.0.0.1",
        RUNNER_TEMP: plain("${{ runner.temp }}"),
      };
      for (const [k, v] of Object.entries(PROVIDER_ENV[provider] ?? {})) env[k] = plain(v);
      return sortedEnv(env);
    },
  };
}
