/**
 * The engine steps of the agent job, as gh-aw v0.76 writes them: install the engine CLI (and Node.js when
 * the CLI comes from npm) and the AWF binary, run the engine inside the AWF firewall, detect agent errors,
 * copy Copilot's session state and parse the engine's log for the step summary.
 */
import type { AgentInput } from "./agent_input.ts";
import type { StepPlan } from "./plan_types.ts";
import { scriptStep, shStep, VERSIONS } from "./jobs_common.ts";
import { Comment, dq, lit, plain, sq, Styled, type YValue } from "./yaml_writer.ts";
import { awfScript, MCP_CLI_PATH, NODE_PATH_SETUP } from "./awf_command.ts";
import {
  cacheMemoryDirNames,
  claudeAllowedTools,
  cliProxyEnabled,
  copilotToolArgs,
  effectiveTools,
  mcpSecretEnv,
  shellArg,
} from "./engine_tools.ts";

const GIT_IDENTITY: Record<string, YValue> = {
  GIT_AUTHOR_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_AUTHOR_NAME: plain("github-actions[bot]"),
  GIT_COMMITTER_EMAIL: plain("github-actions[bot]@users.noreply.github.com"),
  GIT_COMMITTER_NAME: plain("github-actions[bot]"),
};

const DEFAULT_GITHUB_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";
const CLI_PROXY_TOKEN = "${{ secrets.GH_AW_GITHUB_TOKEN || github.token }}";
const PROMPT = "/tmp/gh-aw/aw-prompts/prompt.txt";
const STEP_SUMMARY = "/tmp/gh-aw/agent-step-summary.md";

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
}

