/**
 * Anthropic's `web_search` tool as Gemini's Google Search grounding: the request gets `{google_search: {}}`
 * beside its function declarations; the answer's `groundingMetadata` (`webSearchQueries`,
 * `groundingChunks[].web.{uri,title}`, `groundingSupports[].{segment.text, groundingChunkIndices}`) becomes a
 * `server_tool_use` + `web_search_tool_result` pair per query and citations on the cited spans of the text.
 * Gemini does not say which query found which source, so every source is listed under the first query.
 * Domain filters have no equivalent (400); `user_location` and `max_uses` are hints Gemini cannot take.
 */
import {
  citationOf,
  type CitedSpan,
  citedTextBlocks,
  type Search,
  searchBlocks,
  searchResult,
  serverToolId,
  unsupportedSearchOption,
  type WebSearchTool,
} from "../messages/web_search.ts";
import type { ContentBlock } from "../messages/types.ts";

/** Gemini's grounding metadata, as far as the gateway reads it. */
export interface GroundingMetadata {
  webSearchQueries?: string[];
  groundingChunks?: Array<{ web?: { uri?: string; title?: string } }>;
  groundingSupports?: Array<{
    segment?: { partIndex?: number; startIndex?: number; text?: string };
    groundingChunkIndices?: number[];
  }>;
}

/** The Gemini tool for a web search tool (400 for options it has no equivalent of). */
export function googleSearchTool(tool: WebSearchTool, provider: string): Record<string, unknown> {
  if (tool.allowed_domains?.length) throw unsupportedSearchOption(tool, "allowed_domains", provider);
  if (tool.blocked_domains?.length) throw unsupportedSearchOption(tool, "blocked_domains", provider);
  return { google_search: {} };
}

/** The grounding metadata of a candidate, when it searched. */
export function groundingOf(candidate: Record<string, unknown> | undefined): GroundingMetadata | undefined {
  const metadata = candidate?.groundingMetadata as GroundingMetadata | undefined;
  if (!metadata || typeof metadata !== "object") return undefined;
  const searched = (metadata.webSearchQueries?.length ?? 0) > 0 ||
    (metadata.groundingChunks?.length ?? 0) > 0;
  return searched ? metadata : undefined;
}

function sourcesOf(metadata: GroundingMetadata): Array<{ url: string; title?: string } | undefined> {
  return (metadata.groundingChunks ?? []).map((chunk) =>
    typeof chunk?.web?.uri === "string" ? { url: chunk.web.uri, title: chunk.web.title } : undefined
  );
}

/** The searches of a grounded answer: one per query, every source under the first. */
export function searchesOf(metadata: GroundingMetadata): Search[] {
  const queries = (metadata.webSearchQueries ?? []).filter((q) => typeof q === "string");
  const results = sourcesOf(metadata).filter((s) => s !== undefined).map((s) => searchResult(s.url, s.title));
  return (queries.length ? queries : [""]).map((query, i) => ({
    id: serverToolId(),
    query,
    results: i === 0 ? results : [],
  }));
}

/** The cited spans of a grounded answer, in the order of the text. */
function spansOf(metadata: GroundingMetadata): CitedSpan[] {
  const sources = sourcesOf(metadata);
  const supports = [...(metadata.groundingSupports ?? [])].sort((a, b) =>
    (a.segment?.partIndex ?? 0) - (b.segment?.partIndex ?? 0) ||
    (a.segment?.startIndex ?? 0) - (b.segment?.startIndex ?? 0)
  );
  return supports.map((support) => {
    const text = typeof support.segment?.text === "string" ? support.segment.text : "";
    const citations = (support.groundingChunkIndices ?? []).flatMap((i) => {
      const source = sources[i];
      return source ? [citationOf(source.url, source.title, text)] : [];
    });
    return { text, citations };
  });
}

/** `content` with the searches in front and its text split at the cited spans. */
export function groundedContent(
  content: ContentBlock[],
  metadata: GroundingMetadata,
  searches: Search[],
): ContentBlock[] {
  const spans = spansOf(metadata);
  const cited = content.flatMap((block) =>
    block.type === "text"
      ? citedTextBlocks(block.text, spans.filter((s) => block.text.includes(s.text)))
      : [block]
  );
  return [...searchBlocks(searches), ...cited];
}
