/** The agent's network allowlist: engine defaults ∪ expanded `network.allowed` ∪ MCP server hosts. */
import { ECOSYSTEMS, ENGINE_DOMAINS, PROVIDER_DOMAINS } from "../data/network_ecosystems.ts";
import type { EngineFacts } from "./engines/facts.ts";
import { objectOf } from "../source/values.ts";

/** Result of {@link computeAllowedDomains}. */
export interface NetworkPlan {
  /** Declared entries (ecosystem names and domains) as written, sorted. */
  declared: string[];
  /** The same entries in the order written (repeats dropped). */
  declaredAsWritten: string[];
  /** Expanded allowlist, sorted and unique. */
  allowed: string[];
  blocked: string[];
  /** The engine's API hosts (for failure diagnostics). */
  engineApiHosts: string;
}

/** Runtime names (`runtimes:` keys) → the ecosystem whose domains they need. */
const RUNTIME_ECOSYSTEM: Record<string, string> = {
  bun: "node",
  deno: "node",
  uv: "python",
  dotnet: "dotnet",
};

/**
 * The engine's own hosts: its defaults and, for Crush, OpenCode and Pi, the API host of the model's provider
 * (`anthropic/…` → api.anthropic.com; copilot's without a prefix) and the hosts the CLI itself reaches.
 */
export function engineDomains(
  engine: Pick<EngineFacts, "id" | "providerHosts">,
  model: string | undefined,
  /** The target release's own list for the engine, where it differs from v0.76.1's. */
  own?: readonly string[],
): string[] {
  const base = [...(own ?? ENGINE_DOMAINS[engine.id] ?? [])];
  if (!engine.providerHosts) return base;
  const provider = model?.includes("/") ? model.split("/")[0].toLowerCase() : "copilot";
  const api = PROVIDER_DOMAINS[provider];
  return [...new Set([...base, ...(api ? [api] : []), ...engine.providerHosts])];
}

/** Expands ecosystem identifiers; unknown identifiers are literal domains. */
export function expandEcosystems(entries: string[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e === "default-safe-outputs") {
      out.push(...ECOSYSTEMS.defaults, ...ECOSYSTEMS["dev-tools"], ...ECOSYSTEMS.github, ...ECOSYSTEMS.local);
    } else if (ECOSYSTEMS[e]) out.push(...ECOSYSTEMS[e]);
    else out.push(e);
  }
  return out;
}

/** Computes the allowlist. `network` is the merged `network:` value (undefined ⇒ `defaults`). */
export function computeAllowedDomains(
  network: unknown,
  engine: Pick<EngineFacts, "id" | "providerHosts" | "apiHosts">,
  mcpServers: Record<string, Record<string, unknown>>,
  runtimes: string[] = [],
  tools: Record<string, unknown> = {},
  model?: string,
  engineHosts?: readonly string[],
  /** Hosts the target release adds to an ecosystem (`GhAwTarget.ecosystemHosts`). */
  ecosystemHosts: Readonly<Record<string, readonly string[]>> = {},
): NetworkPlan {
  let declared: string[];
  let blocked: string[] = [];
  if (network === undefined || network === null || network === "defaults") declared = ["defaults"];
  else {
    const n = objectOf(network);
    declared = Array.isArray(n.allowed) ? n.allowed.map(String) : [];
    blocked = Array.isArray(n.blocked) ? n.blocked.map(String) : [];
  }
  const runtimeEcosystems = runtimes.map((r) => RUNTIME_ECOSYSTEM[r] ?? r).filter((e) => ECOSYSTEMS[e]);
  const set = new Set<string>([
    ...engineDomains(engine, model, engineHosts),
    ...expandEcosystems(declared),
    ...declared.flatMap((e) => ecosystemHosts[e] ?? []),
    ...expandEcosystems(runtimeEcosystems),
    // Tools that reach the network themselves: the browser download hosts, the remote GitHub MCP server.
    ...(tools.playwright !== undefined && tools.playwright !== false ? ECOSYSTEMS.playwright : []),
    ...(objectOf(tools.github).mode === "remote" ? ["api.githubcopilot.com"] : []),
  ]);
  for (const s of Object.values(mcpServers)) {
    if (typeof s.url === "string") {
      try {
        set.add(new URL(s.url).hostname);
      } catch {
        // not a URL (expression); skip
      }
    }
    const net = objectOf(s.network);
    if (Array.isArray(net.allowed)) {
      for (const d of expandEcosystems(net.allowed.map(String))) set.add(d);
    }
  }
  return {
    declared: [...new Set(declared)].sort(),
    declaredAsWritten: [...new Set(declared)],
    allowed: [...set].sort(),
    blocked: expandEcosystems(blocked).sort(),
    engineApiHosts: engine.apiHosts,
  };
}
