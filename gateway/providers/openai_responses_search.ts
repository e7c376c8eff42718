/**
 * Anthropic's `web_search` tool as the OpenAI Responses `web_search` tool: `allowed_domains` become
 * `filters.allowed_domains`, `user_location` passes as the same `approximate` location, and the request asks
 * for `include: ["web_search_call.action.sources"]`. Each `web_search_call` output item whose action is a
 * search becomes a `server_tool_use` (`input.query` = `action.query`) + `web_search_tool_result` (its
 * `action.sources`, titled from the answer's citations where they name the same URL); `url_citation`
 * annotations (`start_index` / `end_index` into the output text, `url`, `title`) become citations on the
 * cited spans. `max_uses` becomes the request's `max_tool_calls` (a cap on all built-in tool calls of the
 * response, and web search is the only built-in tool the translation sends). `blocked_domains` has no
 * equivalent (400).
 */
import {
  citationOf,
  type CitedSpan,
  type Search,
  searchResult,
  serverToolId,
  unsupportedSearchOption,
  type WebSearchTool,
} from "../messages/web_search.ts";
import type { WebSearchCitation } from "../messages/types.ts";

type Item = Record<string, unknown>;

/** What `include` asks for so a search call lists its sources. */
export const SEARCH_SOURCES_INCLUDE = "web_search_call.action.sources";

/** The Responses tool for a web search tool (400 for options it has no equivalent of). */
export function responsesSearchTool(tool: WebSearchTool, provider: string): Record<string, unknown> {
  if (tool.blocked_domains?.length) throw unsupportedSearchOption(tool, "blocked_domains", provider);
  const out: Record<string, unknown> = { type: "web_search" };
  if (tool.allowed_domains?.length) out.filters = { allowed_domains: tool.allowed_domains };
  const location = tool.user_location;
  if (location) {
    const approximate: Record<string, unknown> = { type: "approximate" };
    for (const field of ["city", "region", "country", "timezone"]) {
      if (typeof location[field] === "string") approximate[field] = location[field];
    }
    out.user_location = approximate;
  }
  return out;
}

/** The search of a `web_search_call` item; undefined for its other actions (opening or reading a page). */
export function searchOfCall(item: Item, titles: ReadonlyMap<string, string>): Search | undefined {
  const action = (item.action ?? {}) as { type?: unknown; query?: unknown; sources?: unknown };
  if (action.type !== undefined && action.type !== "search") return undefined;
  const sources = Array.isArray(action.sources) ? action.sources as Array<{ url?: unknown }> : [];
  return {
    id: serverToolId(typeof item.id === "string" ? item.id : undefined),
    query: typeof action.query === "string" ? action.query : "",
    results: sources.filter((s) => typeof s?.url === "string").map((s) =>
      searchResult(s.url as string, titles.get(s.url as string))
    ),
  };
}

/** A citation from a `url_citation` annotation of `text` (the output text it annotates). */
export function citationOfAnnotation(annotation: unknown, text: string): WebSearchCitation | undefined {
  const a = annotation as {
    type?: unknown;
    url?: unknown;
    title?: unknown;
    start_index?: unknown;
    end_index?: unknown;
  };
  if (a?.type !== "url_citation" || typeof a.url !== "string") return undefined;
  const start = typeof a.start_index === "number" ? a.start_index : 0;
  const end = typeof a.end_index === "number" ? a.end_index : start;
  return citationOf(a.url, typeof a.title === "string" ? a.title : undefined, text.slice(start, end));
}

/** The cited spans of an `output_text` part's annotations (several sources of one span: one span). */
export function spansOfText(text: string, annotations: unknown): CitedSpan[] {
  if (!Array.isArray(annotations)) return [];
  const byRange = new Map<string, CitedSpan & { start: number }>();
  for (const annotation of annotations) {
    const citation = citationOfAnnotation(annotation, text);
    if (!citation || !citation.cited_text) continue;
    const { start_index: start, end_index: end } = annotation as { start_index: number; end_index: number };
    const key = `${start}:${end}`;
    const span = byRange.get(key);
    if (span) span.citations.push(citation);
    else byRange.set(key, { start, text: citation.cited_text, citations: [citation] });
  }
  return [...byRange.values()].sort((a, b) => a.start - b.start);
}

/** URL → title, from the citations of a response's messages. */
export function titlesOf(output: readonly Item[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const item of output) {
    if (item.type !== "message") continue;
    for (const part of (item.content ?? []) as Item[]) {
      for (const a of (Array.isArray(part.annotations) ? part.annotations : []) as Item[]) {
        if (typeof a.url === "string" && typeof a.title === "string") titles.set(a.url, a.title);
      }
    }
  }
  return titles;
}
