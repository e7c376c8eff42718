/**
 * The `tools.github` settings as gh-aw resolves them for the MCP gateway (mode, guard policy, token) and
 * the container images the agent job pulls.
 */
import { firewallImage } from "../../source/sandbox.ts";
import type { AgentInput } from "../agent/input.ts";
import { gatewayImage, githubMcpImage, nodeImage } from "./images.ts";
import { mappingOf } from "../../source/values.ts";
import { targetOf } from "../steps.ts";

/** The token chain the GitHub MCP server (and the CLI proxy) use unless `github-token` is set. */
export const MCP_TOKEN =
  "${{ secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}";

/** The resolved `tools.github` settings the gateway needs. */
export interface GithubTool {
  /** `local` (docker), `remote` (hosted) or `gh-proxy` (no MCP server; the CLI proxy serves `gh`). */
  mode: string;
  /** Whether `min-integrity` or `allowed-repos` fixes the guard policy (else it is detected at runtime). */
  guardConfigured: boolean;
  /** Whether a GitHub App mints the token. */
  app: boolean;
  toolsets: string;
  readOnly: boolean;
  minIntegrity?: string;
  /** `allowed-repos`: `all`, `public` or a list of `owner/repo` / `owner/*`. */
  repos?: string | string[];
  /** The token expression for the server. */
  token: string;
  allowed?: string[];
  /** The merged `tools.github` object. */
  raw: Record<string, unknown>;
}

/**
 * `tools.github.mode`. The corpus shows an imported mode (`shared/gh.md`'s `gh-proxy`) applying only when
 * the workflow declares no GitHub settings of its own, or declares some without a mode; codex, crush and
 * opencode then fall back to the local server (`local-fallback`). A bare `github:` means the local server.
 */
function githubMode(a: McpView, merged: Record<string, unknown>): string {
  const of = (m: Record<string, unknown>) =>
    typeof m.mode === "string" ? m.mode : m.type === "remote" ? "remote" : "local";
  const tools = a.frontmatter.tools;
  if (!("github" in tools)) return of(merged);
  const own = tools.github;
  if (own === null || own === undefined || own === true) return "local";
  if (typeof mappingOf(own).mode === "string" || mappingOf(own).type !== undefined) return of(mappingOf(own));
  const mode = of(merged);
  return mode === "gh-proxy" && a.ctx.engine.mcp.ghProxyFallback ? "local-fallback" : mode;
}

/** The default toolsets (`default`), which the local fallback of an imported gh-proxy mode serves. */
const DEFAULT_TOOLSETS = "context,repos,issues,pull_requests";

/** The parts of the agent input the GitHub tool and container list depend on. */
export type McpView = Pick<AgentInput, "ctx" | "merged" | "frontmatter" | "github" | "mcpServers">;

/** The GitHub tool's settings, or undefined when `tools.github: false`. */
export function githubToolConfig(a: McpView): GithubTool | undefined {
  const raw = a.merged.tools.github;
  if (raw === false || !a.github) return undefined;
  // Releases where an `mcp-servers.github` entry takes the tool's place serve the built-in server with its
  // defaults (no guard policy, the default toolsets).
  const replaced = customGithubServer(a);
  const g = replaced ? {} : mappingOf(raw);
  const resolved = githubMode(a, g);
  const fallback = resolved === "local-fallback" || replaced;
  const mode = fallback ? "local" : resolved;
  const repos = g["allowed-repos"] ?? g.repos;
  return {
    mode,
    guardConfigured: g["min-integrity"] !== undefined || repos !== undefined,
    app: g.app !== undefined || g["github-app"] !== undefined,
    // On that fallback gh-aw serves the imported (mode-only) settings: the default toolsets.
    toolsets: fallback ? DEFAULT_TOOLSETS : a.github.toolsets,
    readOnly: a.github.readOnly,
    minIntegrity: typeof g["min-integrity"] === "string" ? g["min-integrity"] : undefined,
    repos: Array.isArray(repos) ? repos.map(String) : typeof repos === "string" ? repos : undefined,
    token: typeof g["github-token"] === "string" ? g["github-token"] : MCP_TOKEN,
    allowed: Array.isArray(g.allowed) ? g.allowed.map(String) : undefined,
    raw: g,
  };
}

