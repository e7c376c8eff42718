/**
 * Effective agent tools (gh-aw's defaults applied), from which each engine derives its tool permissions
 * (`../engines/<id>.ts`). Facts learnt from gh-aw v0.76 lock files: inside the AWF sandbox an absent `bash` means every
 * command (`*`) and an absent `edit` means enabled; a bash allowlist is prefixed with the default read-only
 * commands; pull-request safe outputs add the git commands they need.
 */
import type { AgentInput } from "./input.ts";
import { isObject, objectOf } from "../../source/values.ts";
import { githubServer } from "../mcp/github.ts";
import { targetOf } from "../steps.ts";

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
  if (agentInput.frontmatter.features?.["cli-proxy"] === true) return true;
  // A bare `github:` in the workflow itself replaces an imported `mode: gh-proxy`.
  if (agentInput.frontmatter.tools.github === null) return false;
  return objectOf(agentInput.merged.tools.github).mode === "gh-proxy";
}

/** MCP servers mounted as CLI commands inside the sandbox. */
export function mountedCliServers(agentInput: AgentInput): string[] {
  const tools = agentInput.merged.tools;
  const hasScripts = agentInput.mcpScripts !== undefined;
  // Releases that mount every MCP server also mount the GitHub MCP server.
  const github = targetOf(agentInput.ctx).jobs.mountAllMcpServers && githubServer(agentInput) !== undefined;
  return [
    "safeoutputs",
    ...(hasScripts ? ["mcpscripts"] : []),
    ...(github ? ["github"] : []),
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
  return objectOf(p).mode === "cli";
}

/** Whether a tool entry is an MCP server (declared, or with a command, URL, container or type). */
export function isMcpServer(name: string, c: Record<string, unknown>, agentInput: AgentInput): boolean {
  return name in agentInput.merged.mcpServers || c.command !== undefined || c.url !== undefined ||
    c.container !== undefined || c.type !== undefined;
}

/** Env entries carrying secrets that MCP servers and mcp-scripts need at run time (`NAME: ${{ … }}`). */
export function mcpSecretEnv(agentInput: AgentInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const cfg of Object.values(agentInput.merged.mcpServers)) {
    const headers = objectOf(cfg.headers);
    for (const v of Object.values(headers)) {
      for (const m of String(v).matchAll(/\$\{\{[^}]*\}\}/g)) {
        for (const s of m[0].matchAll(/secrets\.([A-Za-z0-9_]+)/g)) env[s[1]] ??= m[0];
      }
    }
  }
  for (const tool of Object.values(agentInput.mcpScripts ?? {})) {
    const tenv = objectOf(tool).env;
    for (const [k, v] of Object.entries(objectOf(tenv))) {
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
  return Object.assign({}, ...all.filter(isObject));
}

/** Folders of the configured cache memories (`/tmp/gh-aw/cache-memory` for the default one). */
export function cacheMemoryDirNames(cm: unknown): string[] {
  if (cm === undefined || cm === false) return [];
  return (Array.isArray(cm) ? cm : [cm]).map((c) => {
    const id = objectOf(c).id;
    return typeof id === "string" && id !== "default"
      ? `/tmp/gh-aw/cache-memory-${id}`
      : "/tmp/gh-aw/cache-memory";
  });
}
