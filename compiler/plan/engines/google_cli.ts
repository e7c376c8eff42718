/**
 * What Gemini and Antigravity share: Google's CLI family reads `<dir>/settings.json` (written before the run
 * from the workflow's tools, and read-only for the review), talks to Gemini's API through the firewall's
 * API proxy and leaves its error reports in /tmp/.
 */
import type { EngineDetection } from "./contract.ts";
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { fullEnvShape, shapedExecute } from "../agent/engine_experimental.ts";
import { settingsMergeScript } from "../agent/engine_config_files.ts";
import { cliProxyEnabled, mountedCliServers, playwrightCliMode } from "../agent/engine_tools.ts";
import { agentTools, federationEnv, OIDC_REQUEST_ENV } from "../agent/engine_env.ts";
import { engineDomains } from "../network.ts";
import {
  DETECTION_PROMPT,
  type DetectionInput,
  GIT_IDENTITY,
  phaseEnv,
  settingsStep,
  TOOL_PATH,
  TOUCH_SUMMARY,
} from "./review.ts";

/** One CLI of the family. */
export interface GoogleCli {
  id: string;
  /** The name in its steps' titles ("Write Gemini Config"). */
  title: string;
  /** The secret holding its API key. */
  key: string;
  /** The prefix of its own variables (`GEMINI_API_BASE_URL`…). */
  prefix: string;
  /** The command on the prompt (its text in `$PROMPT_TEXT`). */
  command: string;
  /** Whether the API key is also passed as `GEMINI_API_KEY` (Antigravity reads Gemini's variable too). */
  geminiKeyAlias: boolean;
}

const API_TARGETS = { gemini: { host: "generativelanguage.googleapis.com" } };

/** The review's settings: read /tmp, and only reading and shell tools. */
const DETECTION_CONFIG = JSON.stringify({
  context: { includeDirectories: ["/tmp/"] },
  tools: {
    core: ["glob", "grep_search", "list_directory", "read_file", "read_many_files", "run_shell_command"],
  },
});

/**
 * "Write Gemini Config" / "Write Antigravity Config", right before the CLI runs: `/tmp/` readable and the
 * built-in tools the workflow's tools map to ({@link geminiToolsCore}), merged over the settings file the MCP
 * gateway may have written.
 */
function geminiSettingsStep(cli: string, dir: string, toolsCore: string[]): StepPlan {
  const envName = `GH_AW_${cli.toUpperCase()}_BASE_CONFIG`;
  const config = { context: { includeDirectories: ["/tmp/"] }, tools: { core: toolsCore } };
  return {
    name: `Write ${cli} Config`,
    run: lit(settingsMergeScript(dir, envName)),
    env: { [envName]: sq(JSON.stringify(config)) },
  };
}

/**
 * Gemini's built-in tools allowed by the workflow's tools (sorted): the read-only file tools always; the shell
 * (`run_shell_command`, or one `run_shell_command(cmd)` per command of a restricted `bash` list, which also
 * lists `extraBash`); `replace` and `write_file` for `edit`; `web_fetch` for `web-fetch`.
 */
function geminiToolsCore(tools: Record<string, unknown>, extraBash: string[]): string[] {
  const core = ["glob", "grep_search", "list_directory", "read_file", "read_many_files"];
  if ("bash" in tools) {
    const bash = tools.bash;
    const cmds = Array.isArray(bash) ? bash : [];
    if (cmds.length === 0 || cmds.some((c) => c === "*" || c === ":*")) core.push("run_shell_command");
    else {
      const all = [...cmds];
      for (const extra of extraBash) if (!all.includes(extra)) all.push(extra);
      for (const c of all) {
        if (typeof c === "string") {
          core.push(`run_shell_command(${c.endsWith(" *") ? c.slice(0, -2).trimEnd() : c})`);
        }
      }
    }
  }
  if ("edit" in tools) core.push("replace", "write_file");
  if ("web-fetch" in tools) core.push("web_fetch");
  return core.sort();
}
/** The CLI's command on the prompt file. */
function command(cli: GoogleCli, prompt: string): string {
  return cli.command.replace("$PROMPT_TEXT", `"$(cat ${prompt})"`);
}

