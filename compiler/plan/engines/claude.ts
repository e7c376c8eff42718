/**
 * Claude Code: run through gh-aw's Node.js harness with its allowed tools and the MCP gateway's JSON config,
 * its shell and MCP timeouts from `tools.timeout`; federates with Anthropic through `engine.auth`.
 */
import type { Engine } from "./contract.ts";
import { DOCS } from "./facts.ts";
import type { AgentInput } from "../agent/input.ts";
import type { StepPlan } from "../types.ts";
import { Comment, plain, type YValue } from "../../yaml/writer.ts";
import { MCP_CLI_PATH, NODE_PATH_SETUP } from "../agent/awf_command.ts";
import {
  bashWildcard,
  cacheMemoryDirNames,
  cliProxyEnabled,
  isMcpServer,
  mcpSecretEnv,
  mountedCliServers,
  normalizeBash,
  playwrightCliMode,
  shellArg,
} from "../agent/engine_tools.ts";
import { GITHUB_DEFAULT_TOOLS, PLAYWRIGHT_TOOLS } from "../mcp/tool_lists.ts";
import {
  agentTools,
  commonEnv,
  federationEnv,
  OIDC_REQUEST_ENV,
  PROMPT,
  secretNames,
  sorted,
  STEP_SUMMARY,
  toolTimeout,
} from "../agent/engine_env.ts";
import { agentAwfScript } from "../agent/engine_exec.ts";
import { engineDomains } from "../network.ts";
import {
  DETECTION_PROMPT,
  type DetectionInput,
  GIT_IDENTITY,
  NODE_HARNESS,
  phaseEnv,
  TOUCH_SUMMARY,
} from "./review.ts";
import { mappingOf, objectOf } from "../../source/values.ts";

const VERSION = "2.1.156";
const INSTALL = `npm install -g @anthropic-ai/claude-code@${VERSION}`;

/** The tools Claude Code may use while reviewing: reading, searching and writing under /tmp only. */
const DETECTION_TOOLS = [
  "Bash",
  "BashOutput",
  "Edit(/tmp/*)",
  "ExitPlanMode",
  "Glob",
  "Grep",
  "KillBash",
  "LS",
  "MultiEdit(/tmp/*)",
  "NotebookRead",
  "Read",
  "Read(/tmp/*)",
  "Task",
  "TodoWrite",
  "Write(/tmp/*)",
];

/** Claude's `--allowed-tools` entries (sorted, unique). */
function claudeAllowedTools(agentInput: AgentInput, tools: Record<string, unknown>): string[] {
  const out: string[] = ["Task", "Glob", "Grep", "ExitPlanMode", "TodoWrite", "LS", "Read", "NotebookRead"];
  const bash = tools.bash;
  if (bash !== undefined) {
    if (Array.isArray(bash) && !bashWildcard(tools)) {
      for (const c of bash) if (typeof c === "string") out.push(`Bash(${normalizeBash(c)})`);
      if (bash.length > 0) {
        for (const s of mountedCliServers(agentInput)) out.push(`Bash(${s}:*)`);
        if (playwrightCliMode(tools)) out.push("Bash(playwright-cli:*)");
        if (cliProxyEnabled(agentInput)) out.push("Bash(gh:*)");
      }
    } else out.push("Bash");
    out.push("KillBash", "BashOutput");
  }
  if (tools["web-fetch"] !== undefined && tools["web-fetch"] !== false) out.push("WebFetch");
  if (tools["web-search"] !== undefined && tools["web-search"] !== false) out.push("WebSearch");
  if ("edit" in tools && tools.edit !== false) out.push("Edit", "MultiEdit", "NotebookEdit", "Write");
  const servers: Record<string, unknown> = { ...tools, ...agentInput.merged.mcpServers };
  for (const [name, cfg] of Object.entries(servers)) {
    if (["bash", "edit", "web-fetch", "web-search", "cli-proxy", "timeout"].includes(name) || cfg === false) {
      continue;
    }
    const c = objectOf(cfg);
    const allowed = Array.isArray(c.allowed) ? c.allowed as string[] : undefined;
    if (name === "cache-memory") {
      for (const dir of cacheMemoryDirNames(cfg)) {
        for (const t of ["Read", "Write", "Edit", "MultiEdit"]) out.push(`${t}(${dir}/*)`);
        if (!out.includes("Bash")) {
          out.push(`Bash(mkdir -p ${dir}/)`, `Bash(cat ${dir}/)`, `Bash(cat > ${dir}/)`, `Bash(mv ${dir}/)`);
          out.push("BashOutput", "KillBash");
        }
      }
    } else if (name === "agentic-workflows") out.push("mcp__agenticworkflows");
    else if (name === "github") {
      if (allowed?.includes("*")) out.push("mcp__github");
      else out.push(...(allowed?.length ? allowed : GITHUB_DEFAULT_TOOLS).map((t) => `mcp__github__${t}`));
    } else if (name === "playwright") {
      out.push(...PLAYWRIGHT_TOOLS.map((t) => `mcp__playwright__${t}`));
    } else if (name === "serena" || isMcpServer(name, c, agentInput)) {
      if (!allowed || allowed.includes("*")) out.push(`mcp__${name}`);
      else out.push(...allowed.map((t) => `mcp__${name}__${t}`));
    }
  }
  for (const dir of ["/tmp", "/tmp/gh-aw/agent"]) {
    for (const t of ["Read", "Write", "Edit", "MultiEdit"]) out.push(`${t}(${dir}/*)`);
  }
  out.push("mcp__safeoutputs", "Write");
  if (agentInput.mcpScripts !== undefined) out.push("mcp__mcpscripts");
  return [...new Set(out)].sort();
}

