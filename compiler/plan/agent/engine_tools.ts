/**
 * Effective agent tools (gh-aw's defaults applied) and the Copilot CLI tool-permission arguments derived
 * from them. Facts learnt from gh-aw v0.76 lock files: inside the AWF sandbox an absent `bash` means every
 * command (`*`) and an absent `edit` means enabled; a bash allowlist is prefixed with the default read-only
 * commands; pull-request safe outputs add the git commands they need.
 */
import type { AgentInput } from "./input.ts";
import { GITHUB_DEFAULT_TOOLS, PLAYWRIGHT_TOOLS } from "../mcp/tool_lists.ts";

/** Commands every bash allowlist starts with (in this order). */
export const DEFAULT_BASH = [
  "echo",
  "ls",
  "pwd",
  "cat",
  "head",
  "tail",
  "grep",
  "wc",
  "sort",
  "uniq",
  "date",
  "printf",
  "yq",
];

/** Git commands added for safe outputs that push commits. */
export const GIT_COMMANDS = [
  "git checkout:*",
  "git branch:*",
  "git switch:*",
  "git add:*",
  "git rm:*",
  "git commit:*",
  "git merge:*",
  "git status",
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

/** Whether the safe outputs push commits (and so need git in the agent). */
export function needsGitCommands(types: string[]): boolean {
  return types.includes("create-pull-request") || types.includes("push-to-pull-request-branch");
}

/** The workflow's tools with gh-aw's defaults applied (sandboxed agent). */
export function effectiveTools(
  tools: Record<string, unknown>,
  safeOutputTypes: string[],
  mainTools: Record<string, unknown> = {},
): Record<string, unknown> {
  const t: Record<string, unknown> = { ...tools };
  // `bash: true` in the workflow itself allows every command, whatever its imports list.
  if (mainTools.bash === true) t.bash = ["*"];
  if (t.github === false) delete t.github;
  else if (!t.github || typeof t.github !== "object") t.github = {};
  if (!("edit" in t)) t.edit = true;
  if (!("bash" in t)) t.bash = ["*"];
  const git = needsGitCommands(safeOutputTypes);
  if (git) {
    if (Array.isArray(t.bash)) {
      if (!t.bash.some((c) => c === "*" || c === ":*")) {
        t.bash = [...t.bash, ...GIT_COMMANDS.filter((g) => !(t.bash as unknown[]).includes(g))];
      }
    } else if (t.bash === false) t.bash = [...GIT_COMMANDS];
  }
  if (t.bash === null) {
    if (!git) t.bash = [...DEFAULT_BASH];
  } else if (t.bash === true) t.bash = ["*"];
  else if (t.bash === false) delete t.bash;
  else if (Array.isArray(t.bash) && t.bash.length > 0) {
    t.bash = [...DEFAULT_BASH.filter((c) => !(t.bash as unknown[]).includes(c)), ...t.bash];
  }
  return t;
}

/** Whether the bash allowlist contains the `*` wildcard. */
export function bashWildcard(tools: Record<string, unknown>): boolean {
  return Array.isArray(tools.bash) && tools.bash.some((c) => c === "*" || c === ":*");
}

/** Drops a trailing ` *` wildcard (`jq *` → `jq`). */
export function normalizeBash(cmd: string): string {
  return cmd.endsWith(" *") ? cmd.slice(0, -2).trimEnd() : cmd;
}

/** Shell-quotes one argument the way gh-aw does (single quotes only when needed). */
export function shellArg(arg: string): string {
  if (arg.length >= 2 && ((arg[0] === '"' && arg.at(-1) === '"') || (arg[0] === "'" && arg.at(-1) === "'"))) {
    return arg;
  }
  return /[()[\]{}*?$`"'\\|&;<> \t\n]/.test(arg) ? `'${arg.replace(/'/g, "'\\''")}'` : arg;
}

/** Whether `tools.github` is used through the `gh` CLI proxy instead of the MCP server. */
export function cliProxyEnabled(agentInput: AgentInput): boolean {
  const features = agentInput.frontmatter.features as Record<string, unknown> | undefined;
  if (features?.["cli-proxy"] === true) return true;
  // A bare `github:` in the workflow itself replaces an imported `mode: gh-proxy`.
  if ((agentInput.frontmatter.tools as Record<string, unknown> | undefined)?.github === null) return false;
  return (agentInput.merged.tools.github as Record<string, unknown> | undefined)?.mode === "gh-proxy";
}

