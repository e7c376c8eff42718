/** The execution steps of the Copilot, Claude and Codex engines inside the AWF firewall. */
import type { AgentInput } from "./input.ts";
import type { StepPlan } from "../types.ts";
import { Comment, lit, litBareBlanks, plain, type YValue } from "../../yaml/writer.ts";
import { awfScript, MCP_CLI_PATH, NODE_PATH_SETUP } from "./awf_command.ts";
import {
  cacheMemoryDirNames,
  claudeAllowedTools,
  cliProxyEnabled,
  copilotToolArgs,
  mcpSecretEnv,
  shellArg,
} from "./engine_tools.ts";
import {
  agentTools,
  awfConfigInput,
  commonEnv,
  customMounts,
  extraAwfArgs,
  federationEnv,
  obj,
  OIDC_REQUEST_ENV,
  PROMPT,
  secretNames,
  sorted,
  STEP_SUMMARY,
  toolTimeout,
} from "./engine_env.ts";

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

/** The Copilot CLI execution step. */
export function copilotExecute(agentInput: AgentInput): StepPlan {
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
  for (const dir of cacheMemoryDirs(agentInput)) args.push("--add-dir", dir);
  if (tools.edit !== undefined && tools.edit !== false) args.push("--allow-all-paths");
  if (obj(agentInput.frontmatter.engine).bare === true) args.push("--no-custom-instructions");
  const byok = "COPILOT_PROVIDER_BASE_URL" in agentInput.engineEnv;
  const custom = typeof obj(agentInput.frontmatter.engine).command === "string"
    ? String(obj(agentInput.frontmatter.engine).command)
    : undefined;
  const command = `${MCP_CLI_PATH} && ${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/copilot_harness.cjs ` +
    `${custom ? "/tmp/gh-aw/engine-command.sh" : "/usr/local/bin/copilot"} ${
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
      agentInput.usesCopilotRequests ? "${{ github.token }}" : "${{ secrets.COPILOT_GITHUB_TOKEN }}",
    );
  }
  if (agentInput.usesCopilotRequests) env.S2STOKENS = plain("true");
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
      ...(custom ? engineCommandSetup(custom) : []),
      `touch ${STEP_SUMMARY}`,
      "GH_AW_NODE_BIN=$(command -v node 2>/dev/null || true)",
      "export GH_AW_NODE_BIN",
      'export COPILOT_API_KEY="$COPILOT_DUMMY_BYOK"',
    ],
    tty: false,
    exclude,
    command,
  });
  step.env = sorted(env);
  return step;
}

/** `--add-dir` folders of the cache memories. */
function cacheMemoryDirs(agentInput: AgentInput): string[] {
  return cacheMemoryDirNames(agentInput.merged.tools["cache-memory"]).map((d) => `${d}/`);
}

/** The Claude Code execution step. */
export function claudeExecute(agentInput: AgentInput): StepPlan {
  const tools = agentTools(agentInput);
  const allowed = claudeAllowedTools(agentInput, tools);
  const eng = agentInput.engine;
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
  if (obj(agentInput.frontmatter.engine).bare === true) args.push("--bare");
  const command =
    `${MCP_CLI_PATH} && ${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/claude_harness.cjs claude ` +
    `${args.map(shellArg).join(" ")} --mcp-config "\${RUNNER_TEMP}/gh-aw/mcp-config/mcp-servers.json" ` +
    `--prompt-file ${PROMPT}\${GH_AW_MODEL_AGENT_CLAUDE:+ --model "$GH_AW_MODEL_AGENT_CLAUDE"}`;
  const timeout = toolTimeout(agentInput);
  const ms = plain(String((timeout ?? 60) * 1000));
  const env: Record<string, YValue> = {
    ...commonEnv(agentInput, tools, false),
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
  if (eng.auth) {
    delete env.ANTHROPIC_API_KEY;
    Object.assign(env, federationEnv(eng.auth));
  }
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  const exclude = [
    "ANTHROPIC_API_KEY",
    ...(eng.auth ? OIDC_REQUEST_ENV : []),
    "MCP_GATEWAY_API_KEY",
    ...secretNames(env),
    ...Object.keys(mcpSecretEnv(agentInput)),
  ];
  if (tools.github !== undefined) exclude.push("GITHUB_MCP_SERVER_TOKEN");
  if (cliProxyEnabled(agentInput)) exclude.push("GH_TOKEN");
  const step: StepPlan = { name: `Execute ${eng.info.cliName}`, id: "agentic_execution" };
  step["#"] = new Comment("Allowed tools (sorted):");
  allowed.forEach((t, i) => (step[`#${i}`] = new Comment(`- ${t}`)));
  step["timeout-minutes"] = agentInput.timeoutMinutes;
  step.run = agentAwfScript(agentInput, { setup: [`touch ${STEP_SUMMARY}`], tty: true, exclude, command });
  step.env = sorted(env);
  return step;
}

/** The Codex execution step. */
export function codexExecute(agentInput: AgentInput): StepPlan {
  const tools = agentTools(agentInput);
  const eng = agentInput.engine;
  const webSearch = tools["web-search"] !== undefined && tools["web-search"] !== false;
  const webFetch = tools["web-fetch"] !== undefined && tools["web-fetch"] !== false;
  const command =
    `${MCP_CLI_PATH} && ${NODE_PATH_SETUP} \${RUNNER_TEMP}/gh-aw/actions/codex_harness.cjs codex exec` +
    `\${GH_AW_MODEL_AGENT_CODEX:+ --model "$GH_AW_MODEL_AGENT_CODEX"}` +
    (webSearch ? "" : ` -c web_search="disabled"`) + (webFetch ? "" : ` -c fetch="disabled"`) +
    ` --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check  --prompt-file ${PROMPT}`;
  const key = plain("${{ secrets.CODEX_API_KEY || secrets.OPENAI_API_KEY }}");
  const env: Record<string, YValue> = {
    ...commonEnv(agentInput, tools, false),
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
  for (const [k, v] of Object.entries(agentInput.engineEnv)) env[k] = v;
  const exclude = ["MCP_GATEWAY_API_KEY", ...secretNames(env), ...Object.keys(mcpSecretEnv(agentInput))];
  if (tools.github !== undefined) exclude.push("GITHUB_MCP_SERVER_TOKEN");
  if (cliProxyEnabled(agentInput)) exclude.push("GH_TOKEN");
  return {
    name: `Execute ${eng.info.cliName}`,
    id: "agentic_execution",
    run: agentAwfScript(agentInput, {
      setup: [`mkdir -p "$CODEX_HOME/logs" && touch ${STEP_SUMMARY}`],
      tty: false,
      exclude,
      command,
    }),
    env: sorted(env),
  };
}

/** The AWF run script of an agent engine: the workflow's firewall config, mounts and CLI proxy, plus the engine's part. */
function agentAwfScript(
  agentInput: AgentInput,
  e: { setup: string[]; tty: boolean; exclude: string[]; command: string },
): ReturnType<typeof lit> {
  const script = awfScript({
    setup: e.setup,
    config: awfConfigInput(agentInput),
    extraArgs: extraAwfArgs(agentInput),
    tty: e.tty,
    excludeEnv: e.exclude,
    mounts: customMounts(agentInput),
    cliProxy: cliProxyEnabled(agentInput),
    command: e.command,
  });
  // gh-aw writes the `engine.command` heredoc line by line: its closing empty line carries no indentation.
  const lines = script.split("\n");
  const bare = lines.flatMap((l, i) => l === "" && lines[i + 1] === "GH_AW_ENGINE_COMMAND_EOF" ? [i] : []);
  return bare.length > 0 ? litBareBlanks(script, bare) : lit(script);
}
