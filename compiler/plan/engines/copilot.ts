/**
 * GitHub Copilot CLI, the default engine: run through gh-aw's Node.js harness with its tool arguments, its
 * errors detected after the run and its session state kept with the logs; it reviews with the threat-detection
 * allowlist.
 */
import type { Engine } from "./contract.ts";
import type { EngineTarget } from "./facts.ts";
import type { EngineRelease } from "../../targets/target.ts";
import { scriptStep } from "../steps.ts";
import { DEFAULT_INSTRUCTION_FILES, DOCS } from "./facts.ts";
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { Comment, plain, type YValue } from "../../yaml/writer.ts";
import { MCP_CLI_PATH, NODE_PATH_SETUP } from "../agent/awf_command.ts";
import {
  bashWildcard,
  cacheMemoryDirNames,
  cliProxyEnabled,
  isMcpServer,
  mountedCliServers,
  normalizeBash,
  playwrightCliMode,
  shellArg,
} from "../agent/engine_tools.ts";
import { agentTools, commonEnv, PROMPT, secretNames, sorted, STEP_SUMMARY } from "../agent/engine_env.ts";
import { agentAwfScript, engineCommandSetup } from "../agent/engine_exec.ts";
import { ECOSYSTEMS } from "../../data/network_ecosystems.ts";
import {
  DETECTION_PROMPT,
  type DetectionInput,
  GIT_IDENTITY,
  NODE_HARNESS,
  phaseEnv,
  sortedEnv,
  TOUCH_SUMMARY,
} from "./review.ts";
import { isObject, mappingOf } from "../../source/values.ts";

const VERSION = "1.0.55";
/** The model used when neither the workflow nor the repository variables name one. */
const MODEL = "claude-sonnet-4.6";
const INSTALL = `bash "\${RUNNER_TEMP}/gh-aw/actions/install_copilot_cli.sh" ${VERSION}`;
const INSTALL_ENV = { GH_HOST: "github.com" };

/** Lines exporting the node binary and the offline BYOK key the harness reads. */
const NODE_BIN_SETUP = [
  "GH_AW_NODE_BIN=$(command -v node 2>/dev/null || true)",
  "export GH_AW_NODE_BIN",
  'export COPILOT_API_KEY="$COPILOT_DUMMY_BYOK"',
];

/** Commands Copilot matches by sub-command: a bare name gets `:*`. */
const COPILOT_STEMS = new Set(
  "git gh glab npm npx yarn pnpm cargo go composer pip pipenv poetry conda mvn gradle gradlew dotnet bundle swift sbt flutter mix cabal stack curl wget"
    .split(" "),
);

/** Tools handled natively by Copilot (never an MCP server). */
const COPILOT_BUILTINS = new Set([
  "bash",
  "edit",
  "web-search",
  "playwright",
  "cache-memory",
  "drive-memory",
]);