/** MCP servers mounted as CLI commands inside the sandbox. */
export function mountedCliServers(agentInput: AgentInput): string[] {
  const tools = agentInput.merged.tools;
  const hasScripts = agentInput.mcpScripts !== undefined;
  return [
    "safeoutputs",
    ...(hasScripts ? ["mcpscripts"] : []),
    ...(tools["cli-proxy"] === true
      ? [
        ...(tools["agentic-workflows"] !== undefined ? ["agenticworkflows"] : []),
        ...Object.keys(agentInput.merged.mcpServers),
        ...(tools.serena !== undefined ? ["serena"] : []),
      ]
      : []),
  ].filter((v, i, arr) => arr.indexOf(v) === i).sort();
}

/** Whether playwright runs as the `playwright-cli` command rather than an MCP server. */
export function playwrightCliMode(tools: Record<string, unknown>): boolean {
  const p = tools.playwright;
  return !!p && typeof p === "object" && (p as Record<string, unknown>).mode === "cli";
}

/** Copilot's `--allow-tool` values (sorted, unique), or `["--allow-all-tools"]` for unrestricted bash. */
export function copilotToolArgs(agentInput: AgentInput, tools: Record<string, unknown>): string[] {
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
    const c = cfg && typeof cfg === "object" ? cfg as Record<string, unknown> : undefined;
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

function isMcpServer(name: string, c: Record<string, unknown>, agentInput: AgentInput): boolean {
  return name in agentInput.merged.mcpServers || c.command !== undefined || c.url !== undefined ||
    c.container !== undefined || c.type !== undefined;
}

/** Env entries carrying secrets that MCP servers and mcp-scripts need at run time (`NAME: ${{ … }}`). */
export function mcpSecretEnv(agentInput: AgentInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const cfg of Object.values(agentInput.merged.mcpServers)) {
    const headers = cfg.headers && typeof cfg.headers === "object"
      ? cfg.headers as Record<string, unknown>
      : {};
    for (const v of Object.values(headers)) {
      for (const m of String(v).matchAll(/\$\{\{[^}]*\}\}/g)) {
        for (const s of m[0].matchAll(/secrets\.([A-Za-z0-9_]+)/g)) env[s[1]] ??= m[0];
      }
    }
  }
  for (const tool of Object.values(agentInput.mcpScripts ?? {})) {
    const tenv = tool && typeof tool === "object" ? (tool as Record<string, unknown>).env : undefined;
    for (const [k, v] of Object.entries(tenv && typeof tenv === "object" ? tenv : {})) {
      if (String(v).includes("${{ secrets.")) env[k] ??= String(v);
    }
  }
  return env;
}

/** `mcp-scripts:` of imports then the workflow (later wins per tool), or undefined when none declares any. */
export function mergedMcpScripts(
  frontmatters: Record<string, unknown>[],
): Record<string, unknown> | undefined {
  const all = frontmatters.map((d) => d["mcp-scripts"]).filter((s) => s !== undefined);
  if (all.length === 0) return undefined;
  return Object.assign({}, ...all.filter((s) => s && typeof s === "object"));
}

/** Claude's `--allowed-tools` entries (sorted, unique). */
export function claudeAllowedTools(agentInput: AgentInput, tools: Record<string, unknown>): string[] {
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
    const c = cfg && typeof cfg === "object" ? cfg as Record<string, unknown> : {};
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

/** Folders of the configured cache memories (`/tmp/gh-aw/cache-memory` for the default one). */
export function cacheMemoryDirNames(cm: unknown): string[] {
  if (cm === undefined || cm === false) return [];
  return (Array.isArray(cm) ? cm : [cm]).map((c) => {
    const id = c && typeof c === "object" ? (c as Record<string, unknown>).id : undefined;
    return typeof id === "string" && id !== "default"
      ? `/tmp/gh-aw/cache-memory-${id}`
      : "/tmp/gh-aw/cache-memory";
  });
}
