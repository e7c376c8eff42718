/**
 * The model catalogue served by `GET /v1/models` in Anthropic's shape, with Anthropic's cursor pagination
 * (`limit`, `after_id`, `before_id` → `has_more`, `first_id`, `last_id`). Entries come from the config
 * file's `models`, else a default list per offered provider, plus every alias.
 */
import type { GatewayFile } from "./config/file.ts";
import { invalidRequest } from "./errors.ts";
import type { ProviderSettings } from "./providers/contract.ts";

/** One `ModelInfo`. */
export interface ModelInfo {
  type: "model";
  id: string;
  display_name: string;
  created_at: string;
  max_input_tokens: number | null;
  max_tokens: number | null;
}

const DEFAULT_CREATED = "2025-01-01T00:00:00Z";

const DEFAULT_MODELS: Readonly<Record<string, readonly string[]>> = {
  anthropic: ["claude-opus-4-1", "claude-sonnet-4-5", "claude-haiku-4-5"],
  openai: ["gpt-4.1", "gpt-4.1-mini", "o4-mini"],
  gemini: ["gemini-2.5-pro", "gemini-2.5-flash"],
};

function entry(id: string, display = id, extra: Partial<ModelInfo> = {}): ModelInfo {
  return {
    type: "model",
    id,
    display_name: display,
    created_at: extra.created_at ?? DEFAULT_CREATED,
    max_input_tokens: extra.max_input_tokens ?? null,
    max_tokens: extra.max_tokens ?? null,
  };
}

/** Builds the catalogue for the offered providers; `routes` filters out what cannot be served. */
export function buildCatalogue(
  providers: readonly ProviderSettings[],
  file: GatewayFile,
  routes: (model: string) => boolean,
): ModelInfo[] {
  const out: ModelInfo[] = [];
  if (file.models?.length) {
    for (const m of file.models) {
      if (routes(m.id)) out.push(entry(m.id, m.display_name, m as Partial<ModelInfo>));
    }
  } else {
    for (const p of providers) {
      for (const model of DEFAULT_MODELS[p.name] ?? []) out.push(entry(`${p.name}/${model}`));
    }
    const compatible = Object.entries(file.providers ?? {});
    for (const [name, p] of compatible) {
      if (!providers.some((s) => s.name === name)) continue;
      for (const model of p.models ?? []) out.push(entry(`${name}/${model}`));
    }
  }
  for (const [name, group] of Object.entries(file.deployments ?? {})) {
    if (routes(name) && !out.some((m) => m.id === name)) {
      out.push(entry(name, `${name} (${group.targets.length} deployments)`));
    }
  }
  for (const [alias, target] of Object.entries(file.aliases ?? {})) {
    if (alias.includes("*")) continue; // a glob alias is a routing rule, not a model name
    if (routes(alias) && !out.some((m) => m.id === alias)) out.push(entry(alias, `${alias} (${target})`));
  }
  return out;
}

/** One page of the list, as `/v1/models` returns it. */
export function pageOf(catalogue: readonly ModelInfo[], query: URLSearchParams): unknown {
  const rawLimit = query.get("limit");
  const limit = rawLimit === null ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw invalidRequest("limit: expected an integer from 1 to 1000");
  }
  const after = query.get("after_id");
  const before = query.get("before_id");
  let start = 0;
  let end = catalogue.length;
  let fromEnd = false;
  if (after !== null) {
    const at = catalogue.findIndex((m) => m.id === after);
    start = at < 0 ? catalogue.length : at + 1;
  } else if (before !== null) {
    const at = catalogue.findIndex((m) => m.id === before);
    end = at < 0 ? 0 : at;
    fromEnd = true;
  }
  const from = fromEnd ? Math.max(start, end - limit) : start;
  const to = fromEnd ? end : Math.min(end, start + limit);
  const data = catalogue.slice(from, to);
  const hasMore = fromEnd ? from > 0 : to < catalogue.length;
  return {
    data,
    has_more: hasMore,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}