/** Copilot's `--allow-tool` values (sorted, unique), or `["--allow-all-tools"]` for unrestricted bash. */
function copilotToolArgs(agentInput: AgentInput, tools: Record<string, unknown>): string[] {
  if (bashWildcard(tools)) return ["--allow-all-tools"];
  const values: string[] = [];
  const bash = tools.bash;
  if (bash !== undefined) {
    if (Array.isArray(bash)) {
      for (const raw of bash) {
        if (typeof raw !== "string") continue;
        const cmd = normalizeBash(raw);
        if (!cmd.includes(":") && !cmd.includes(" ") && COPILOT_STEMS.has(cmd)) {
          values.push(`shell(${cmd}:*)`);
        } else values.push(`shell(${cmd.includes("'") ? cmd.split("'")[0].trimEnd() : cmd})`);
      }
      if (bash.length > 0) {
        for (const s of mountedCliServers(agentInput)) values.push(`shell(${s}:*)`);
        if (playwrightCliMode(tools)) values.push("shell(playwright-cli:*)");
        if (cliProxyEnabled(agentInput)) values.push("shell(gh:*)");
      }
    } else values.push("shell");
  }
  if ("edit" in tools && tools.edit !== false) values.push("write");
  values.push("safeoutputs");
  if (agentInput.mcpScripts !== undefined) values.push("mcpscripts");
  if (tools["web-fetch"] !== undefined && tools["web-fetch"] !== false) values.push("web_fetch");
  const servers: Record<string, unknown> = { ...tools, ...agentInput.merged.mcpServers };
  for (const [name, cfg] of Object.entries(servers)) {
    if (COPILOT_BUILTINS.has(name) || cfg === false) continue;
    const c = isObject(cfg) ? cfg : undefined;
    if (name === "github") {
      const allowed = c?.allowed;
      if (!Array.isArray(allowed)) values.push("github");
      else {
        for (const t of allowed) if (t !== "*") values.push(`github(${t})`);
        if (allowed.includes("*")) values.push("github");
      }
      continue;
    }
    if (!c || !isMcpServer(name, c, agentInput)) continue;
    const allowed = Array.isArray(c.allowed) ? c.allowed as string[] : undefined;
    if (allowed) {
      for (const t of allowed) {
        if (t === "*") break;
        values.push(`${name}(${t})`);
      }
    }
    values.push(name);
  }
  values.sort();
  return values.filter((v, i) => i === 0 || values[i - 1] !== v).flatMap((v) => ["--allow-tool", v]);
}

/**
 * The lines a harnessed run starts with: an exit trap recording the exit code (and removing the settings),
 * the CLI's settings and MCP config under `$HOME`, and the CLI copied where the firewall mounts it.
 */
const HARNESS_SETUP = [
  `trap 'gh_aw_exit_code=$?; mkdir -p /tmp/gh-aw >/dev/null 2>&1 || true; printf "%s" "$gh_aw_exit_code" > ` +
  `/tmp/gh-aw/agent_execution_exit_code.txt || true; rm -f "$HOME/.copilot/settings.json"; if [ "$gh_aw_exit_code" ` +
  `-ne 0 ]; then echo "::error::Agent execution exited with code $gh_aw_exit_code"; fi' EXIT`,
  'mkdir -p "$HOME/.copilot"',
  `printf '%s' '{"builtInAgents":{"rubberDuck":false}}' > "$HOME/.copilot/settings.json"`,
  'export XDG_CONFIG_HOME="$HOME"',
  'export GH_AW_MCP_CONFIG="$HOME/.copilot/mcp-config.json"',
  'GH_AW_COPILOT_SRC="$(command -v copilot 2>/dev/null || true)"',
  'if [ -z "$GH_AW_COPILOT_SRC" ] || [ ! -x "$GH_AW_COPILOT_SRC" ]; then',
  '  echo "GitHub Copilot CLI executable not found on PATH after installation" >&2',
  "  exit 127",
  "fi",
  'GH_AW_COPILOT_BIN="${RUNNER_TEMP}/gh-aw/bin/copilot"',
  'mkdir -p "${RUNNER_TEMP}/gh-aw/bin"',
  'if [ "$GH_AW_COPILOT_SRC" != "$GH_AW_COPILOT_BIN" ]; then',
  '  cp "$GH_AW_COPILOT_SRC" "$GH_AW_COPILOT_BIN"',
  "fi",
  'chmod 755 "$GH_AW_COPILOT_BIN"',
  "",
];

/** Inside the firewall a harnessed run also finds the globally installed npm packages. */
const NPM_GLOBAL_ROOT =
  'GH_AW_NPM_GLOBAL_ROOT="$(npm root -g 2>/dev/null || true)"; if [ -n "$GH_AW_NPM_GLOBAL_ROOT" ]; ' +
  'then export NODE_PATH="${GH_AW_NPM_GLOBAL_ROOT}${NODE_PATH:+:${NODE_PATH}}"; fi;';

