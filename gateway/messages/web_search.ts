/**
 * Anthropic's `web_search` server tool run by another provider's own search (Gemini's Google Search
 * grounding, the OpenAI Responses `web_search` tool): the request side finds the tool and its options; the
 * answer side builds Anthropic's blocks — a `server_tool_use` (`name: web_search`, `input: {query}`) and its
 * `web_search_tool_result` (`web_search_result` items with url and title) per search, then the answer's text
 * split at the cited spans into text blocks carrying `web_search_result_location` citations. Anthropic's
 * encrypted fields (`encrypted_content`, `encrypted_index`) are empty: no other provider has them.
 */
import { invalidRequest } from "../errors.ts";
import type { AnthropicEventWriter } from "./stream_writer.ts";
import type {
  ContentBlock,
  MessagesRequest,
  ToolParam,
  Usage,
  WebSearchCitation,
  WebSearchResult,
} from "./types.ts";
import { isCustomTool } from "./validate.ts";

/** The options of Anthropic's web search tool a translation may honour. */
export interface WebSearchTool {
  /** Its index in `tools` (for error paths). */
  index: number;
  name: string;
  allowed_domains?: string[];
  blocked_domains?: string[];
  user_location?: Record<string, unknown>;
  /** The most searches the model may run for this request (Anthropic's `max_uses`). */
  max_uses?: number;
}

/** True for Anthropic's web search tool type (`web_search_20250305`, later versions). */
export function isWebSearchType(type: unknown): boolean {
  return typeof type === "string" && /^web_search_\d+$/.test(type);
}

/** The request's web search tool, if it has one. */
export function webSearchToolOf(request: MessagesRequest): WebSearchTool | undefined {
  const tools = request.tools ?? [];
  for (let i = 0; i < tools.length; i++) {
    const raw = tools[i] as unknown as Record<string, unknown>;
    if (!isWebSearchType(raw.type)) continue;
    const maxUses = raw.max_uses;
    if (
      maxUses !== undefined && maxUses !== null && !(Number.isSafeInteger(maxUses) && (maxUses as number) > 0)
    ) {
      throw invalidRequest(`tools.${i}.max_uses: must be a positive integer`);
    }
    return {
      index: i,
      name: String(raw.name),
      allowed_domains: Array.isArray(raw.allowed_domains) ? raw.allowed_domains.map(String) : undefined,
      blocked_domains: Array.isArray(raw.blocked_domains) ? raw.blocked_domains.map(String) : undefined,
      user_location: raw.user_location && typeof raw.user_location === "object"
        ? raw.user_location as Record<string, unknown>
        : undefined,
      max_uses: typeof maxUses === "number" ? maxUses : undefined,
    };
  }
  return undefined;
}

/** The request's function tools (server tools left out). */
export function functionToolsOf(request: MessagesRequest): ToolParam[] {
  return (request.tools ?? []).filter((t) => isCustomTool(t as unknown as Record<string, unknown>));
}

/** A 400 for a web search option `provider` has no equivalent of (never dropped silently). */
export function unsupportedSearchOption(tool: WebSearchTool, option: string, provider: string): Error {
  return invalidRequest(
    `tools.${tool.index}.${option}: provider ${provider} has no equivalent for web search ${option}; remove ` +
      `it or route the model to anthropic/...`,
  );
}

/** A server tool id in Anthropic's shape, made from the upstream's own id when it has one. */
export function serverToolId(upstreamId?: string): string {
  const tail = upstreamId && /^[\w-]{1,64}$/.test(upstreamId)
    ? upstreamId
    : crypto.randomUUID().replaceAll("-", "").slice(0, 24);
  return `srvtoolu_${tail}`;
}

/** A search result item. */
export function searchResult(url: string, title: string | undefined): WebSearchResult {
  return { type: "web_search_result", url, title: title ?? url, encrypted_content: "", page_age: null };
}

/** A citation of `cited_text` found at `url`. */
export function citationOf(url: string, title: string | undefined, citedText: string): WebSearchCitation {
  return {
    type: "web_search_result_location",
    url,
    title: title ?? null,
    encrypted_index: "",
    cited_text: citedText,
  };
}

/** One search: its query and what it found. */
export interface Search {
  id: string;
  query: string;
  results: WebSearchResult[];
}

/** The blocks of the searches, in order: each call, then its result. */
export function searchBlocks(searches: readonly Search[]): ContentBlock[] {
  return searches.flatMap((s): ContentBlock[] => [
    { type: "server_tool_use", id: s.id, name: "web_search", input: { query: s.query } },
    { type: "web_search_tool_result", tool_use_id: s.id, content: s.results },
  ]);
}

/** Streams the blocks of one search. */
export function writeSearch(writer: AnthropicEventWriter, search: Search): void {
  writer.serverToolUse(search.id, "web_search", { query: search.query });
  writer.webSearchResult(search.id, search.results);
}

/** A cited span of an answer's text: its exact text and its sources. */
export interface CitedSpan {
  text: string;
  citations: WebSearchCitation[];
}

/**
 * Splits `text` into text blocks at the cited spans (found in order; a span not found after the previous one
 * is left out), so each cited span is a block of its own carrying its citations, as Anthropic answers.
 */
export function citedTextBlocks(text: string, spans: readonly CitedSpan[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  let at = 0;
  for (const span of spans) {
    if (!span.text || !span.citations.length) continue;
    const found = text.indexOf(span.text, at);
    if (found < 0) continue;
    if (found > at) blocks.push({ type: "text", text: text.slice(at, found) });
    blocks.push({ type: "text", text: span.text, citations: span.citations });
    at = found + span.text.length;
  }
  if (at < text.length) blocks.push({ type: "text", text: text.slice(at) });
  return blocks;
}

/** `usage` with the searches counted as Anthropic counts them (`server_tool_use.web_search_requests`). */
export function withSearches(usage: Usage, searches: number): Usage {
  return searches > 0 ? { ...usage, server_tool_use: { web_search_requests: searches } } : usage;
}
