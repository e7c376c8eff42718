/**
 * The Anthropic Messages wire types the gateway reads and writes. Only the fields the gateway acts on are
 * typed; everything else is carried as `unknown` and forwarded or dropped by each provider.
 */

/** A text content block. */
export interface TextBlockParam {
  type: "text";
  text: string;
  cache_control?: unknown;
  citations?: unknown;
}

/** An image source. */
export type ImageSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "file"; file_id: string };

/** An image content block. */
export interface ImageBlockParam {
  type: "image";
  source: ImageSource;
  cache_control?: unknown;
}

/** A document content block (PDF or plain text). */
export interface DocumentBlockParam {
  type: "document";
  source: { type: string; media_type?: string; data?: string; url?: string };
  title?: string;
}

/** A tool call made by the assistant. */
export interface ToolUseBlockParam {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** A reference to a tool found by Claude Code's tool search, inside a `tool_result`. */
export interface ToolReferenceBlockParam {
  type: "tool_reference";
  tool_name: string;
}

/** A tool's result sent back by the user. */
export interface ToolResultBlockParam {
  type: "tool_result";
  tool_use_id: string;
  content?: string | Array<TextBlockParam | ImageBlockParam | ToolReferenceBlockParam | { type: string }>;
  is_error?: boolean;
}

/** A thinking block replayed in history. */
export interface ThinkingBlockParam {
  type: "thinking";
  thinking: string;
  signature: string;
}

/** Any input content block. Unknown types are rejected by validation. */
export type ContentBlockParam =
  | TextBlockParam
  | ImageBlockParam
  | DocumentBlockParam
  | ToolUseBlockParam
  | ToolResultBlockParam
  | ThinkingBlockParam
  | { type: "redacted_thinking"; data: string };

/** One conversation turn. `system` turns exist in API version 2026-10-21. */
export interface MessageParam {
  role: "user" | "assistant" | "system";
  content: string | ContentBlockParam[];
}

/** A custom (function) tool. */
export interface ToolParam {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  type?: "custom" | null;
  strict?: boolean;
}

/** How the model should pick tools. */
export type ToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" };

/** Extended thinking configuration. */
export type ThinkingConfig =
  | { type: "enabled"; budget_tokens: number }
  | { type: "disabled" }
  | { type: "adaptive" };

/** A validated `POST /v1/messages` body. */
export interface MessagesRequest {
  model: string;
  max_tokens: number;
  messages: MessageParam[];
  system?: string | TextBlockParam[];
  stop_sequences?: string[];
  stream?: boolean;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  tools?: ToolParam[];
  tool_choice?: ToolChoice;
  thinking?: ThinkingConfig;
  metadata?: { user_id?: string | null };
  /** Structured outputs (and effort); `format` validated as a JSON Schema format. */
  output_config?: { format?: JsonSchemaFormat | null; effort?: string };
  /** The beta spelling of `output_config.format`. */
  output_format?: JsonSchemaFormat;
  [key: string]: unknown;
}

/** A structured-output format: the answer's text is JSON following `schema`. */
export interface JsonSchemaFormat {
  type: "json_schema";
  schema: Record<string, unknown>;
}

/** Why the model stopped. */
export type StopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";

/** A source of an answer's text found by a web search (web_search.ts). */
export interface WebSearchCitation {
  type: "web_search_result_location";
  url: string;
  title: string | null;
  /** Anthropic's opaque index into its encrypted results; empty when another provider searched. */
  encrypted_index: string;
  cited_text: string;
}

/** One result of a web search. */
export interface WebSearchResult {
  type: "web_search_result";
  url: string;
  title: string;
  /** Anthropic's encrypted page content; empty when another provider searched. */
  encrypted_content: string;
  page_age: string | null;
}

/** An output content block. */
export type ContentBlock =
  | { type: "text"; text: string; citations?: WebSearchCitation[] }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "server_tool_use"; id: string; name: string; input: unknown }
  | { type: "web_search_tool_result"; tool_use_id: string; content: WebSearchResult[] };

/** Token usage, in Anthropic's accounting (input excludes cached tokens). */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** Server tools run by the upstream (a translated web search's queries). */
  server_tool_use?: { web_search_requests: number };
  /**
   * Of `cache_creation_input_tokens`, those written with the 1-hour TTL (Anthropic's
   * `cache_creation.ephemeral_1h_input_tokens`), priced higher than 5-minute writes. Internal: for pricing,
   * never sent to clients by the translators.
   */
  cache_creation_1h_input_tokens?: number;
}

/** The 1-hour cache writes of an Anthropic usage object (`cache_creation.ephemeral_1h_input_tokens`). */
export function oneHourWritesOf(usage: unknown): number | undefined {
  const breakdown = (usage as { cache_creation?: { ephemeral_1h_input_tokens?: unknown } } | null)
    ?.cache_creation;
  const value = breakdown?.ephemeral_1h_input_tokens;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A complete (non-streamed) response. */
export interface Message {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason;
  stop_sequence: string | null;
  stop_details: null;
  usage: Usage;
}

/**
 * The text standing for a `tool_reference` (Claude Code's tool search found that tool): Anthropic loads the
 * named tool's definition at that point; providers without tool search already have every definition, so
 * the result says which tool was found rather than arriving empty.
 */
export function toolReferenceText(block: ToolReferenceBlockParam): string {
  return `tool_reference: ${block.tool_name}`;
}

/** What differs between two answers; {@link buildMessage} adds the rest of the envelope. */
export interface MessageParts {
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: Usage;
  /** The stop sequence that ended the answer (null when none did). */
  stop_sequence?: string | null;
}

/** The one builder of Anthropic's `Message` envelope (fields in Anthropic's order; a fresh id). */
export function buildMessage(parts: MessageParts): Message {
  return {
    id: newMessageId(),
    type: "message",
    role: "assistant",
    model: parts.model,
    content: parts.content,
    stop_reason: parts.stop_reason,
    stop_sequence: parts.stop_sequence ?? null,
    stop_details: null,
    usage: parts.usage,
  };
}

/** Makes a message id in Anthropic's shape. */
export function newMessageId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** Makes a tool-use id in Anthropic's shape (for providers that do not give one). */
export function newToolUseId(): string {
  return `toolu_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/**
 * Usage with every counter present; the 1-hour cache writes are kept when `partial` has them (as a field,
 * or in an Anthropic usage object's `cache_creation` breakdown).
 */
export function usageOf(partial: Partial<Usage>): Usage {
  const usage: Usage = {
    input_tokens: partial.input_tokens ?? 0,
    output_tokens: partial.output_tokens ?? 0,
    cache_creation_input_tokens: partial.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: partial.cache_read_input_tokens ?? 0,
  };
  const oneHour = partial.cache_creation_1h_input_tokens ?? oneHourWritesOf(partial);
  if (oneHour) usage.cache_creation_1h_input_tokens = oneHour;
  return usage;
}