/** Sorts an env map by key (gh-aw writes engine env blocks sorted). */
function sorted(env: Record<string, YValue>): Record<string, YValue> {
  return Object.fromEntries(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The `Setup Node.js` step engines installed with npm need. */
function setupNodeStep(a: AgentInput): StepPlan {
  return {
    name: "Setup Node.js",
    uses: plain(a.setupNodeRef ?? "actions/setup-node@v6.4.0"),
    with: { "node-version": sq("24"), "package-manager-cache": false },
  };
}

/** Steps installing playwright-cli when `tools.playwright.mode: cli`. */
function playwrightCliSteps(a: AgentInput): StepPlan[] {
  const p = obj(a.merged.tools.playwright);
  if (p.mode !== "cli") return [];
  return [
    {
      name: "Install Playwright CLI",
      run: plain("npm install -g @playwright/cli@0.1.13"),
      env: { NPM_CONFIG_MIN_RELEASE_AGE: sq("3") },
      "timeout-minutes": 10,
    },
    {
      name: "Install Playwright CLI skills",
      run: plain("playwright-cli install --skills"),
      env: { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: sq("1") },
      "timeout-minutes": 10,
    },
  ];
}

/** The steps that install the engine CLI and the AWF binary. */
export function engineInstallSteps(a: AgentInput): StepPlan[] {
  const info = a.engine.info;
  const install: StepPlan = { name: `Install ${info.cliName}`, run: plain(info.agentInstall.run) };
  if (info.agentInstall.env) {
    install.env = Object.fromEntries(
      Object.entries(info.agentInstall.env).map(([k, v]) => [k, /^\d+$/.test(v) ? sq(v) : v]),
    );
  }
  const awf = shStep("Install AWF binary", "install_awf_binary", VERSIONS.awf);
  const steps: StepPlan[] = info.needsNode ? [setupNodeStep(a)] : [];
  if (typeof obj(a.frontmatter.engine).command === "string") steps.push(awf); // custom command: no CLI install
  else steps.push(...(info.installAfterAwf ? [awf, install] : [install, awf]));
  if (info.id === "crush") {
    steps.push({ name: "Verify Crush CLI installation", run: plain("crush --version") });
  }
  steps.push(...playwrightCliSteps(a));
  return steps;
}

/** Env shared by every engine's execution step (before the engine-specific additions). */
function commonEnv(a: AgentInput, tools: Record<string, unknown>, mcpEnv = true): Record<string, YValue> {
  const env: Record<string, YValue> = {
    GH_AW_PHASE: "agent",
    GH_AW_PROMPT: PROMPT,
    GH_AW_SAFE_OUTPUTS: plain("${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}"),
    GH_AW_VERSION: "dev",
    GITHUB_AW: plain("true"),
    GITHUB_STEP_SUMMARY: STEP_SUMMARY,
    GITHUB_WORKSPACE: plain("${{ github.workspace }}"),
    RUNNER_TEMP: plain("${{ runner.temp }}"),
    ...GIT_IDENTITY,
  };
  if (a.safeOutputs.staged) env.GH_AW_SAFE_OUTPUTS_STAGED = plain("true");
  if (a.safeOutputs.types.includes("upload-asset")) {
    const u = obj(a.safeOutputs.raw["upload-asset"]);
    env.GH_AW_ASSETS_BRANCH = dq(String(u.branch ?? "assets/${{ github.workflow }}"));
    env.GH_AW_ASSETS_MAX_SIZE_KB = plain(String(u["max-size"] ?? 10240));
    env.GH_AW_ASSETS_ALLOWED_EXTS = dq(
      (Array.isArray(u["allowed-exts"]) ? u["allowed-exts"] : [".png", ".jpg", ".jpeg", ".svg"]).join(","),
    );
  }
  if (tools.github !== undefined && mcpEnv) {
    const token = obj(tools.github)["github-token"];
    env.GITHUB_MCP_SERVER_TOKEN = plain(typeof token === "string" ? token : DEFAULT_GITHUB_TOKEN);
  }
  if (mcpEnv) { for (const [k, v] of Object.entries(mcpSecretEnv(a))) env[k] = plain(v); }
  if (cliProxyEnabled(a)) env.GH_TOKEN = plain(CLI_PROXY_TOKEN);
  for (const [k, v] of Object.entries(a.engineEnv)) env[k] = v;
  return env;
}

/** Names of env vars holding secrets, hidden from the agent container. */
function secretNames(env: Record<string, YValue>): string[] {
  return Object.entries(env).filter(([, v]) =>
    String(v instanceof Styled ? v.value : v).includes("${{ secrets.")
  )
    .map(([k]) => k);
}

/** The agent's tools with gh-aw's defaults applied. */
function agentTools(a: AgentInput): Record<string, unknown> {
  return effectiveTools(a.merged.tools, a.safeOutputs.types, obj(a.frontmatter.tools));
}

/** Lines writing `engine.command` into an executable script the harness runs instead of the CLI. */
function engineCommandSetup(command: string): string[] {
  return [
    "mkdir -p /tmp/gh-aw",
    "umask 0177",
    "cat > /tmp/gh-aw/engine-command.sh <<'GH_AW_ENGINE_COMMAND_EOF'",
    "#!/usr/bin/env bash",
    "set -eo pipefail",
    `${command} "$@"`,
    "",
    "GH_AW_ENGINE_COMMAND_EOF",
    "chmod 700 /tmp/gh-aw/engine-command.sh",
  ];
}

function copilotExecute(a: AgentInput): StepPlan {
  const tools = agentTools(a);
  const toolArgs = copilotToolArgs(a, tools);
  const eng = a.engine;
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
  for (const dir of cacheMemoryDirs(a)) args.push("--add-dir", dir);
  if (tools.edit !== undefined && tools.edit !== false) args.push("--allow-all-paths");
  if (obj(a.frontmatter.engine).bare === true) args.push("--no-custom-instructions");
  const byok = "COPILOT_PROVIDER_BASE_URL" in a.engineEnv;
  const custom = typeof obj(a.frontmatter.engine).command === "string"
    ? String(obj(a.frontmatter.engine).command)
    : undefined;
  const command = `${MCP_CLI_PATH} && ${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/copilot_harness.cjs ` +
    `${custom ? "/tmp/gh-aw/engine-command.sh" : "/usr/local/bin/copilot"} ${
      args.map(shellArg).join(" ")
    } --add-dir "\${GITHUB_WORKSPACE}" --prompt-file ${PROMPT}`;
  const env: Record<string, YValue> = {
    ...commonEnv(a, tools),
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
      a.usesCopilotRequests ? "${{ github.token }}" : "${{ secrets.COPILOT_GITHUB_TOKEN }}",
    );
  }
  if (a.usesCopilotRequests) env.S2STOKENS = plain("true");
  const toolTimeout = a.merged.tools.timeout;
  if (toolTimeout !== undefined) env.GH_AW_TOOL_TIMEOUT = plain(String(toolTimeout));
  for (const [k, v] of Object.entries(a.engineEnv)) env[k] = v;
  const exclude = ["MCP_GATEWAY_API_KEY", ...secretNames(env)];
  if (!byok) exclude.push("COPILOT_GITHUB_TOKEN");
  if (cliProxyEnabled(a)) exclude.push("GH_TOKEN");
  const step: StepPlan = { name: `Execute ${eng.info.cliName}`, id: "agentic_execution" };
  step["#"] = new Comment("Copilot CLI tool arguments (sorted):");
  for (let i = 0; i + 1 < toolArgs.length; i += 2) {
    step[`#${i}`] = new Comment(`${toolArgs[i]} ${toolArgs[i + 1]}`);
  }
  step["timeout-minutes"] = a.timeoutMinutes;
  step.run = lit(awfScript({
    setup: [
      ...(custom ? engineCommandSetup(custom) : []),
      `touch ${STEP_SUMMARY}`,
      "GH_AW_NODE_BIN=$(command -v node 2>/dev/null || true)",
      "export GH_AW_NODE_BIN",
      'export COPILOT_API_KEY="$COPILOT_DUMMY_BYOK"',
    ],
    config: awfConfigInput(a),
    extraArgs: extraAwfArgs(a),
    tty: false,
    excludeEnv: exclude,
    mounts: customMounts(a),
    cliProxy: cliProxyEnabled(a),
    command,
  }));
  step.env = sorted(env);
  return step;
}

/** `--add-dir` folders of the cache memories. */
function cacheMemoryDirs(a: AgentInput): string[] {
  return cacheMemoryDirNames(a.merged.tools["cache-memory"]).map((d) => `${d}/`);
}

function awfConfigInput(a: AgentInput) {
  const fm = a.frontmatter;
  const num = (
    v: unknown,
  ) => (typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? +v : undefined);
  return {
    allowDomains: a.allowedDomains,
    blockDomains: a.blockedDomains,
    maxRuns: num(fm["max-runs"]),
    maxEffectiveTokens: num(fm["max-effective-tokens"]),
  };
}

function extraAwfArgs(a: AgentInput): string[] {
  const out: string[] = [];
  if (a.safeOutputs.types.includes("upload-artifact")) {
    out.push(
      '--mount "${RUNNER_TEMP}/gh-aw/safeoutputs/upload-artifacts:${RUNNER_TEMP}/gh-aw/safeoutputs/upload-artifacts:rw"',
    );
  }
  const ports: string[] = [];
  for (const [id, svc] of Object.entries(obj(a.frontmatter.services))) {
    for (const p of Array.isArray(obj(svc).ports) ? obj(svc).ports as unknown[] : []) {
      const container = String(p).split(":").at(-1)!.split("/")[0];
      ports.push(`\${{ job.services['${id}'].ports['${container}'] }}`);
    }
  }
  if (ports.length) out.push(`--allow-host-service-ports "${ports.join(",")}"`);
  return out;
}

/** The step running the engine inside the AWF firewall, then "Detect agent errors". */
export function engineExecuteSteps(a: AgentInput): StepPlan[] {
  if (a.engine.info.id !== "copilot") return legacyExecute(a);
  return [copilotExecute(a), {
    name: "Detect agent errors",
    if: plain("always()"),
    id: "detect-agent-errors",
    "continue-on-error": true,
    run: plain('node "${RUNNER_TEMP}/gh-aw/actions/detect_agent_errors.cjs"'),
  }];
}

function legacyExecute(a: AgentInput): StepPlan[] {
  if (a.engine.info.id === "claude") return [claudeExecute(a)];
  if (a.engine.info.id === "codex") return [codexExecute(a)];
  return [{ name: `Execute ${a.engine.info.cliName}`, id: "agentic_execution" }];
}

/** Custom `--mount` arguments of `sandbox.agent.mounts` (sorted). */
function customMounts(a: AgentInput): string[] {
  const mounts = obj(obj(obj(a.frontmatter.sandbox).agent)).mounts;
  return Array.isArray(mounts) ? mounts.map(String).sort().map((m) => `--mount ${m}`) : [];
}

/** Tool-timeout env shared by engines: `tools.timeout` seconds (default 60). */
function toolTimeout(a: AgentInput): number | undefined {
  const t = a.merged.tools.timeout;
  return typeof t === "number" ? t : typeof t === "string" && /^\d+$/.test(t) ? +t : undefined;
}

function claudeExecute(a: AgentInput): StepPlan {
  const tools = agentTools(a);
  const allowed = claudeAllowedTools(a, tools);
  const eng = a.engine;
  const args = ["--print", "--no-chrome"];
  if (eng.maxTurns !== undefined) args.push("--max-turns", String(eng.maxTurns));
  args.push(
    "--allowed-tools",
    allowed.join(","),
    "--debug-file",
    "/tmp/gh-aw/agent-stdio.log",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    "--output-format",
    "stream-json",
  );
  if (obj(a.frontmatter.engine).bare === true) args.push("--bare");
  const command =
    `${MCP_CLI_PATH} && ${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/claude_harness.cjs claude ` +
    `${args.map(shellArg).join(" ")} --mcp-config "\${RUNNER_TEMP}/gh-aw/mcp-config/mcp-servers.json" ` +
    `--prompt-file ${PROMPT}\${GH_AW_MODEL_AGENT_CLAUDE:+ --model "$GH_AW_MODEL_AGENT_CLAUDE"}`;
  const timeout = toolTimeout(a);
  const ms = plain(String((timeout ?? 60) * 1000));
  const env: Record<string, YValue> = {
    ...commonEnv(a, tools, false),
    ANTHROPIC_API_KEY: plain("${{ secrets.ANTHROPIC_API_KEY }}"),
    BASH_DEFAULT_TIMEOUT_MS: ms,
    BASH_MAX_TIMEOUT_MS: ms,
    CLAUDE_CODE_DISABLE_FAST_MODE: plain("1"),
    DISABLE_BUG_COMMAND: plain("1"),
    DISABLE_ERROR_REPORTING: plain("1"),
    DISABLE_TELEMETRY: plain("1"),
    GH_AW_MCP_CONFIG: plain("${{ runner.temp }}/gh-aw/mcp-config/mcp-servers.json"),
    GH_AW_MODEL_AGENT_CLAUDE: plain(
      eng.model ?? "${{ vars.GH_AW_MODEL_AGENT_CLAUDE || vars.GH_AW_DEFAULT_MODEL_CLAUDE || '' }}",
    ),
    MCP_TIMEOUT: plain("120000"),
    MCP_TOOL_TIMEOUT: ms,
  };
  if (eng.maxTurns !== undefined) env.GH_AW_MAX_TURNS = plain(String(eng.maxTurns));
  if (timeout !== undefined) env.GH_AW_TOOL_TIMEOUT = plain(String(timeout));
  for (const [k, v] of Object.entries(a.engineEnv)) env[k] = v;
  const exclude = [
    "ANTHROPIC_API_KEY",
    "MCP_GATEWAY_API_KEY",
    ...secretNames(env),
    ...Object.keys(mcpSecretEnv(a)),
  ];
  if (tools.github !== undefined) exclude.push("GITHUB_MCP_SERVER_TOKEN");
  if (cliProxyEnabled(a)) exclude.push("GH_TOKEN");
  const step: StepPlan = { name: `Execute ${eng.info.cliName}`, id: "agentic_execution" };
  step["#"] = new Comment("Allowed tools (sorted):");
  allowed.forEach((t, i) => (step[`#${i}`] = new Comment(`- ${t}`)));
  step["timeout-minutes"] = a.timeoutMinutes;
  step.run = lit(awfScript({
    setup: [`touch ${STEP_SUMMARY}`],
    config: awfConfigInput(a),
    extraArgs: extraAwfArgs(a),
    tty: true,
    excludeEnv: exclude,
    mounts: customMounts(a),
    cliProxy: cliProxyEnabled(a),
    command,
  }));
  step.env = sorted(env);
  return step;
}

/** Engine-specific steps after the run (session state, log parsing for the step summary). */
export function engineLogSteps(a: AgentInput): StepPlan[] {
  const info = a.engine.info;
  const steps: StepPlan[] = [];
  if (info.id === "copilot") {
    steps.push({
      name: "Copy Copilot session state files to logs",
      if: plain("always()"),
      "continue-on-error": true,
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/copy_copilot_session_state.sh"'),
    });
  }
  if (info.logParser) {
    steps.push(scriptStep(a.ctx, "Parse agent logs for step summary", info.logParser.module, {
      if: plain("always()"),
      env: { GH_AW_AGENT_OUTPUT: info.logParser.output },
    }));
  }
  return steps;
}

function codexExecute(a: AgentInput): StepPlan {
  const tools = agentTools(a);
  const eng = a.engine;
  const webSearch = tools["web-search"] !== undefined && tools["web-search"] !== false;
  const webFetch = tools["web-fetch"] !== undefined && tools["web-fetch"] !== false;
  const command =
    `${MCP_CLI_PATH} && ${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/codex_harness.cjs codex exec` +
    `\${GH_AW_MODEL_AGENT_CODEX:+ --model "$GH_AW_MODEL_AGENT_CODEX"}` +
    (webSearch ? "" : ` -c web_search="disabled"`) + (webFetch ? "" : ` -c fetch="disabled"`) +
    ` --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check  --prompt-file ${PROMPT}`;
  const key = plain("${{ secrets.CODEX_API_KEY || secrets.OPENAI_API_KEY }}");
  const env: Record<string, YValue> = {
    ...commonEnv(a, tools, false),
    CODEX_API_KEY: key,
    CODEX_HOME: "/tmp/gh-aw/mcp-config",
    GH_AW_MCP_CONFIG: plain("${{ runner.temp }}/gh-aw/mcp-config/config.toml"),
    GH_AW_MODEL_AGENT_CODEX: plain(eng.model ?? eng.info.defaultModel),
    OPENAI_API_KEY: key,
    RUST_LOG: plain(
      "${{ runner.debug == 1 && 'trace,hyper_util=info,mio=info,reqwest=info,os_info=info,codex_otel=warn,codex_core=debug,ocodex_exec=debug' || 'warn' }}",
    ),
  };
  delete env.GITHUB_WORKSPACE;
  for (const [k, v] of Object.entries(a.engineEnv)) env[k] = v;
  const exclude = ["MCP_GATEWAY_API_KEY", ...secretNames(env), ...Object.keys(mcpSecretEnv(a))];
  if (tools.github !== undefined) exclude.push("GITHUB_MCP_SERVER_TOKEN");
  if (cliProxyEnabled(a)) exclude.push("GH_TOKEN");
  return {
    name: `Execute ${eng.info.cliName}`,
    id: "agentic_execution",
    run: lit(awfScript({
      setup: [`mkdir -p "$CODEX_HOME/logs" && touch ${STEP_SUMMARY}`],
      config: awfConfigInput(a),
      extraArgs: extraAwfArgs(a),
      tty: false,
      excludeEnv: exclude,
      mounts: customMounts(a),
      cliProxy: cliProxyEnabled(a),
      command,
    })),
    env: sorted(env),
  };
}
