/**
 * OpenAI Chat Completions response → Anthropic, for whole responses and for streams. The stream translator
 * keeps one block open at a time, streams tool-argument fragments verbatim, buffers calls that interleave
 * with the open one, holds the stop reason until the usage-only chunk, and turns an incomplete stream into
 * `event: error` rather than a fake `end_turn`.
 */
import type { SseEvent } from "@switchyard/lib/sse.ts";
import { errorTypeForUpstreamStatus, GatewayError } from "../errors.ts";
import type { OpenAiQuirks } from "./contract.ts";
import { estimateTextTokens } from "../messages/count_tokens.ts";
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

interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/** Anthropic usage from OpenAI usage (prompt tokens include cached ones; Anthropic's input excludes them). */
export function usageFromOpenAi(usage: ChatUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return usageOf({
    input_tokens: Math.max(0, (usage.prompt_tokens ?? 0) - cached),
    output_tokens: usage.completion_tokens ?? 0,
    cache_read_input_tokens: cached,
  });
}

/** Maps a `finish_reason`; `error` means the upstream failed and must surface as an error. */
export function stopReasonFromOpenAi(reason: string | null | undefined): StopReason | "error" {
  switch (reason) {
    case "length":
    case "model_length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    case "error":
    case "insufficient_system_resource":
      return "error";
    default:
      return "end_turn";
  }
}

/** The field reasoning text arrives in (see OpenAiQuirks.reasoningField). */
export type ReasoningField = OpenAiQuirks["reasoningField"];

function reasoningOf(source: Record<string, unknown>, field: ReasoningField): string {
  const value = field === "any" ? source.reasoning_content ?? source.reasoning : source[field];
  return typeof value === "string" ? value : "";
}

/** Translates a whole `chat.completion` body. */
export function messageFromChatCompletion(
  provider: string,
  body: Record<string, unknown>,
  model: string,
  inputEstimate: number,
  reasoningField: ReasoningField = "any",
): Message {
  const choice = (body.choices as Array<Record<string, unknown>> | undefined)?.[0];
  if (!choice) throw new GatewayError("api_error", `upstream provider ${provider} returned no choices`);
  const message = (choice.message ?? {}) as Record<string, unknown>;
  const content: ContentBlock[] = [];
  const reasoning = reasoningOf(message, reasoningField);
  if (reasoning) content.push({ type: "thinking", thinking: reasoning, signature: "" });
  const text = (typeof message.content === "string" ? message.content : "") +
    (typeof message.refusal === "string" ? message.refusal : "");
  if (text) content.push({ type: "text", text });
  let outputChars = reasoning.length + text.length;
  for (const call of (message.tool_calls ?? []) as Array<Record<string, unknown>>) {
    const fn = (call.function ?? {}) as { name?: string; arguments?: string };
    const args = fn.arguments ?? "";
    if (args !== "" && !isJsonObject(args)) {
      throw new GatewayError(
        "api_error",
        "the upstream model produced tool arguments that are not a valid JSON object",
      );
    }
    outputChars += args.length;
    content.push({
      type: "tool_use",
      id: typeof call.id === "string" && call.id ? call.id : newToolUseId(),
      name: fn.name ?? "",
      input: args === "" ? {} : JSON.parse(args),
    });
  }
  const stop = stopReasonFromOpenAi(choice.finish_reason as string | undefined);
  if (stop === "error") {
    throw new GatewayError("api_error", `upstream provider ${provider} failed while generating`);
  }
  const usage = body.usage
    ? usageFromOpenAi(body.usage as ChatUsage)
    : usageOf({ input_tokens: inputEstimate, output_tokens: estimateTextTokens(outputChars) });
  return buildMessage({ model, content, stop_reason: stop, usage });
}

interface PendingCall {
  id: string;
  name: string;
  /** Arguments received before the call's block could be opened. */
  buffered: string;
  /** Arguments already streamed (to tell when an interleaved call is complete). */
  streamed: string;
  opened: boolean;
}

/** Streaming translator for Chat Completions chunks. */
export class OpenAiStreamTranslator implements StreamTranslator {
  #provider: string;
  #inputEstimate: number;
  #finish: string | null = null;
  #usage: Usage | null = null;
  #calls = new Map<number, PendingCall>();
  #current: number | null = null;
  #reasoningField: ReasoningField;

  /** `inputEstimate` stands in for usage if the upstream never reports it; `reasoningField` names reasoning. */
  constructor(provider: string, inputEstimate: number, reasoningField: ReasoningField = "any") {
    this.#provider = provider;
    this.#inputEstimate = inputEstimate;
    this.#reasoningField = reasoningField;
  }