/** The env a harnessed run adds: provider, turn and credit limits, timeout and trace parent. */
function harnessEnv(agentInput: AgentInput): Record<string, YValue> {
  const env: Record<string, YValue> = {
    GH_AW_LLM_PROVIDER: "github",
    GH_AW_MAX_TURNS: plain("${{ vars.GH_AW_DEFAULT_MAX_TURNS || '' }}"),
    TRACEPARENT: plain(
      "${{ env.GITHUB_AW_OTEL_TRACE_ID != '' && env.GITHUB_AW_OTEL_PARENT_SPAN_ID != '' && " +
        "format('00-{0}-{1}-01', env.GITHUB_AW_OTEL_TRACE_ID, env.GITHUB_AW_OTEL_PARENT_SPAN_ID) || '' }}",
    ),
  };
  // A workflow's own credit limit is written into the firewall config; else the repository's default.
  if (agentInput.frontmatter["max-ai-credits"] === undefined) {
    env.GH_AW_MAX_AI_CREDITS = plain("${{ vars.GH_AW_DEFAULT_MAX_AI_CREDITS || '1000' }}");
  }
  if (agentInput.timeoutMinutes !== undefined) {
    env.GH_AW_TIMEOUT_MINUTES = plain(String(agentInput.timeoutMinutes));
  }
  return env;
}

/** The Copilot CLI execution step (`harnessed`: as a release with the harnessed run writes it). */
function execute(agentInput: AgentInput, harnessed = false): StepPlan {
  const tools = agentTools(agentInput);
  const toolArgs = copilotToolArgs(agentInput, tools);
  const eng = agentInput.engine;
  const args = [
    "--add-dir",
    "/tmp/gh-aw/",
    "--log-level",
    "all",
    "--log-dir",
    "/tmp/gh-aw/sandbox/agent/logs/",
    "--disable-builtin-mcps",
    "--no-ask-user",
  ];
  if (eng.agent) args.push("--agent", eng.agent);
  const cont = Number(eng.maxContinuations ?? 0);
  if (cont > 1) args.push("--autopilot", "--max-autopilot-continues", String(cont));
  args.push(...toolArgs);
  for (const dir of cacheMemoryDirNames(agentInput.merged.tools["cache-memory"])) {
    args.push("--add-dir", `${dir}/`);
  }
  if (tools.edit !== undefined && tools.edit !== false) args.push("--allow-all-paths");
  if (mappingOf(agentInput.frontmatter.engine).bare === true) args.push("--no-custom-instructions");
  const byok = eng.byok;
  const custom = typeof mappingOf(agentInput.frontmatter.engine).command === "string"
    ? String(mappingOf(agentInput.frontmatter.engine).command)
    : undefined;
  const cli = custom ? "/tmp/gh-aw/engine-command.sh" : "/usr/local/bin/copilot";
  const launch = harnessed
    ? `${NODE_PATH_SETUP.replace(/ "\$GH_AW_NODE_EXEC"$/, "")} ${NPM_GLOBAL_ROOT} "$GH_AW_NODE_EXEC" ` +
      `"\${RUNNER_TEMP}/gh-aw/actions/copilot_harness.cjs" ${
        custom ? cli : '"${RUNNER_TEMP}/gh-aw/bin/copilot"'
      }`
    : `${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/copilot_harness.cjs ${cli}`;
  const command = `${MCP_CLI_PATH} && ${launch} ${
    args.map(shellArg).join(" ")
  } --add-dir "\${GITHUB_WORKSPACE}" --prompt-file ${PROMPT}`;
  const env: Record<string, YValue> = {
    ...commonEnv(agentInput, tools),
    AWF_REFLECT_ENABLED: plain("1"),
    COPILOT_AGENT_RUNNER_TYPE: "STANDALONE",
    COPILOT_DUMMY_BYOK: "dummy-byok-key-for-offline-mode",
    COPILOT_MODEL: plain(eng.model ?? eng.info.defaultModel),
    GH_AW_MCP_CONFIG: "/home/runner/.copilot/mcp-config.json",
    GITHUB_API_URL: plain("${{ github.api_url }}"),
    GITHUB_COPILOT_INTEGRATION_ID: "agentic-workflows",
    GITHUB_HEAD_REF: plain("${{ github.head_ref }}"),
    GITHUB_REF_NAME: plain("${{ github.ref_name }}"),
    GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
    XDG_CONFIG_HOME: "/home/runner",
  };
  if (!byok) {
    env.COPILOT_GITHUB_TOKEN = plain(
      eng.usesCopilotRequests ? "${{ github.token }}" : "${{ secrets.COPILOT_GITHUB_TOKEN }}",
    );
  }
  if (eng.usesCopilotRequests) env.S2STOKENS = plain("true");
  if (harnessed) {
    // The script sets the config home and the MCP config path itself.
    delete env.GH_AW_MCP_CONFIG;
    delete env.XDG_CONFIG_HOME;
    Object.assign(env, harnessEnv(agentInput));
  }
  const toolTimeout = agentInput.merged.tools.timeout;
  if (toolTimeout !== undefined) env.GH_AW_TOOL_TIMEOUT = plain(String(toolTimeout));
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  const exclude = ["MCP_GATEWAY_API_KEY", ...secretNames(env)];
  if (!byok) exclude.push("COPILOT_GITHUB_TOKEN");
  if (cliProxyEnabled(agentInput)) exclude.push("GH_TOKEN");
  const step: StepPlan = { name: `Execute ${eng.info.cliName}`, id: "agentic_execution" };
  step["#"] = new Comment("Copilot CLI tool arguments (sorted):");
  for (let i = 0; i + 1 < toolArgs.length; i += 2) {
    step[`#${i}`] = new Comment(`${toolArgs[i]} ${toolArgs[i + 1]}`);
  }
  step["timeout-minutes"] = agentInput.timeoutMinutes;
  step.run = agentAwfScript(agentInput, {
    setup: [
      ...(harnessed ? HARNESS_SETUP : []),
      ...(custom ? engineCommandSetup(custom) : []),
      `touch ${STEP_SUMMARY}`,
      ...NODE_BIN_SETUP,
    ],
    tty: false,
    exclude,
    command,
  });
  step.env = sorted(env);
  return step;
}