/** Whether an `mcp-servers.github` entry replaces the GitHub tool's settings (releases that merge it so). */
export function customGithubServer(a: Pick<McpView, "ctx" | "mcpServers">): boolean {
  return targetOf(a.ctx).jobs.agent.gateway?.mcpServerReplacesGithubTool === true && "github" in a.mcpServers;
}

/**
 * Whether the prompt steers the agent to the `gh` CLI (gh-aw's `isGitHubCLIModeEnabled`): the resolved mode is
 * `gh-proxy`, or `features.cli-proxy` is on and the workflow names no MCP mode (`local`/`remote`) itself.
 */
export function githubCliPrompt(a: McpView): boolean {
  const gh = githubToolConfig(a);
  if (!gh) return false;
  if (gh.mode === "gh-proxy") return true;
  const ownMode = mappingOf(a.frontmatter.tools.github).mode;
  return a.frontmatter.features?.["cli-proxy"] === true &&
    !(ownMode === "local" || ownMode === "remote");
}

/** Whether the GitHub MCP server runs behind the gateway (on, and not replaced by the CLI proxy). */
export function githubServer(a: McpView): GithubTool | undefined {
  const gh = githubToolConfig(a);
  return gh && gh.mode !== "gh-proxy" ? gh : undefined;
}

/** The image a `mcp-servers:` entry runs (`npx`/`uvx` commands run in node/python images). */
function serverImage(cfg: Record<string, unknown>): string | undefined {
  if (cfg.url !== undefined) return undefined;
  if (cfg.command === "npx") return "node:lts-alpine";
  if (cfg.command === "uvx") return "python:alpine";
  const image = cfg.container ?? cfg.image;
  if (typeof image !== "string") return undefined;
  return cfg.version !== undefined ? `${image}:${cfg.version}` : image;
}

/** The image of the Playwright MCP server. */
export const PLAYWRIGHT_IMAGE = "mcr.microsoft.com/playwright/mcp";

/**
 * Whether `tools.playwright` runs as an MCP server of the gateway (not as the `playwright-cli` command), in a
 * release that writes it so.
 */
export function playwrightServer(v: Pick<McpView, "ctx" | "merged">): boolean {
  if (!targetOf(v.ctx).jobs.agent.gateway?.playwrightServer) return false;
  const p = v.merged.tools.playwright;
  return p !== undefined && p !== false && mappingOf(p).mode !== "cli";
}

/**
 * Images the agent job pulls ("Download container images", the header and the manifest), sorted: the
 * firewall (plus its CLI proxy in gh-proxy mode), the gateway, the GitHub server (unless hosted) and every custom
 * server's image. The target's Node.js image is always listed (`GhAwTarget.components`).
 */
export function mcpContainerImages(v: McpView): string[] {
  const gh = githubToolConfig(v);
  const images = new Set<string>([
    firewallImage(v.ctx.firewall, "agent"),
    firewallImage(v.ctx.firewall, "api-proxy"),
    ...(gh?.mode === "gh-proxy" ? [firewallImage(v.ctx.firewall, "cli-proxy")] : []),
    firewallImage(v.ctx.firewall, "squid"),
    ...(v.ctx.firewall?.images["build-tools"] ? [v.ctx.firewall.images["build-tools"]] : []),
    gatewayImage(v.ctx, v.frontmatter),
    // Listed in gh-proxy mode too (the proxy serves the same image); the hosted server needs none.
    ...(gh && gh.mode !== "remote" ? [githubMcpImage(v.ctx)] : []),
  ]);
  for (const cfg of Object.values(v.mcpServers)) {
    const image = serverImage(cfg);
    if (image && image !== "node:lts-alpine") images.add(image);
  }
  // Release mode runs the agentic-workflows server in alpine (dev mode builds its image locally).
  const aw = v.merged.tools["agentic-workflows"];
  if (aw !== undefined && aw !== false && v.ctx.actionMode !== "dev") images.add("alpine:latest");
  if (playwrightServer(v)) images.add(PLAYWRIGHT_IMAGE);
  images.add(nodeImage(v.ctx));
  return [...images].sort();
}
