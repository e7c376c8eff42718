/**
 * Gemini `GenerateContentResponse` → Anthropic, whole and streamed. Function calls arrive whole, so each
 * becomes a tool_use block with one `input_json_delta`; `STOP` with function calls is `tool_use`; safety
 * stops are `refusal`; malformed-call stops are errors, never a silent `end_turn`.
 */
import type { SseEvent } from "@switchyard/lib/sse.ts";
import { GatewayError } from "../errors.ts";
import type { StreamTranslator } from "../messages/stream_pipe.ts";
import type { AnthropicEventWriter } from "../messages/stream_writer.ts";
import {
  buildMessage,
  type ContentBlock,
  type Message,
  newToolUseId,
  type StopReason,
  type Usage,
  usageOf,
} from "../messages/types.ts";
import { THOUGHT_SEPARATOR } from "./gemini_request.ts";
import { foreignSignature } from "./signatures.ts";
import { groundedContent, type GroundingMetadata, groundingOf, searchesOf } from "./gemini_search.ts";
import { withSearches, writeSearch } from "../messages/web_search.ts";

interface UsageMetadata {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
}

interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name?: string; args?: unknown };
}

const REFUSALS = new Set([
  "SAFETY",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "LANGUAGE",
  "RECITATION",
]);
const FAILURES = new Set([
  "MALFORMED_FUNCTION_CALL",
  "UNEXPECTED_TOOL_CALL",
  "TOO_MANY_TOOL_CALLS",
  "MALFORMED_RESPONSE",
]);

/** Anthropic usage from Gemini usage (prompt includes cached; output adds thoughts). */
export function usageFromGemini(usage: UsageMetadata): Usage {
  const cached = usage.cachedContentTokenCount ?? 0;
  return usageOf({
    input_tokens: Math.max(0, (usage.promptTokenCount ?? 0) - cached),
    output_tokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
    cache_read_input_tokens: cached,
  });
}

/** Maps a finish reason; `error` for upstream failures. */
export function stopReasonFromGemini(reason: string | undefined, sawCall: boolean): StopReason | "error" {
  if (reason === "MAX_TOKENS") return "max_tokens";
  if (reason && REFUSALS.has(reason)) return "refusal";
  if (reason && FAILURES.has(reason)) return "error";
  return sawCall ? "tool_use" : "end_turn";
}

function toolId(call: NonNullable<Part["functionCall"]>, signature: string | undefined): string {
  const id = call.id || newToolUseId();
  return signature ? `${id}${THOUGHT_SEPARATOR}${signature}` : id;
}

function candidateOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  return (body.candidates as Array<Record<string, unknown>> | undefined)?.[0];
}

function partsOf(candidate: Record<string, unknown> | undefined): Part[] {
  return ((candidate?.content as { parts?: Part[] } | undefined)?.parts) ?? [];
}

function blockedReason(body: Record<string, unknown>): string | undefined {
  return (body.promptFeedback as { blockReason?: string } | undefined)?.blockReason;
}

/** Translates a whole `generateContent` body. */
export function messageFromGemini(provider: string, body: Record<string, unknown>, model: string): Message {
  const candidate = candidateOf(body);
  const content: ContentBlock[] = [];
  let sawCall = false;
  for (const part of partsOf(candidate)) {
    const last = content.at(-1);
    if (part.functionCall) {
      sawCall = true;
      content.push({
        type: "tool_use",
        id: toolId(part.functionCall, part.thoughtSignature),
        name: part.functionCall.name ?? "",
        input: part.functionCall.args ?? {},
      });
    } else if (part.thought) {
      if (last?.type === "thinking" && !last.signature) last.thinking += part.text ?? "";
      else content.push({ type: "thinking", thinking: part.text ?? "", signature: "" });
      if (part.thoughtSignature) {
        (content.at(-1) as { signature: string }).signature = foreignSignature(
          "gemini",
          part.thoughtSignature,
        );
      }
    } else if (typeof part.text === "string" && part.text) {
      if (last?.type === "text") last.text += part.text;
      else content.push({ type: "text", text: part.text });
    }
  }
  const reason = candidate ? candidate.finishReason as string | undefined : blockedReason(body) && "SAFETY";
  const stop = stopReasonFromGemini(reason, sawCall);
  if (stop === "error") {
    throw new GatewayError("api_error", `upstream provider ${provider} failed: finish reason ${reason}`);
  }
  const usage = usageFromGemini((body.usageMetadata ?? {}) as UsageMetadata);
  // Google Search grounding (a translated web_search): the searches' blocks and the text's citations.
  const grounding = groundingOf(candidate);
  if (!grounding) return buildMessage({ model, content, stop_reason: stop, usage });
  const searches = searchesOf(grounding);
  return buildMessage({
    model,
    content: groundedContent(content, grounding, searches),
    stop_reason: stop,
    usage: withSearches(usage, searches.length),
  });
}

/** Streaming translator for `streamGenerateContent?alt=sse`. */
export class GeminiStreamTranslator implements StreamTranslator {
  #provider: string;
  #finish: string | undefined;
  #usage: UsageMetadata = {};
  #sawCall = false;
  #sawAny = false;
  #grounding: GroundingMetadata | undefined;

  /** `provider` names the upstream in error messages. */
  constructor(provider: string) {
    this.#provider = provider;
  }

  /** Handles one `data:` event (a whole GenerateContentResponse). */
  onEvent(event: SseEvent, writer: AnthropicEventWriter): void {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(event.data);
    } catch {
      return;
    }
    if (body.error) {
      const message = (body.error as { message?: string }).message ?? "unknown error";
      return writer.error(
        "api_error",
        `upstream provider ${this.#provider} failed: ${message.slice(0, 500)}`,
      );
    }
    this.#sawAny = true;
    if (body.usageMetadata) this.#usage = body.usageMetadata as UsageMetadata;
    const candidate = candidateOf(body);
    if (!candidate && blockedReason(body)) this.#finish = "SAFETY";
    for (const part of partsOf(candidate)) {
      if (part.functionCall) {
        this.#sawCall = true;
        writer.toolStart(toolId(part.functionCall, part.thoughtSignature), part.functionCall.name ?? "");
        writer.toolArgs(JSON.stringify(part.functionCall.args ?? {}));
      } else if (part.thought) {
        writer.thinking(part.text ?? "");
        if (part.thoughtSignature) writer.signature(foreignSignature("gemini", part.thoughtSignature));
      } else if (typeof part.text === "string") writer.text(part.text);
    }
    this.#grounding = groundingOf(candidate) ?? this.#grounding;
    if (typeof candidate?.finishReason === "string") this.#finish = candidate.finishReason;
  }

  /** The body ended: Gemini streams end after the chunk carrying `finishReason`. */
  onEnd(writer: AnthropicEventWriter): void {
    if (!this.#sawAny || this.#finish === undefined) {
      return writer.error(
        "api_error",
        `upstream provider ${this.#provider} ended the stream before it was complete`,
      );
    }
    const stop = stopReasonFromGemini(this.#finish, this.#sawCall);
    if (stop === "error") {
      return writer.error(
        "api_error",
        `upstream provider ${this.#provider} failed: finish reason ${this.#finish}`,
      );
    }
    const usage = usageFromGemini(this.#usage);
    if (!this.#grounding) return writer.finish(stop, usage);
    // The grounding is complete only in the last chunks: its searches follow the text, without citations.
    const searches = searchesOf(this.#grounding);
    for (const search of searches) writeSearch(writer, search);
    writer.finish(stop, withSearches(usage, searches.length));
  }
}
