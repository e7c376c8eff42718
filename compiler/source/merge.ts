/**
 * Merge rules for imports (as gh-aw applies them): tools deep-merge (`allowed` lists concatenated and
 * de-duplicated), mcp-servers first wins, network `allowed` union, safe-outputs each type once (main
 * overrides, duplicates across imports are errors), env main wins (duplicates across imports are
 * errors), pre-agent steps prepended, checkout appended.
 */
import type { Diagnostic } from "../api.ts";
import type { ResolvedImport } from "./imports.ts";
import { diagnostic } from "./diagnostics.ts";

/** The merged view the planner reads. */
export interface MergedConfig {
  tools: Record<string, unknown>;
  mcpServers: Record<string, Record<string, unknown>>;
  network: unknown;
  safeOutputs: Record<string, unknown> | undefined;
  env: Record<string, unknown>;
  preAgentSteps: unknown[];
  checkout: Record<string, unknown>[];
  github: { toolsets: string; readOnly: boolean; minIntegrity?: string } | undefined;
  /** OTLP endpoints from `observability.otlp.endpoint` (main first, then imports in order). */
  otlpEndpoints: { url: string; headers: Record<string, string> }[];
}

function otlpOf(d: Record<string, unknown>): { url: string; headers: Record<string, string> }[] {
  const otlp = obj(obj(d.observability).otlp);
  const ep = otlp.endpoint;
  const list = Array.isArray(ep) ? ep : ep !== undefined ? [{ url: ep, headers: otlp.headers }] : [];
  return list.map((e) => {
    const o = typeof e === "string" ? { url: e } : obj(e);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(o.headers))) headers[k] = String(v);
    return { url: String(o.url ?? ""), headers };
  }).filter((e) => e.url);
}

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {};
}

function mergeTool(a: unknown, b: unknown): unknown {
  if (a === undefined || a === null || a === true) return b ?? a;
  if (b === undefined || b === null || b === true) return a;
  if (Array.isArray(a) && Array.isArray(b)) return [...new Set([...a, ...b])];
  if (typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) {
      out[k] = k in out ? mergeTool(out[k], v) : v;
    }
    return out;
  }
  return a;
}

/** Merges the main frontmatter with its imports. */
export function mergeImports(
  main: Record<string, unknown>,
  imports: ResolvedImport[],
  source: string,
  diags: Diagnostic[],
): MergedConfig {
  const tools: Record<string, unknown> = { ...obj(main.tools) };
  const mcpServers: Record<string, Record<string, unknown>> = {};
  for (
    const [k, v] of Object.entries({ ...obj(main["mcp-servers"]), ...obj(obj(main.tools)["mcp-servers"]) })
  ) {
    mcpServers[k] = obj(v);
  }
  delete tools["mcp-servers"];
  let network = main.network;
  const allowed = new Set<string>();
  let importedNetwork = false;
  const safeOutputs: Record<string, unknown> | undefined = main["safe-outputs"] === undefined
    ? undefined
    : { ...obj(main["safe-outputs"]) };
  let mergedSafe = safeOutputs;
  const soOrigin = new Map<string, string>();
  const env: Record<string, unknown> = {};
  const envOrigin = new Map<string, string>();
  const preAgentSteps: unknown[] = [];
  const checkout: Record<string, unknown>[] = [];
  const mainCheckout = main.checkout;
  if (Array.isArray(mainCheckout)) checkout.push(...mainCheckout.map(obj));
  else if (mainCheckout && typeof mainCheckout === "object") checkout.push(obj(mainCheckout));

  const otlpEndpoints = otlpOf(main);
  for (const imp of imports) {
    const d = imp.file.data;
    for (const e of otlpOf(d)) if (!otlpEndpoints.some((x) => x.url === e.url)) otlpEndpoints.push(e);
    for (const [k, v] of Object.entries(obj(d.tools))) {
      if (k === "mcp-servers") continue;
      tools[k] = k in tools ? mergeTool(tools[k], v) : v;
    }
    for (const [k, v] of Object.entries({ ...obj(d["mcp-servers"]), ...obj(obj(d.tools)["mcp-servers"]) })) {
      if (!(k in mcpServers)) mcpServers[k] = obj(v);
    }
    const n = obj(d.network);
    if (Array.isArray(n.allowed)) {
      importedNetwork = true;
      for (const a of n.allowed) allowed.add(String(a));
    }
    if (d["safe-outputs"] !== undefined) {
      mergedSafe = mergedSafe ?? {};
      for (const [k, v] of Object.entries(obj(d["safe-outputs"]))) {
        if (k === "jobs" || k === "messages" || k === "mentions") {
          mergedSafe[k] = { ...obj(v), ...obj(mergedSafe[k]) };
          continue;
        }
        if (safeOutputs && k in safeOutputs) continue;
        if (soOrigin.has(k) && !["allowed-domains", "messages", "mentions", "needs"].includes(k)) {
          diags.push(
            diagnostic(
              "duplicate-safe-output",
              { file: source, line: 1, column: 1 },
              `safe output "${k}" is defined by both ${soOrigin.get(k)} and ${imp.spec}`,
            ),
          );
          continue;
        }
        soOrigin.set(k, imp.spec);
        mergedSafe[k] = v;
      }
    }
    for (const [k, v] of Object.entries(obj(d.env))) {
      if (main.env && typeof main.env === "object" && k in (main.env as object)) continue;
      if (envOrigin.has(k)) {
        diags.push(
          diagnostic(
            "duplicate-env",
            { file: source, line: 1, column: 1 },
            `env ${k} is set by both ${envOrigin.get(k)} and ${imp.spec}`,
          ),
        );
        continue;
      }
      envOrigin.set(k, imp.spec);
      env[k] = v;
    }
    if (Array.isArray(d["pre-agent-steps"])) preAgentSteps.push(...d["pre-agent-steps"]);
    if (Array.isArray(d.steps)) preAgentSteps.push(...d.steps);
    const c = d.checkout;
    if (Array.isArray(c)) checkout.push(...c.map(obj));
    else if (c && typeof c === "object") checkout.push(obj(c));
  }
  Object.assign(env, obj(main.env));
  if (importedNetwork) {
    const base = network === undefined || network === "defaults"
      ? ["defaults"]
      : (obj(network).allowed as string[] | undefined) ?? [];
    network = { ...obj(network), allowed: [...new Set([...base, ...allowed])].sort() };
  }
  const gh = tools.github;
  let github: MergedConfig["github"];
  if (gh !== false) {
    const g = obj(gh);
    const ts = g.toolsets;
    const list = Array.isArray(ts) ? ts.map(String) : typeof ts === "string" ? ts.split(",") : ["default"];
    const expanded = list.flatMap((
      t,
    ) => (t === "default" ? ["context", "repos", "issues", "pull_requests"] : [t]));
    github = {
      toolsets: [...new Set(expanded)].join(","),
      readOnly: g["read-only"] !== false,
      minIntegrity: typeof g["min-integrity"] === "string" ? g["min-integrity"] : undefined,
    };
  }
  return {
    tools,
    mcpServers,
    network,
    safeOutputs: mergedSafe,
    env,
    preAgentSteps,
    checkout,
    github,
    otlpEndpoints,
  };
}
