/**
 * Anthropic stream events → Responses API stream events, in the order OpenAI sends them and Codex CLI reads
 * them: `response.created`, `response.in_progress`; per block `response.output_item.added`, its deltas
 * (`response.output_text.delta`, `response.reasoning_summary_text.delta`,
 * `response.function_call_arguments.delta`) with their `.done` events, then `response.output_item.done`
 * carrying the whole item; finally `response.completed` (or `response.incomplete`) with the full output and
 * usage. An error becomes `response.failed`. Every event has its `sequence_number`.
 */
import type { AnthropicErrorType } from "../errors.ts";
import { type StopReason, type Usage, usageOf } from "../messages/types.ts";
import type { ClientStreamFormat } from "./client_stream.ts";
import { openAiError } from "./errors.ts";
import { REDACTED_PREFIX } from "./responses_request.ts";
import {
  functionCallItem,
  itemId,
  messageItem,
  reasoningItem,
  responseShell,
  statusOf,
} from "./responses_response.ts";
import { responsesUsage } from "./usage.ts";

type Data = Record<string, unknown>;

interface OpenItem {
  kind: "text" | "thinking" | "tool_use" | "redacted_thinking";
  id: string;
  outputIndex: number;
  text: string;
  signature: string;
  callId: string;
  name: string;
}

/** The Responses stream format of one request. */
export class ResponsesStreamFormat implements ClientStreamFormat {
  #shell: Record<string, unknown>;
  #sequence = 0;
  #open = new Map<number, OpenItem>();
  #output: Data[] = [];
  #usage: Partial<Usage> = {};
  #thinkingChars = 0;
  #stop: StopReason | undefined;
  #refused = false;
  #ended = false;

  /** `model` is echoed; `echo` carries the request's settings into the response object. */
  constructor(model: string, echo: Record<string, unknown>) {
    this.#shell = responseShell(itemId("resp"), model, Math.floor(Date.now() / 1000), echo);
  }

  /** See {@link ClientStreamFormat.ended}. */
  get ended(): boolean {
    return this.#ended;
  }