/** The agent job's run: the settings (readable /tmp, allowed built-in tools) merged in first. */
export function googleExecute(cli: GoogleCli, agentInput: AgentInput): StepPlan[] {
  const tools = agentTools(agentInput);
  const extraBash = [
    ...mountedCliServers(agentInput).map((s) => `${s}:*`),
    ...(playwrightCliMode(tools) ? ["playwright-cli:*"] : []),
    ...(cliProxyEnabled(agentInput) ? ["gh:*"] : []),
  ];
  const shape = fullEnvShape(
    agentInput,
    command(cli, "/tmp/gh-aw/aw-prompts/prompt.txt"),
    {
      DEBUG: `${cli.id}-cli:*`,
      [`${cli.prefix}_API_BASE_URL`]: "http://host.docker.internal:10003",
      [cli.key]: plain(`\${{ secrets.${cli.key} }}`),
      [`${cli.prefix}_CLI_TRUST_WORKSPACE`]: plain("true"),
      ...(cli.geminiKeyAlias ? { GEMINI_API_KEY: plain(`\${{ secrets.${cli.key} }}`) } : {}),
      GH_AW_MCP_CONFIG: plain(`\${{ github.workspace }}/.${cli.id}/settings.json`),
    },
    [cli.key],
  );
  shape.config = { ...shape.config, targets: API_TARGETS };
  const auth = agentInput.engine.auth;
  if (auth) {
    delete shape.env[cli.key];
    Object.assign(shape.env, federationEnv(auth));
    shape.exclude.push(...OIDC_REQUEST_ENV);
  }
  return [
    geminiSettingsStep(cli.title, `.${cli.id}`, geminiToolsCore(tools, extraBash)),
    shapedExecute(agentInput, shape),
  ];
}

/** Before the agent artifact is bundled: the error reports moved under /tmp/gh-aw/. */
export function googlePreBundle(cli: GoogleCli): StepPlan[] {
  return [{
    name: `Move ${cli.title} error files to artifact directory`,
    if: plain("always()"),
    run: plain(`mv /tmp/${cli.id}-client-error-*.json /tmp/gh-aw/ 2>/dev/null || true`),
  }];
}

/** The review's environment: the CLI pointed at the firewall's API proxy. */
function detectionEnv(cli: GoogleCli, d: DetectionInput): Record<string, YValue> {
  const own: Record<string, YValue> = {
    [`${cli.prefix}_API_BASE_URL`]: plain("http://host.docker.internal:10003"),
    [`${cli.prefix}_API_KEY`]: plain(`\${{ secrets.${cli.key} }}`),
    [`${cli.prefix}_CLI_TRUST_WORKSPACE`]: plain("true"),
    DEBUG: `${cli.id}-cli:*`,
    ...(cli.geminiKeyAlias ? { GEMINI_API_KEY: plain(`\${{ secrets.${cli.key} }}`) } : {}),
  };
  return {
    ...Object.fromEntries(Object.keys(own).sort().map((k) => [k, own[k]])),
    ...phaseEnv(d),
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: "/tmp/gh-aw/agent-step-summary.md",
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    ...GIT_IDENTITY,
    RUNNER_TEMP: plain("${{ runner.temp }}"),
  };
}

/** The review with the CLI, installed by `install` (the AWF binary's step among them). */
export function googleDetection(
  cli: GoogleCli,
  facts: { id: string; providerHosts?: string[] },
  needsNode: boolean,
  install: (awf: StepPlan) => StepPlan[],
): EngineDetection {
  return {
    needsNode,
    imagesFirst: true,
    installSteps: (_d, awf) => [...install(awf), settingsStep(cli.title, `.${cli.id}`, DETECTION_CONFIG)],
    domains: (model) => engineDomains(facts, model),
    apiTargets: API_TARGETS,
    setup: [TOUCH_SUMMARY],
    command: () => `${TOOL_PATH} && ${command(cli, DETECTION_PROMPT)}`,
    envArgs: () =>
      `--env-all --exclude-env ${cli.key}${cli.geminiKeyAlias ? " --exclude-env GEMINI_API_KEY" : ""}`,
    env: ({ d }) => detectionEnv(cli, d),
  };
}