  /** Handles one `data:` chunk. */
  onEvent(event: SseEvent, writer: AnthropicEventWriter): void {
    const data = event.data;
    if (data === "[DONE]") return this.#complete(writer);
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data);
    } catch {
      return; // Not a chunk (some servers send keep-alive text); ignore.
    }
    if (chunk.error) return this.#upstreamError(chunk.error, writer);
    if (chunk.usage) this.#usage = usageFromOpenAi(chunk.usage as ChatUsage);
    const choice = (chunk.choices as Array<Record<string, unknown>> | undefined)?.[0];
    if (!choice) return;
    const delta = (choice.delta ?? {}) as Record<string, unknown>;
    const reasoning = reasoningOf(delta, this.#reasoningField);
    if (reasoning) writer.thinking(reasoning);
    if (typeof delta.content === "string" && delta.content) writer.text(delta.content);
    if (typeof delta.refusal === "string" && delta.refusal) writer.text(delta.refusal);
    const toolCalls = delta.tool_calls as Array<Record<string, unknown>> | undefined;
    if (toolCalls) {
      for (let i = 0; i < toolCalls.length; i++) this.#toolFragment(toolCalls[i], i, writer);
    }
    if (typeof choice.finish_reason === "string") {
      this.#finish = choice.finish_reason;
      if (stopReasonFromOpenAi(this.#finish) === "error") {
        writer.error("api_error", `upstream provider ${this.#provider} failed while generating`);
      }
    }
  }

  /** The upstream closed: complete if it had finished, else report the cut. */
  onEnd(writer: AnthropicEventWriter): void {
    if (this.#finish !== null) return this.#complete(writer);
    writer.error("api_error", `upstream provider ${this.#provider} ended the stream before it was complete`);
  }

  #upstreamError(error: unknown, writer: AnthropicEventWriter): void {
    const e = (typeof error === "object" && error ? error : { message: String(error) }) as {
      message?: string;
      code?: number | string;
    };
    const status = typeof e.code === "number" ? e.code : 500;
    writer.error(
      errorTypeForUpstreamStatus(status),
      `upstream provider ${this.#provider} failed: ${String(e.message ?? "unknown error").slice(0, 500)}`,
    );
  }

  #open(index: number, call: PendingCall, writer: AnthropicEventWriter): void {
    call.opened = true;
    this.#current = index;
    writer.toolStart(call.id, call.name);
    if (call.buffered) {
      call.streamed = call.buffered;
      writer.toolArgs(call.buffered);
      call.buffered = "";
    }
  }

  #toolFragment(fragment: Record<string, unknown>, position: number, writer: AnthropicEventWriter): void {
    const index = typeof fragment.index === "number" ? fragment.index : position;
    const fn = (fragment.function ?? {}) as { name?: string; arguments?: string };
    const args = typeof fn.arguments === "string" ? fn.arguments : "";
    let call = this.#calls.get(index);
    if (!call) {
      call = {
        id: typeof fragment.id === "string" && fragment.id ? fragment.id : newToolUseId(),
        name: fn.name ?? "",
        buffered: "",
        streamed: "",
        opened: false,
      };
      this.#calls.set(index, call);
    } else if (!call.opened) {
      if (typeof fragment.id === "string" && fragment.id) call.id = fragment.id;
      if (fn.name && !call.name) call.name = fn.name;
    }
    if (this.#current === index) {
      call.streamed += args;
      writer.toolArgs(args);
      return;
    }
    call.buffered += args;
    if (call.opened || !call.name) return;
    const current = this.#current === null ? undefined : this.#calls.get(this.#current);
    // Open this call now unless the open one is still mid-arguments (true interleaving): then it waits.
    if (!current || isJsonObject(current.streamed)) this.#open(index, call, writer);
  }

  #complete(writer: AnthropicEventWriter): void {
    if (writer.ended) return;
    const rest = [...this.#calls.entries()].filter(([, c]) => !c.opened).sort((a, b) => a[0] - b[0]);
    for (const [index, call] of rest) this.#open(index, call, writer);
    const stop = stopReasonFromOpenAi(this.#finish);
    if (stop === "error") return;
    const usage = this.#usage ??
      usageOf({ input_tokens: this.#inputEstimate, output_tokens: estimateTextTokens(writer.outputChars) });
    writer.finish(stop, usage);
  }
}