/** The Claude Code execution step. */
function execute(agentInput: AgentInput): StepPlan {
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
  if (mappingOf(agentInput.frontmatter.engine).bare === true) args.push("--bare");
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

/** Claude Code reviewing, with bounded shell and MCP timeouts. */
function detectionEnv(d: DetectionInput): Record<string, YValue> {
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

/** Claude Code. */
export const claude: Engine = {
  id: "claude",
  displayName: "Claude Code",
  validateName: "Claude Code",
  version: VERSION,
  docs: `${DOCS}#anthropic-claude-code`,
  secrets: ["ANTHROPIC_API_KEY"],
  defaultModel: "${{ vars.GH_AW_MODEL_AGENT_CLAUDE || vars.GH_AW_DEFAULT_MODEL_CLAUDE || 'agent' }}",
  supportsMaxTurns: true,
  supportsMaxContinuations: false,
  experimental: false,
  providerAuth: false,
  toolsAllowlist: true,
  cliName: "Claude Code CLI",
  agentInstall: { run: INSTALL },
  needsNode: true,
  installAfterAwf: true,
  logParser: { module: "parse_claude_log", output: "/tmp/gh-aw/agent-stdio.log" },
  apiHosts: "api.anthropic.com",
  reportsFirewall: true,
  detectsErrors: false,
  reportsVersion: false,
  redactsUrls: false,
  agentDirs: { root: ".claude", agents: ".claude/agents", ext: ".md", skills: ".claude/skills" },
  pluginInstall: "claude plugin install",
  instructionFiles: ["CLAUDE.md", "AGENTS.md"],
  mcp: { format: "json", varRefs: false, ghProxyFallback: false },
  copilotRequests: false,
  oauthHint: "use an ANTHROPIC_API_KEY secret or workload identity federation",
  execute: (a) => [execute(a)],
  detection: {
    needsNode: true,
    imagesFirst: true,
    installSteps: (_d, awf) => [awf, { name: "Install Claude Code CLI", run: plain(INSTALL) }],
    decorate: (exec) => {
      exec["#0"] = new Comment("Allowed tools (sorted):");
      DETECTION_TOOLS.forEach((t, i) => (exec[`#${i + 1}`] = new Comment(`- ${t}`)));
      exec["timeout-minutes"] = 20;
    },
    domains: (model) => engineDomains(claude, model),
    setup: [TOUCH_SUMMARY],
    command: () =>
      `${NODE_HARNESS}claude_harness.cjs claude --print --no-chrome --allowed-tools '\\''${
        DETECTION_TOOLS.join(",")
      }'\\'' --debug-file /tmp/gh-aw/threat-detection/detection.log --verbose --permission-mode acceptEdits --output-format stream-json --prompt-file ${DETECTION_PROMPT}\${GH_AW_MODEL_DETECTION_CLAUDE:+ --model "$GH_AW_MODEL_DETECTION_CLAUDE"}`,
    envArgs: () => "--tty --env-all --exclude-env ANTHROPIC_API_KEY",
    env: ({ d }) => detectionEnv(d),
  },
};
