/**
 * `models:` — the workflow's model catalogue, merged from the main workflow and its imports:
 * - alias entries (`<alias>: [patterns…]`, gh-aw v0.76) are laid over AWF's built-in aliases in the API proxy
 *   config (`apiProxy.models`);
 * - the per-model cost table (`models.providers.<provider>.models.<model>.cost`, the later gh-aw form the
 *   spec describes; a top-level `providers:` is read the same way) is handed to the run as
 *   `GH_AW_INFO_MODEL_COSTS` (the runtime merges it over its price catalogue for the token-usage summary),
 *   to AWF's API proxy as `apiProxy.providers` when the firewall release reads it, and to `awc logs`/`audit`.
 * The main workflow wins over imports; among imports the first definition wins (as for `mcp-servers`).
 */
import { z } from "zod";
import { compareVersions, parseVersion } from "../github/semver.ts";
import { isObject, mappingOf } from "./values.ts";

/**
 * A per-token USD price: a string (the spec's type; a YAML number would lose the author's notation), decimal
 * or scientific, such as `"3e-06"`.
 */
const price = z.string({
  error: 'a price must be a string of USD per token, such as "3e-06" (quote the number)',
})
  .regex(/^\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/, {
    error: 'a price must be a string of USD per token, such as "3e-06"',
  });

/** `cost` of one model: input and output required, cache rates optional. */
export const costSchema = z.object({
  input: price,
  output: price,
  cache_read: price.optional(),
  cache_write: price.optional(),
}).strict();

/** `providers.<provider>.models.<model>.cost`. */
export const providersSchema = z.record(
  z.string().min(1),
  z.object({
    models: z.record(z.string().min(1), z.object({ cost: costSchema }).strict()),
  }).strict(),
);

/** `models:`: alias → ordered patterns, plus the reserved `providers` cost table. */
export const modelsSchema = z.object({ providers: providersSchema.optional() })
  .catchall(z.array(z.string(), { error: "a model alias lists model patterns or alias names" }));

type Cost = z.infer<typeof costSchema>;
/** provider → model → cost. */
export type CostTable = Record<string, Record<string, Cost>>;

/** The merged catalogue a workflow compiles with. */
export interface ModelCatalog {
  /** User aliases (main over imports), to lay over the built-in ones. */
  aliases: Record<string, string[]>;
  /** Per-model costs (main over imports). */
  costs: CostTable;
}

/** The cost table one frontmatter declares (`models.providers` over a top-level `providers`). */
function costsOf(fm: Record<string, unknown>): CostTable {
  const out: CostTable = {};
  for (const providers of [fm.providers, mappingOf(fm.models).providers]) {
    for (const [provider, cfg] of Object.entries(mappingOf(providers))) {
      for (const [model, entry] of Object.entries(mappingOf(mappingOf(cfg).models))) {
        const cost = mappingOf(entry).cost;
        if (cost && typeof cost === "object") (out[provider] ??= {})[model] = cost as Cost;
      }
    }
  }
  return out;
}

function aliasesOf(fm: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [alias, patterns] of Object.entries(mappingOf(fm.models))) {
    if (alias !== "providers" && Array.isArray(patterns)) out[alias] = patterns.map(String);
  }
  return out;
}

/** Merges the catalogue of the main frontmatter and its imports (main first, then imports in order). */
export function modelCatalogOf(
  main: Record<string, unknown>,
  imports: Record<string, unknown>[],
): ModelCatalog {
  const aliases: Record<string, string[]> = {};
  const costs: CostTable = {};
  for (const fm of [main, ...imports]) {
    for (const [alias, patterns] of Object.entries(aliasesOf(fm))) aliases[alias] ??= patterns;
    for (const [provider, models] of Object.entries(costsOf(fm))) {
      for (const [model, cost] of Object.entries(models)) (costs[provider] ??= {})[model] ??= cost;
    }
  }
  return { aliases, costs };
}

/** Whether the catalogue declares any cost. */
export function hasCosts(c: ModelCatalog | undefined): c is ModelCatalog {
  return !!c && Object.keys(c.costs).length > 0;
}

/** Object with keys sorted at every level (Go's `json.Marshal` of maps, which gh-aw's lock text follows). */
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedDeep(v[k])]));
}

/** `{"providers":{…}}` as the run receives it (keys sorted). */
export function costTableJson(c: ModelCatalog): string {
  const providers: Record<string, unknown> = {};
  for (const [provider, models] of Object.entries(c.costs)) {
    providers[provider] = {
      models: Object.fromEntries(Object.entries(models).map(([m, cost]) => [m, { cost }])),
    };
  }
  return JSON.stringify(sortedDeep({ providers }));
}

/** The API proxy's alias table: the built-ins with the workflow's aliases laid over them, keys sorted. */
export function proxyAliases(
  builtin: Readonly<Record<string, readonly string[]>>,
  c: ModelCatalog | undefined,
): Record<string, readonly string[]> {
  const merged = { ...builtin, ...c?.aliases };
  return Object.fromEntries(Object.keys(merged).sort().map((k) => [k, merged[k]]));
}

/** First AWF release whose API proxy config accepts `apiProxy.providers` (per-model prices). */
export const AWF_PROVIDERS_MIN_VERSION = "v0.27.43";

/** Whether the firewall release `version` (vX.Y.Z) reads `apiProxy.providers`. */
export function awfReadsProviders(version: string): boolean {
  const v = parseVersion(version);
  return !!v && compareVersions(v, parseVersion(AWF_PROVIDERS_MIN_VERSION)!) >= 0;
}
