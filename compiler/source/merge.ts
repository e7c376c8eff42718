/**
 * Merge rules for imports (as gh-aw applies them): tools deep-merge (`allowed` lists concatenated and
 * de-duplicated), mcp-servers first wins, network `allowed` union, safe-outputs each type once (main
 * overrides, duplicates across imports are errors), env main wins (duplicates across imports are
 * errors), pre-agent steps prepended, checkout appended.
 */
import type { Diagnostic } from "../api.ts";
import type { ResolvedImport } from "./imports.ts";
import type { Frontmatter as TypedFrontmatter } from "./schema.ts";

/** One `checkout:` entry as loaded. */
type CheckoutEntry = Exclude<TypedFrontmatter["checkout"], false | undefined>[number];
import { diagnostic } from "./diagnostics.ts";
import { isMapping, mappingOf } from "./values.ts";
import { type SafeOutputsSection, splitSafeOutputs } from "./safe_outputs_section.ts";

/** The merged view the planner reads. */
export interface MergedConfig {
  tools: Record<string, unknown>;
  mcpServers: Record<string, Record<string, unknown>>;
  network: unknown;
  /** The merged `safe-outputs:`, split into global settings and types; undefined when none declares one. */
  safeOutputs: SafeOutputsSection | undefined;
  env: Record<string, unknown>;
  preAgentSteps: unknown[];
  /** `pre-steps` of the imports, in import order, then the workflow's own. */
  preSteps: unknown[];
  /** The `checkout:` entries of the workflow and its imports (each file's already a list when loaded). */
  checkout: CheckoutEntry[];
  /** `checkout: false`: the workflow checks nothing out (no repository, no git credentials). */
  checkoutDisabled: boolean;
  github: { toolsets: string; readOnly: boolean; minIntegrity?: string } | undefined;
  /** OTLP endpoints from `observability.otlp.endpoint` (main first, then imports in order). */
  otlpEndpoints: { url: string; headers: Record<string, string> }[];
}

function otlpOf(d: Record<string, unknown>): { url: string; headers: Record<string, string> }[] {
  const otlp = mappingOf(mappingOf(d.observability).otlp);
  const ep = otlp.endpoint;
  const list = Array.isArray(ep) ? ep : ep !== undefined ? [{ url: ep, headers: otlp.headers }] : [];
  return list.map((e) => {
    const o = typeof e === "string" ? { url: e } : mappingOf(e);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(mappingOf(o.headers))) headers[k] = String(v);
    return { url: String(o.url ?? ""), headers };
  }).filter((e) => e.url);
}

function mergeTool(a: unknown, b: unknown): unknown {
  if (a === undefined || a === null || a === true) return b ?? a;
  if (b === undefined || b === null || b === true) return a;
  if (Array.isArray(a) && Array.isArray(b)) return [...new Set([...a, ...b])];
  if (isMapping(a) && isMapping(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) {
      out[k] = k in out ? mergeTool(out[k], v) : v;
    }
    return out;
  }
  return a;
}

/** Frontmatter section of one file (an import's parsed data or the main workflow's). */
type Frontmatter = Record<string, unknown>;

/** The `mcp-servers` a file declares, top-level and under `tools:` (the latter wins a shared name). */
function mcpServersOf(data: Frontmatter): Record<string, unknown> {
  return { ...mappingOf(data["mcp-servers"]), ...mappingOf(mappingOf(data.tools)["mcp-servers"]) };
}

/** Tools: the main workflow's, then each import's deep-merged in (MCP servers are merged apart). */
function mergeTools(main: Frontmatter, imports: ResolvedImport[]): Record<string, unknown> {
  const tools: Record<string, unknown> = { ...mappingOf(main.tools) };
  delete tools["mcp-servers"];
  for (const imp of imports) {
    for (const [name, config] of Object.entries(mappingOf(imp.file.data.tools))) {
      if (name === "mcp-servers") continue;
      // A cache memory is one store: its first declaration (the workflow's, else the first import's) is kept
      // whole, even a plain `true` before an import's `key:`, as gh-aw does.
      if (name === "cache-memory" && name in tools) continue;
      tools[name] = name in tools ? mergeTool(tools[name], config) : config;
    }
  }
  return tools;
}

