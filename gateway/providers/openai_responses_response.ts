/**
 * OpenAI Responses API → Anthropic, whole and streamed. Each output item becomes its own block: a reasoning
 * item a `thinking` block (summary text, or the raw reasoning text when there is no summary; its encrypted
 * content in the signature), a message item a `text` block (refusal text included), a function call a
 * `tool_use` block, a `web_search_call` (a translated `web_search`, openai_responses_search.ts) a
 * `server_tool_use` + `web_search_tool_result` pair, `url_citation` annotations citations. `incomplete` maps to
 * `max_tokens` or `refusal`, `failed` and `error` to an error; stream events the gateway has no use for
 * (lifecycle, `*.done` echoes, hosted-tool progress) are ignored.
 */
import type { SseEvent } from "@switchyard/lib/sse.ts";
import { type AnthropicErrorType, GatewayError } from "../errors.ts";
import type { StreamTranslator } from "../messages/stream_pipe.ts";
import { type AnthropicEventWriter, isJsonObject } from "../messages/stream_writer.ts";
import {
  buildMessage,
  type ContentBlock,
  type Message,
  newToolUseId,
  type StopReason,
  type Usage,
  usageOf,
} from "../messages/types.ts";
import { reasoningSignature } from "./openai_responses_request.ts";
import {
  type CitedSpan,
  citedTextBlocks,
  searchBlocks,
  withSearches,
  writeSearch,
} from "../messages/web_search.ts";
import { citationOfAnnotation, searchOfCall, spansOfText, titlesOf } from "./openai_responses_search.ts";

interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

type Item = Record<string, unknown>;

/** Anthropic usage: input excludes cache reads and writes; output includes reasoning tokens. */
export function usageFromResponses(usage: ResponsesUsage | undefined): Usage {
  const cached = usage?.input_tokens_details?.cached_tokens ?? 0;
  const written = usage?.input_tokens_details?.cache_write_tokens ?? 0;
  return usageOf({
    input_tokens: Math.max(0, (usage?.input_tokens ?? 0) - cached - written),
    output_tokens: usage?.output_tokens ?? 0,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
  });
}

/** The Anthropic error type of a Responses error code (`response.error.code`, an `error` event's `code`). */
export function errorTypeForResponsesCode(code: unknown): AnthropicErrorType {
  if (code === "rate_limit_exceeded") return "rate_limit_error";
  if (code === "insufficient_quota") return "billing_error";
  if (code === "server_error" || code === "vector_store_timeout" || typeof code !== "string") {
    return "api_error";
  }
  if (code === "server_is_overloaded" || code === "overloaded") return "overloaded_error";
  return "invalid_request_error"; // invalid_prompt, image and context errors: the request's content
}

/** The stop reason of a finished response. */
export function stopReasonFromResponse(
  response: Record<string, unknown>,
  sawCall: boolean,
  refused: boolean,
): StopReason {
  if (response.status === "incomplete") {
    const reason = (response.incomplete_details as { reason?: string } | null)?.reason;
    return reason === "content_filter" ? "refusal" : "max_tokens";
  }
  if (refused) return "refusal";
  return sawCall ? "tool_use" : "end_turn";
}

function failure(provider: string, response: Record<string, unknown>): GatewayError {
  const error = (response.error ?? {}) as { code?: unknown; message?: unknown };
  const message = typeof error.message === "string" ? error.message.slice(0, 500) : "unknown error";
  return new GatewayError(
    errorTypeForResponsesCode(error.code),
    `upstream provider ${provider} failed: ${message}`,
  );
}

function textsOf(parts: unknown, type: string): string[] {
  return Array.isArray(parts)
    ? parts.filter((p) => p?.type === type && typeof p.text === "string").map((p) => p.text as string)
    : [];
}

/** The thinking text of a reasoning item: its summary, else its raw reasoning text. */
function reasoningText(item: Item): string {
  const summary = textsOf(item.summary, "summary_text");
  return summary.length ? summary.join("\n\n") : textsOf(item.content, "reasoning_text").join("");
}

function signatureOf(provider: string, item: Item): string {
  return typeof item.encrypted_content === "string" && item.encrypted_content && typeof item.id === "string"
    ? reasoningSignature(provider, item.id, item.encrypted_content)
    : "";
}

function parseArguments(args: string): unknown {
  if (args === "") return {};
  if (!isJsonObject(args)) {
    throw new GatewayError(
      "api_error",
      "the upstream model produced tool arguments that are not a valid JSON object",
    );
  }
  return JSON.parse(args);
}

/** Translates a whole `response` object. */
export function messageFromResponse(provider: string, body: Record<string, unknown>, model: string): Message {
  if (body.status === "failed") throw failure(provider, body);
  const content: ContentBlock[] = [];
  let sawCall = false;
  let refused = false;
  let searches = 0;
  let titles: Map<string, string> | undefined;
  for (const item of (body.output ?? []) as Item[]) {
    if (item.type === "web_search_call") {
      // A translated web_search (openai_responses_search.ts): its call and sources, titled from citations.
      const search = searchOfCall(item, titles ??= titlesOf((body.output ?? []) as Item[]));
      if (search) {
        content.push(...searchBlocks([search]));
        searches++;
      }
      continue;
    }
    if (item.type === "reasoning") {
      const thinking = reasoningText(item);
      const signature = signatureOf(provider, item);
      if (thinking || signature) content.push({ type: "thinking", thinking, signature });
    } else if (item.type === "message") {
      let text = "";
      let spans: CitedSpan[] | undefined;
      for (const part of (item.content ?? []) as Item[]) {
        if (part.type === "output_text" && typeof part.text === "string") {
          if (Array.isArray(part.annotations) && part.annotations.length) {
            (spans ??= []).push(...spansOfText(part.text, part.annotations));
          }
          text += part.text;
        } else if (part.type === "refusal" && typeof part.refusal === "string") {
          refused = true;
          text += part.refusal;
        }
      }
      if (spans) content.push(...citedTextBlocks(text, spans));
      else if (text) content.push({ type: "text", text });
    } else if (item.type === "function_call") {
      sawCall = true;
      content.push({
        type: "tool_use",
        id: typeof item.call_id === "string" && item.call_id ? item.call_id : newToolUseId(),
        name: typeof item.name === "string" ? item.name : "",
        input: parseArguments(typeof item.arguments === "string" ? item.arguments : ""),
      });
    }
  }
  return buildMessage({
    model,
    content,
    stop_reason: stopReasonFromResponse(body, sawCall, refused),
    usage: withSearches(usageFromResponses(body.usage as ResponsesUsage | undefined), searches),
  });
}