  #frame(type: string, fields: Data): string {
    return `event: ${type}\ndata: ${
      JSON.stringify({ type, sequence_number: this.#sequence++, ...fields })
    }\n\n`;
  }

  /** See {@link ClientStreamFormat.event}. */
  event(data: Data): string {
    switch (data.type) {
      case "message_start": {
        Object.assign(this.#usage, (data.message as { usage?: Partial<Usage> } | undefined)?.usage ?? {});
        return this.#frame("response.created", { response: this.#shell }) +
          this.#frame("response.in_progress", { response: this.#shell });
      }
      case "content_block_start":
        return this.#start(Number(data.index), data.content_block as Data);
      case "content_block_delta":
        return this.#delta(Number(data.index), data.delta as Data);
      case "content_block_stop":
        return this.#stopBlock(Number(data.index));
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

  #start(index: number, block: Data): string {
    const kind = block?.type as OpenItem["kind"];
    if (!["text", "thinking", "tool_use", "redacted_thinking"].includes(kind)) return "";
    const prefix = kind === "text" ? "msg" : kind === "tool_use" ? "fc" : "rs";
    const open: OpenItem = {
      kind,
      id: itemId(prefix),
      outputIndex: this.#output.length,
      text: "",
      signature: kind === "redacted_thinking" ? `${REDACTED_PREFIX}${block.data ?? ""}` : "",
      callId: String(block.id ?? ""),
      name: String(block.name ?? ""),
    };
    this.#open.set(index, open);
    this.#output.push({}); // its place; filled when the item is done
    const at = { output_index: open.outputIndex };
    switch (kind) {
      case "text":
        return this.#frame("response.output_item.added", {
          ...at,
          item: { ...messageItem(open.id, "", false, "in_progress"), content: [] },
        }) +
          this.#frame("response.content_part.added", {
            ...at,
            item_id: open.id,
            content_index: 0,
            part: { type: "output_text", text: "", annotations: [] },
          });
      case "tool_use":
        return this.#frame("response.output_item.added", {
          ...at,
          item: functionCallItem(open.id, open.callId, open.name, "", "in_progress"),
        });
      default:
        return this.#frame("response.output_item.added", {
          ...at,
          item: { type: "reasoning", id: open.id, summary: [] },
        }) +
          (kind === "thinking"
            ? this.#frame("response.reasoning_summary_part.added", {
              ...at,
              item_id: open.id,
              summary_index: 0,
              part: { type: "summary_text", text: "" },
            })
            : "");
    }
  }

  #delta(index: number, delta: Data): string {
    const open = this.#open.get(index);
    if (!open || !delta) return "";
    const at = { item_id: open.id, output_index: open.outputIndex };
    switch (delta.type) {
      case "text_delta":
        if (!delta.text) return "";
        open.text += delta.text;
        return this.#frame("response.output_text.delta", { ...at, content_index: 0, delta: delta.text });
      case "thinking_delta":
        if (!delta.thinking) return "";
        open.text += delta.thinking;
        this.#thinkingChars += String(delta.thinking).length;
        return this.#frame("response.reasoning_summary_text.delta", {
          ...at,
          summary_index: 0,
          delta: delta.thinking,
        });
      case "signature_delta":
        open.signature += String(delta.signature ?? "");
        return "";
      case "input_json_delta":
        if (!delta.partial_json) return "";
        open.text += delta.partial_json;
        return this.#frame("response.function_call_arguments.delta", { ...at, delta: delta.partial_json });
      default:
        return "";
    }
  }

  #stopBlock(index: number): string {
    const open = this.#open.get(index);
    if (!open) return "";
    this.#open.delete(index);
    const at = { output_index: open.outputIndex };
    const ids = { item_id: open.id, ...at };
    let frames = "";
    let item: Data;
    switch (open.kind) {
      case "text":
        item = messageItem(open.id, open.text, false);
        frames += this.#frame("response.output_text.done", { ...ids, content_index: 0, text: open.text }) +
          this.#frame("response.content_part.done", {
            ...ids,
            content_index: 0,
            part: { type: "output_text", text: open.text, annotations: [] },
          });
        break;
      case "tool_use": {
        const args = open.text || "{}";
        item = functionCallItem(open.id, open.callId, open.name, args);
        frames += this.#frame("response.function_call_arguments.done", { ...ids, arguments: args });
        break;
      }
      default:
        item = reasoningItem(open.id, open.text, open.signature);
        if (open.kind === "thinking") {
          frames += this.#frame("response.reasoning_summary_text.done", {
            ...ids,
            summary_index: 0,
            text: open.text,
          }) +
            this.#frame("response.reasoning_summary_part.done", {
              ...ids,
              summary_index: 0,
              part: { type: "summary_text", text: open.text },
            });
        }
    }
    this.#output[open.outputIndex] = item;
    return frames + this.#frame("response.output_item.done", { ...at, item });
  }

  #finish(): string {
    this.#ended = true;
    let frames = "";
    for (const index of [...this.#open.keys()]) frames += this.#stopBlock(index);
    if (this.#stop === "refusal") this.#refused = true;
    const output = this.#refused
      ? this.#output.map((item) =>
        item.type === "message"
          ? messageItem(String(item.id), String((item.content as Data[])[0].text), true)
          : item
      )
      : this.#output;
    const status = statusOf(this.#stop);
    const response = {
      ...this.#shell,
      ...status,
      output,
      usage: responsesUsage(usageOf(this.#usage), this.#thinkingChars),
    };
    const event = status.status === "incomplete" ? "response.incomplete" : "response.completed";
    return frames + this.#frame(event, { response });
  }

  /** See {@link ClientStreamFormat.error}. */
  error(type: string, message: string): string {
    this.#ended = true;
    const error = openAiError(type as AnthropicErrorType, message);
    const response = {
      ...this.#shell,
      status: "failed",
      error: { code: error.code ?? error.type, message },
      output: this.#output.filter((item) => item.type !== undefined),
      usage: responsesUsage(usageOf(this.#usage), this.#thinkingChars),
    };
    return this.#frame("response.failed", { response });
  }
}