/** The Copilot CLI reviewing (also with a BYOK provider: the same env, without the Copilot token). */
function detectionEnv(d: DetectionInput): Record<string, YValue> {
  const { ctx } = d;
  const model = d.model ??
    `\${{ vars.GH_AW_MODEL_DETECTION_COPILOT || vars.GH_AW_DEFAULT_MODEL_COPILOT || '${MODEL}' }}`;
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
  delete env.COPILOT_GITHUB_TOKEN;
  Object.assign(env, d.byokEnv);
  return sortedEnv(env);
}

/** "Detect agent errors" as v0.76.1 writes it: the detector run with `node`. */
const DETECT_ERRORS: StepPlan = {
  name: "Detect agent errors",
  if: plain("always()"),
  id: "detect-agent-errors",
  "continue-on-error": true,
  run: plain('node "${RUNNER_TEMP}/gh-aw/actions/detect_agent_errors.cjs"'),
};

/**
 * "Detect agent errors" as a github-script step that also reads how the CLI's step ended and its time bound
 * (so a timeout is told apart from a crash).
 */
function detectErrorsScript(agentInput: AgentInput): StepPlan {
  const env: Record<string, YValue> = {
    GH_AW_AGENTIC_EXECUTION_OUTCOME: plain("${{ steps.agentic_execution.outcome }}"),
  };
  const timeout = agentInput.timeoutMinutes;
  if (timeout !== undefined) env.GH_AW_ENGINE_STEP_TIMEOUT_MINUTES = plain(String(timeout));
  const script = scriptStep(agentInput.ctx, "Detect agent errors", "detect_agent_errors");
  return {
    name: "Detect agent errors",
    if: plain("always()"),
    id: "detect-agent-errors",
    "continue-on-error": true,
    env,
    uses: script.uses,
    with: script.with,
  };
}