/** MCP servers: the main workflow's, then each import's new ones (the first definition of a name wins). */
function mergeMcpServers(main: Frontmatter, imports: ResolvedImport[]): MergedConfig["mcpServers"] {
  const servers: MergedConfig["mcpServers"] = {};
  for (const [name, config] of Object.entries(mcpServersOf(main))) servers[name] = mappingOf(config);
  for (const imp of imports) {
    for (const [name, config] of Object.entries(mcpServersOf(imp.file.data))) {
      if (!(name in servers)) servers[name] = mappingOf(config);
    }
  }
  return servers;
}

/** Network: the main workflow's, with imported `allowed` lists unioned in (sorted) when any import has one. */
function mergeNetwork(mainNetwork: unknown, imports: ResolvedImport[]): unknown {
  const allowed = new Set<string>();
  let importedNetwork = false;
  for (const imp of imports) {
    const network = mappingOf(imp.file.data.network);
    if (Array.isArray(network.allowed)) {
      importedNetwork = true;
      for (const domain of network.allowed) allowed.add(String(domain));
    }
  }
  if (!importedNetwork) return mainNetwork;
  const base = mainNetwork === undefined || mainNetwork === "defaults"
    ? ["defaults"]
    : (mappingOf(mainNetwork).allowed as string[] | undefined) ?? [];
  return { ...mappingOf(mainNetwork), allowed: [...new Set([...base, ...allowed])].sort() };
}

/** Safe-outputs merge state across imports. */
interface SafeOutputsMerge {
  /** The main workflow's own section (copied), undefined when it has none. */
  own: Record<string, unknown> | undefined;
  /** The merged section; it *is* `own` when the main workflow has one (see mergeImportedSafeOutputs). */
  merged: Record<string, unknown> | undefined;
  /** Which import first defined each safe-output type. */
  origin: Map<string, string>;
}

/** The safe-outputs merge state before any import. */
function ownSafeOutputs(main: Frontmatter): SafeOutputsMerge {
  const own = main["safe-outputs"] === undefined ? undefined : { ...mappingOf(main["safe-outputs"]) };
  return { own, merged: own, origin: new Map() };
}

/**
 * Merges one import's safe-outputs: `jobs`/`messages`/`mentions` combine (earlier wins a key), the main
 * workflow's types win, and a type defined by two imports is an error. Because `merged` aliases `own`
 * when the main workflow has the section, an imported type then counts as the main's for later imports
 * (first wins, without an error). That is the existing behaviour, kept as is.
 */
function mergeImportedSafeOutputs(
  state: SafeOutputsMerge,
  imp: ResolvedImport,
  source: string,
  diags: Diagnostic[],
): void {
  const imported = imp.file.data["safe-outputs"];
  if (imported === undefined) return;
  const merged = state.merged = state.merged ?? {};
  for (const [type, config] of Object.entries(mappingOf(imported))) {
    if (type === "jobs" || type === "messages" || type === "mentions") {
      merged[type] = { ...mappingOf(config), ...mappingOf(merged[type]) };
      continue;
    }
    if (state.own && type in state.own) continue;
    if (state.origin.has(type) && !["allowed-domains", "messages", "mentions", "needs"].includes(type)) {
      diags.push(
        diagnostic(
          "duplicate-safe-output",
          { file: source, line: 1, column: 1 },
          `safe output "${type}" is defined by both ${state.origin.get(type)} and ${imp.spec}`,
        ),
      );
      continue;
    }
    state.origin.set(type, imp.spec);
    merged[type] = config;
  }
}

/** Imported env merge state: the values taken so far and which import set each. */
interface EnvMerge {
  values: Record<string, unknown>;
  origin: Map<string, string>;
}

