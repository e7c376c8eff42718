/**
 * The manifest's `mcp_servers` (gh-aw v0.87.4): every MCP server the agent reaches, by name, with the tools
 * it may call — the GitHub MCP server's read-only tools of its toolsets (or its `allowed` list), Playwright's
 * browser tools, `*` for servers whose tools are not listed, and the safe-outputs tools the workflow enables.
 * Sorted by name. A target without the list (`EmitStyle.manifestMcpServers` undefined) gets none.
 */
import type { AgentInput } from "../agent/input.ts";
import type { ManifestMcpServers } from "../../targets/mod.ts";
import { githubServer } from "./github.ts";
import { PLAYWRIGHT_TOOLS } from "./tool_lists.ts";
import { isMcpServer } from "../agent/engine_tools.ts";
import { safeOutputsConfigJson } from "../safe_outputs/agent_steps.ts";
import { isObject } from "../../source/values.ts";

/** One entry of the manifest's `mcp_servers`. */
export interface ManifestMcpServer {
  name: string;
  tools: string[];
}

/** The sorted, de-duplicated tools of a list. */
function uniqueSorted(tools: Iterable<string>): string[] {
  return [...new Set(tools)].sort();
}

/** The GitHub MCP server's tools: its `allowed` list, else the read-only tools of its toolsets. */
function githubTools(agentInput: AgentInput, table: ManifestMcpServers): string[] | undefined {
  const gh = githubServer(agentInput);
  // Through the CLI proxy (`gh-proxy`) the agent reaches no GitHub MCP server.
  if (!gh) return undefined;
  const own = agentInput.merged.tools.github;
  const allowed = isObject(own) && Array.isArray(own.allowed) ? own.allowed.map(String) : undefined;
  if (allowed?.length) return allowed.includes("*") ? ["*"] : uniqueSorted(allowed);
  return uniqueSorted(gh.toolsets.split(",").flatMap((t) => table.githubToolsets[t.trim()] ?? []));
}

/** The manifest's MCP servers for `table`'s release. */
export function manifestMcpServers(agentInput: AgentInput, table: ManifestMcpServers): ManifestMcpServer[] {
  const out: ManifestMcpServer[] = [];
  const tools = agentInput.merged.tools;
  const github = githubTools(agentInput, table);
  if (github) out.push({ name: "github", tools: github });
  if (tools.playwright !== undefined && tools.playwright !== false) {
    out.push({ name: "playwright", tools: [...PLAYWRIGHT_TOOLS] });
  }
  if (tools["agentic-workflows"] !== undefined && tools["agentic-workflows"] !== false) {
    out.push({ name: "agenticworkflows", tools: ["*"] });
  }
  const servers: Record<string, unknown> = { ...tools, ...agentInput.merged.mcpServers };
  for (const [name, cfg] of Object.entries(servers)) {
    if (["github", "playwright", "agentic-workflows"].includes(name) || !isObject(cfg)) continue;
    if (!isMcpServer(name, cfg, agentInput)) continue;
    const allowed = Array.isArray(cfg.allowed) ? cfg.allowed.map(String) : [];
    out.push({ name, tools: allowed.length && !allowed.includes("*") ? uniqueSorted(allowed) : ["*"] });
  }
  if (agentInput.safeOutputs.types.length > 0 || Object.keys(agentInput.safeOutputs.handlerConfig).length) {
    const keys = Object.keys(JSON.parse(safeOutputsConfigJson(agentInput)));
    const omitted = new Set(table.notSafeOutputTools);
    out.push({ name: "safeoutputs", tools: uniqueSorted(keys.filter((k) => !omitted.has(k))) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