/** The Copilot CLI as a later release ships it: how it is installed and how its errors are detected. */
function copilotForRelease(release: EngineRelease, target: EngineTarget): Partial<Engine> {
  const changes: Partial<Engine> = {};
  if (release.installByCompiledVersion) {
    // The install script picks the CLI release matching the compiler that wrote the lock.
    const install = {
      run: `bash "\${RUNNER_TEMP}/gh-aw/actions/install_copilot_cli.sh"`,
      env: { ...INSTALL_ENV, GH_AW_COMPILED_VERSION: target.version },
    };
    changes.agentInstall = install;
    changes.detection = {
      ...copilot.detection,
      installSteps: (_d, awf) => [
        { name: "Install GitHub Copilot CLI", run: plain(install.run), env: { ...install.env } },
        awf,
      ],
    };
  }
  if (release.harnessedRun) {
    // The harnessed CLI reads its MCP config under the runner user's `$HOME`.
    changes.mcp = { ...copilot.mcp, configDir: '"$HOME/.copilot"' };
  }
  if (release.errorsByScript || release.harnessedRun) {
    const harnessed = release.harnessedRun === true;
    changes.execute = (a) => [
      execute(a, harnessed),
      release.errorsByScript ? detectErrorsScript(a) : DETECT_ERRORS,
    ];
  }
  return changes;
}

/** GitHub Copilot CLI. */
export const copilot: Engine = {
  id: "copilot",
  displayName: "GitHub Copilot CLI",
  validateName: "GitHub Copilot CLI",
  version: VERSION,
  docs: `${DOCS}#github-copilot-default`,
  secrets: ["COPILOT_GITHUB_TOKEN"],
  defaultModel: `\${{ vars.GH_AW_MODEL_AGENT_COPILOT || vars.GH_AW_DEFAULT_MODEL_COPILOT || '${MODEL}' }}`,
  supportsMaxTurns: false,
  supportsMaxContinuations: true,
  experimental: false,
  providerAuth: false,
  toolsAllowlist: true,
  cliName: "GitHub Copilot CLI",
  agentInstall: { run: INSTALL, env: INSTALL_ENV },
  needsNode: false,
  installAfterAwf: false,
  logParser: { module: "parse_copilot_log", output: "/tmp/gh-aw/sandbox/agent/logs/" },
  apiHosts:
    "api.enterprise.githubcopilot.com,api.githubcopilot.com,api.business.githubcopilot.com,api.individual.githubcopilot.com",
  reportsFirewall: true,
  detectsErrors: true,
  reportsVersion: true,
  logPath: "/tmp/gh-aw/sandbox/agent/logs/",
  redactsUrls: true,
  pluginInstall: "copilot plugin install",
  instructionFiles: DEFAULT_INSTRUCTION_FILES,
  mcp: { format: "json", varRefs: true, configDir: "/home/runner/.copilot", ghProxyFallback: false },
  byokEnvKey: "COPILOT_PROVIDER_BASE_URL",
  copilotRequests: true,
  oauthHint: "use an API key secret",
  execute: (a) => [execute(a), DETECT_ERRORS],
  forRelease: copilotForRelease,
  afterRun: () => [{
    name: "Copy Copilot session state files to logs",
    if: plain("always()"),
    "continue-on-error": true,
    run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/copy_copilot_session_state.sh"'),
  }],
  detection: {
    needsNode: true,
    imagesFirst: true,
    installSteps: (_d, awf) => [
      { name: "Install GitHub Copilot CLI", run: plain(INSTALL), env: { ...INSTALL_ENV } },
      awf,
    ],
    decorate: (exec) => {
      exec["#"] = new Comment("Copilot CLI tool arguments (sorted):");
      exec["timeout-minutes"] = 20;
    },
    domains: () => [...ECOSYSTEMS["threat-detection"]],
    setup: [TOUCH_SUMMARY, ...NODE_BIN_SETUP],
    command: () =>
      `${NODE_HARNESS}copilot_harness.cjs /usr/local/bin/copilot --add-dir /tmp/gh-aw/ --log-level all --log-dir /tmp/gh-aw/sandbox/agent/logs/ --disable-builtin-mcps --no-ask-user --allow-all-tools --add-dir "\${GITHUB_WORKSPACE}" --prompt-file ${DETECTION_PROMPT}`,
    envArgs: (byok) => byok ? "--env-all" : "--env-all --exclude-env COPILOT_GITHUB_TOKEN",
    env: ({ d }) => detectionEnv(d),
  },
};