/** Merges one import's env: the main workflow's names win, a name set by two imports is an error. */
function mergeImportedEnv(
  state: EnvMerge,
  mainEnv: unknown,
  imp: ResolvedImport,
  source: string,
  diags: Diagnostic[],
): void {
  for (const [name, value] of Object.entries(mappingOf(imp.file.data.env))) {
    if (mainEnv && typeof mainEnv === "object" && name in mainEnv) continue;
    if (state.origin.has(name)) {
      diags.push(
        diagnostic(
          "duplicate-env",
          { file: source, line: 1, column: 1 },
          `env ${name} is set by both ${state.origin.get(name)} and ${imp.spec}`,
        ),
      );
      continue;
    }
    state.origin.set(name, imp.spec);
    state.values[name] = value;
  }
}

/** An import's steps that run before the agent: its `pre-agent-steps`, then its `steps`. */
function importedPreAgentSteps(data: Frontmatter): unknown[] {
  return [
    ...(Array.isArray(data["pre-agent-steps"]) ? data["pre-agent-steps"] : []),
    ...(Array.isArray(data.steps) ? data.steps : []),
  ];
}

/** A file's `checkout:` entries (one object or a list). */
function checkoutsOf(data: Pick<TypedFrontmatter, "checkout">): CheckoutEntry[] {
  return data.checkout || [];
}

/** OTLP endpoints: the main workflow's, then each import's whose URL is new. */
function mergeOtlp(main: Frontmatter, imports: ResolvedImport[]): MergedConfig["otlpEndpoints"] {
  const endpoints = otlpOf(main);
  for (const imp of imports) {
    for (const endpoint of otlpOf(imp.file.data)) {
      if (!endpoints.some((known) => known.url === endpoint.url)) endpoints.push(endpoint);
    }
  }
  return endpoints;
}

/** The merged `tools.github` settings (toolsets expanded), undefined when it is turned off. */
export function githubToolConfig(githubTool: unknown): MergedConfig["github"] {
  if (githubTool === false) return undefined;
  const config = mappingOf(githubTool);
  const toolsets = config.toolsets;
  const list = Array.isArray(toolsets)
    ? toolsets.map(String)
    : typeof toolsets === "string"
    ? toolsets.split(",")
    : ["default"];
  const expanded = list.flatMap((toolset) =>
    toolset === "default" ? ["context", "repos", "issues", "pull_requests"] : [toolset]
  );
  return {
    toolsets: [...new Set(expanded)].join(","),
    readOnly: config["read-only"] !== false,
    minIntegrity: typeof config["min-integrity"] === "string" ? config["min-integrity"] : undefined,
  };
}

/** Merges the main frontmatter with its imports. */
export function mergeImports(
  main: Record<string, unknown>,
  /** The main workflow's typed model, for the keys already normalised when it was loaded. */
  typed: Pick<TypedFrontmatter, "checkout">,
  imports: ResolvedImport[],
  source: string,
  diags: Diagnostic[],
): MergedConfig {
  const safeOutputs = ownSafeOutputs(main);
  const env: EnvMerge = { values: {}, origin: new Map() };
  // Both report duplicates: one pass keeps their diagnostics in import order.
  for (const imp of imports) {
    mergeImportedSafeOutputs(safeOutputs, imp, source, diags);
    mergeImportedEnv(env, main.env, imp, source, diags);
  }
  const tools = mergeTools(main, imports);
  return {
    tools,
    mcpServers: mergeMcpServers(main, imports),
    network: mergeNetwork(main.network, imports),
    safeOutputs: safeOutputs.merged && splitSafeOutputs(safeOutputs.merged),
    env: Object.assign(env.values, mappingOf(main.env)),
    preAgentSteps: imports.flatMap((imp) => importedPreAgentSteps(imp.file.data)),
    preSteps: [...imports.map((imp) => imp.file.data), main].flatMap((d) =>
      Array.isArray(d["pre-steps"]) ? d["pre-steps"] : []
    ),
    checkout: [typed, ...imports.map((imp) => imp.frontmatter)].flatMap(checkoutsOf),
    checkoutDisabled: typed.checkout === false,
    github: githubToolConfig(tools.github),
    otlpEndpoints: mergeOtlp(main, imports),
  };
}

export { type SafeOutputsSection, splitSafeOutputs } from "./safe_outputs_section.ts";