interface StreamedItem {
  type: string;
  /** Reasoning: a summary delta arrived (raw reasoning text is then not shown). */
  summarized: boolean;
  /** Reasoning: raw reasoning text, shown at the item's end when no summary came. */
  reasoning: string;
  /** Function call: an arguments delta arrived. */
  argsStreamed: boolean;
  /** Message: its text so far (kept once a search ran, for citations). */
  text: string;
}

/** Streaming translator for Responses API events. */
export class ResponsesStreamTranslator implements StreamTranslator {
  #provider: string;
  #items = new Map<number, StreamedItem>();
  #sawCall = false;
  #refused = false;
  /** Searches written; once one ran, the text is kept so citations can quote their spans. */
  #searches = 0;

  /** `provider` names the upstream in messages and signs carried reasoning. */
  constructor(provider: string) {
    this.#provider = provider;
  }

  /** Handles one event (its `type` is in the data as well as the `event:` line). */
  onEvent(event: SseEvent, writer: AnthropicEventWriter): void {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data);
    } catch {
      return;
    }
    const index = typeof data.output_index === "number" ? data.output_index : -1;
    const delta = typeof data.delta === "string" ? data.delta : "";
    switch (data.type) {
      case "response.output_item.added":
        return this.#added(index, (data.item ?? {}) as Item, writer);
      case "response.output_item.done":
        return this.#done(index, (data.item ?? {}) as Item, writer);
      case "response.reasoning_summary_part.added":
        if ((data.summary_index as number) > 0) writer.thinking("\n\n");
        return;
      case "response.reasoning_summary_text.delta":
        this.#item(index).summarized = true;
        return writer.thinking(delta);
      case "response.reasoning_text.delta":
        this.#item(index).reasoning += delta;
        return;
      case "response.output_text.delta":
        if (this.#searches) this.#item(index).text += delta;
        return writer.text(delta);
      case "response.output_text.annotation.added": {
        const citation = citationOfAnnotation(data.annotation, this.#item(index).text);
        return citation && writer.citation(citation);
      }
      case "response.refusal.delta":
        this.#refused = true;
        return writer.text(delta);
      case "response.function_call_arguments.delta":
        this.#item(index).argsStreamed = true;
        return writer.toolArgs(delta);
      case "response.completed":
      case "response.incomplete": {
        const response = (data.response ?? {}) as Record<string, unknown>;
        const stop = stopReasonFromResponse(response, this.#sawCall, this.#refused);
        const usage = usageFromResponses(response.usage as ResponsesUsage | undefined);
        return writer.finish(stop, withSearches(usage, this.#searches));
      }
      case "response.failed": {
        const error = failure(this.#provider, (data.response ?? {}) as Record<string, unknown>);
        return writer.error(error.type, error.message);
      }
      case "error":
        return writer.error(
          errorTypeForResponsesCode(data.code),
          `upstream provider ${this.#provider} failed: ${
            String(data.message ?? "unknown error").slice(0, 500)
          }`,
        );
      default:
        return; // lifecycle events, `*.done` echoes of what was streamed, hosted-tool progress
    }
  }

  /** The body ended: a complete response ended with `response.completed` or `response.incomplete`. */
  onEnd(writer: AnthropicEventWriter): void {
    writer.error("api_error", `upstream provider ${this.#provider} ended the stream before it was complete`);
  }

  #item(index: number): StreamedItem {
    let item = this.#items.get(index);
    if (!item) {
      item = { type: "", summarized: false, reasoning: "", argsStreamed: false, text: "" };
      this.#items.set(index, item);
    }
    return item;
  }

  #added(index: number, item: Item, writer: AnthropicEventWriter): void {
    this.#item(index).type = String(item.type);
    if (item.type !== "function_call") return;
    this.#sawCall = true;
    const id = typeof item.call_id === "string" && item.call_id ? item.call_id : newToolUseId();
    writer.toolStart(id, typeof item.name === "string" ? item.name : "");
  }

  #done(index: number, item: Item, writer: AnthropicEventWriter): void {
    const streamed = this.#item(index);
    if (item.type === "reasoning") {
      if (!streamed.summarized) writer.thinking(streamed.reasoning || reasoningText(item));
      const signature = signatureOf(this.#provider, item);
      if (signature) writer.signature(signature);
    } else if (item.type === "function_call" && !streamed.argsStreamed) {
      writer.toolArgs(typeof item.arguments === "string" ? item.arguments : "");
    } else if (item.type === "web_search_call") {
      // Titles arrive later, with the citations: the sources are listed by URL.
      const search = searchOfCall(item, new Map());
      if (search) {
        writeSearch(writer, search);
        this.#searches++;
      }
      return;
    }
    writer.endBlock();
  }
}
