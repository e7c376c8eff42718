/**
 * Bedrock `Converse` response → Anthropic, whole and streamed (`ConverseStream`'s event-stream events:
 * messageStart, contentBlockStart/Delta/Stop, messageStop, metadata). Reasoning signatures are marked as
 * Bedrock's (signatures.ts) so they return to Converse and never to another provider. `metadata` (usage)
 * follows `messageStop`, so the stream finishes on it, or at the body's end if it never comes.
 */
import type { SseEvent } from "@switchyard/lib/sse.ts";
import type { StreamTranslator } from "../messages/stream_pipe.ts";
import type { AnthropicEventWriter } from "../messages/stream_writer.ts";
import {
  buildMessage,
  type ContentBlock,
  type Message,
  type StopReason,
  type Usage,
  usageOf,
} from "../messages/types.ts";
import { type EventStreamException, EXCEPTION_EVENT } from "./aws_event_stream.ts";
import { errorTypeOfException } from "./bedrock_errors.ts";
import { foreignSignature } from "./signatures.ts";

interface ConverseUsage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

interface ConverseBlock {
  text?: string;
  toolUse?: { toolUseId?: string; name?: string; input?: unknown };
  reasoningContent?: { reasoningText?: { text?: string; signature?: string } };
}

const STOP_REASONS: Readonly<Record<string, StopReason>> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  guardrail_intervened: "refusal",
  content_filtered: "refusal",
  model_context_window_exceeded: "model_context_window_exceeded",
};

/** Anthropic usage from Converse usage (Converse's inputTokens already exclude cache reads and writes). */
export function usageFromConverse(usage: ConverseUsage | undefined): Usage {
  return usageOf({
    input_tokens: usage?.inputTokens ?? 0,
    output_tokens: usage?.outputTokens ?? 0,
    cache_read_input_tokens: usage?.cacheReadInputTokens ?? 0,
    cache_creation_input_tokens: usage?.cacheWriteInputTokens ?? 0,
  });
}

/** Maps a Converse stop reason (unknown ones end the turn). */
export function stopReasonFromConverse(reason: unknown): StopReason {
  return typeof reason === "string" ? STOP_REASONS[reason] ?? "end_turn" : "end_turn";
}

function stopSequenceOf(fields: unknown): string | null {
  const value = (fields as { stop_sequence?: unknown } | undefined)?.stop_sequence;
  return typeof value === "string" ? value : null;
}

/** Translates a whole `Converse` body. */
export function messageFromConverse(body: Record<string, unknown>, model: string): Message {
  const output = body.output as { message?: { content?: ConverseBlock[] } } | undefined;
  const content: ContentBlock[] = [];
  for (const block of output?.message?.content ?? []) {
    if (typeof block.text === "string") {
      const last = content.at(-1);
      if (last?.type === "text") last.text += block.text;
      else content.push({ type: "text", text: block.text });
    } else if (block.toolUse) {
      content.push({
        type: "tool_use",
        id: block.toolUse.toolUseId ?? "",
        name: block.toolUse.name ?? "",
        input: block.toolUse.input ?? {},
      });
    } else if (block.reasoningContent?.reasoningText) {
      const { text, signature } = block.reasoningContent.reasoningText;
      content.push({
        type: "thinking",
        thinking: text ?? "",
        signature: signature ? foreignSignature("bedrock", signature) : "",
      });
    }
  }
  return buildMessage({
    model,
    content,
    stop_reason: stopReasonFromConverse(body.stopReason),
    stop_sequence: stopSequenceOf(body.additionalModelResponseFields),
    usage: usageFromConverse(body.usage as ConverseUsage | undefined),
  });
}

/** Streaming translator for `ConverseStream` events (decoded by aws_event_stream.ts). */
export class ConverseStreamTranslator implements StreamTranslator {
  #provider: string;
  #stop: StopReason | undefined;
  #stopSequence: string | null = null;
  #usage: ConverseUsage | undefined;

  /** `provider` names the upstream in error messages. */
  constructor(provider: string) {
    this.#provider = provider;
  }

  /** Handles one event-stream event. */
  onEvent(event: SseEvent, writer: AnthropicEventWriter): void {
    if (event.event === EXCEPTION_EVENT) {
      const { exceptionType, message } = JSON.parse(event.data) as EventStreamException;
      return writer.error(
        errorTypeOfException(exceptionType),
        `upstream provider ${this.#provider} failed: ${exceptionType}${
          message ? `: ${message.slice(0, 500)}` : ""
        }`,
      );
    }
    const data = JSON.parse(event.data) as Record<string, unknown>;
    switch (event.event) {
      case "contentBlockStart": {
        const toolUse = (data.start as ConverseBlock | undefined)?.toolUse;
        if (toolUse) writer.toolStart(toolUse.toolUseId ?? "", toolUse.name ?? "");
        break;
      }
      case "contentBlockDelta": {
        const delta = data.delta as {
          text?: string;
          toolUse?: { input?: string };
          reasoningContent?: { text?: string; signature?: string };
        };
        if (typeof delta?.text === "string") writer.text(delta.text);
        else if (typeof delta?.toolUse?.input === "string") writer.toolArgs(delta.toolUse.input);
        else if (delta?.reasoningContent) {
          const { text, signature } = delta.reasoningContent;
          if (typeof text === "string") writer.thinking(text);
          if (typeof signature === "string") writer.signature(foreignSignature("bedrock", signature));
        }
        break;
      }
      case "messageStop":
        this.#stop = stopReasonFromConverse(data.stopReason);
        this.#stopSequence = stopSequenceOf(data.additionalModelResponseFields);
        break;
      case "metadata":
        this.#usage = data.usage as ConverseUsage | undefined;
        if (this.#stop) writer.finish(this.#stop, usageFromConverse(this.#usage), this.#stopSequence);
        break;
    }
  }

  /** The body ended: complete only if `messageStop` came. */
  onEnd(writer: AnthropicEventWriter): void {
    if (!this.#stop) {
      return writer.error(
        "api_error",
        `upstream provider ${this.#provider} ended the stream before it was complete`,
      );
    }
    writer.finish(this.#stop, usageFromConverse(this.#usage), this.#stopSequence);
  }
}
