/**
 * Anthropic stream events → Chat Completions `chat.completion.chunk` frames: a first chunk with the role,
 * text as `content` deltas, thinking as `reasoning_content` deltas, each tool_use block as one tool call
 * (its index counting tool calls only) whose arguments stream in fragments, a last chunk with the
 * `finish_reason`, then (with `stream_options.include_usage`) a usage chunk with no choices, then
 * `data: [DONE]`. An error becomes `data: {"error": …}`, which the OpenAI SDKs raise as an API error.
 */
import { type Usage, usageOf } from "../messages/types.ts";
import type { ClientStreamFormat } from "./client_stream.ts";
import { finishReasonOf, newChatId } from "./chat_response.ts";
import { openAiError } from "./errors.ts";
import type { AnthropicErrorType } from "../errors.ts";
import type { StopReason } from "../messages/types.ts";
import { chatUsage } from "./usage.ts";

type Data = Record<string, unknown>;

/** The Chat Completions stream format of one request. */
export class ChatStreamFormat implements ClientStreamFormat {
  #id = newChatId();
  #created = Math.floor(Date.now() / 1000);
  #model: string;
  #includeUsage: boolean;
  #tools = new Map<number, number>();
  #usage: Partial<Usage> = {};
  #thinkingChars = 0;
  #stop: StopReason | undefined;
  #ended = false;

  /** `model` is echoed in every chunk; `includeUsage` adds the final usage chunk. */
  constructor(model: string, includeUsage: boolean) {
    this.#model = model;
    this.#includeUsage = includeUsage;
  }

  /** See {@link ClientStreamFormat.ended}. */
  get ended(): boolean {
    return this.#ended;
  }

  #chunk(delta: Data, finish: string | null = null): string {
    return `data: ${
      JSON.stringify({
        id: this.#id,
        object: "chat.completion.chunk",
        created: this.#created,
        model: this.#model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      })
    }\n\n`;
  }

  /** See {@link ClientStreamFormat.event}. */
  event(data: Data): string {
    switch (data.type) {
      case "message_start": {
        const message = data.message as { usage?: Partial<Usage> } | undefined;
        Object.assign(this.#usage, message?.usage ?? {});
        return this.#chunk({ role: "assistant", content: "" });
      }
      case "content_block_start": {
        const block = data.content_block as Data;
        if (block?.type !== "tool_use") return "";
        const index = this.#tools.size;
        this.#tools.set(Number(data.index), index);
        return this.#chunk({
          tool_calls: [{
            index,
            id: block.id,
            type: "function",
            function: { name: block.name, arguments: "" },
          }],
        });
      }
      case "content_block_delta":
        return this.#delta(Number(data.index), data.delta as Data);
      case "message_delta": {
        const delta = data.delta as { stop_reason?: StopReason } | undefined;
        if (delta?.stop_reason) this.#stop = delta.stop_reason;
        for (const [key, value] of Object.entries((data.usage ?? {}) as Data)) {
          if (typeof value === "number") (this.#usage as Record<string, number>)[key] = value;
        }
        return "";
      }
      case "message_stop":
        return this.#finish();
      default:
        return "";
    }
  }

  #delta(index: number, delta: Data): string {
    switch (delta?.type) {
      case "text_delta":
        return delta.text ? this.#chunk({ content: delta.text }) : "";
      case "thinking_delta":
        this.#thinkingChars += String(delta.thinking ?? "").length;
        return delta.thinking ? this.#chunk({ reasoning_content: delta.thinking }) : "";
      case "input_json_delta": {
        const tool = this.#tools.get(index);
        if (tool === undefined || !delta.partial_json) return "";
        return this.#chunk({ tool_calls: [{ index: tool, function: { arguments: delta.partial_json } }] });
      }
      default:
        return "";
    }
  }

  #finish(): string {
    this.#ended = true;
    let frames = this.#chunk({}, finishReasonOf(this.#stop));
    if (this.#includeUsage) {
      frames += `data: ${
        JSON.stringify({
          id: this.#id,
          object: "chat.completion.chunk",
          created: this.#created,
          model: this.#model,
          choices: [],
          usage: chatUsage(usageOf(this.#usage), this.#thinkingChars),
        })
      }\n\n`;
    }
    return frames + "data: [DONE]\n\n";
  }

  /** See {@link ClientStreamFormat.error}. */
  error(type: string, message: string): string {
    this.#ended = true;
    return `data: ${JSON.stringify({ error: openAiError(type as AnthropicErrorType, message) })}\n\n`;
  }
}
