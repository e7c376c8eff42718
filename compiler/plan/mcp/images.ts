/**
 * The images of the MCP layer a lock pulls and runs: the MCP gateway (also the CLI/DIFC proxies' image), the
 * GitHub MCP server and the Node.js image of the servers run with `npx`. Their releases are the target's
 * (`GhAwTarget.components`); `sandbox.mcp.container`/`version` replace the gateway's.
 */
import { type JobCtx, targetOf } from "../steps.ts";
import { mappingOf } from "../../source/values.ts";

/** The MCP gateway image: `sandbox.mcp.container`/`version`, else the target's release of gh-aw-mcpg. */
export function gatewayImage(ctx: Pick<JobCtx, "target">, frontmatter: Record<string, unknown>): string {
  const mcp = mappingOf(mappingOf(frontmatter.sandbox).mcp);
  const container = typeof mcp.container === "string" ? mcp.container : "ghcr.io/github/gh-aw-mcpg";
  const version = typeof mcp.version === "string" || typeof mcp.version === "number"
    ? String(mcp.version)
    : targetOf(ctx).components.mcpg;
  return `${container}:${version}`;
}

/** The GitHub MCP server image of the target's release. */
export function githubMcpImage(ctx: Pick<JobCtx, "target">): string {
  return `ghcr.io/github/github-mcp-server:${targetOf(ctx).components.githubMcp}`;
}

/** The Node.js image every lock lists (pinned by digest, directly or through `actions-lock.json`). */
export function nodeImage(ctx: Pick<JobCtx, "target">): string {
  return targetOf(ctx).components.nodeImage;
}
