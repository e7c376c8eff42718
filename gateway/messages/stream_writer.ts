/**
 * Writes a translated response as Anthropic SSE events, enforcing the grammar the official SDK relies on:
 * one `message_start`; blocks opened, filled and closed one at a time with contiguous indices; exactly one
 * final `message_delta` (non-null `stop_reason`, `usage.output_tokens`) then `message_stop`; or a single
 * `event: error`. Providers call the semantic methods (`text`, `toolStart`, ...) and never frame SSE.
 */
import type { AnthropicErrorType } from "../errors.ts";
import { oneHourWritesOf, type StopReason, type Usage, usageOf } from "./types.ts";
import { estimateTextTokens } from "./count_tokens.ts";

type OpenBlock = "text" | "thinking" | "tool_use" | "server" | null;

const PING = 'event: ping\ndata: {"type":"ping"}\n\n';

/** Builds the SSE text of one translated message; output goes to `emit` as ready frames. */
export class AnthropicEventWriter {
  #emit: (frames: string) => void;
  #index = -1;
  #open: OpenBlock = null;
  #started = false;
  #ended = false;
  #toolArgsSeen = false;
  #toolArgs = "";
  #redact: (text: string) => string;
  #errorType: AnthropicErrorType | undefined;
  #usage: Partial<Usage> | undefined;
  #finalUsage = false;
  /** Characters of generated text/arguments, for a usage estimate when the upstream reports none. */
  outputChars = 0;

  /** `emit` receives complete SSE frames; `redact` cleans error messages (they may quote upstream text). */
  constructor(emit: (frames: string) => void, redact: (text: string) => string = (text) => text) {
    this.#emit = emit;
    this.#redact = redact;
  }

  /** The type of the `event: error` written, if the stream ended in one. */
  get errorType(): AnthropicErrorType | undefined {
    return this.#errorType;
  }

  /**
   * The usage known so far: the final one once the stream finished; before that what `message_start`
   * announced, with output estimated from the text written (a client that left still used those tokens).
   */
  get usage(): Usage | undefined {
    if (!this.#usage) return undefined;
    const usage = usageOf(this.#usage);
    if (!this.#finalUsage) {
      usage.output_tokens = Math.max(usage.output_tokens, estimateTextTokens(this.outputChars));
    }
    return usage;
  }

  /** Merges usage reported by a relayed event (`message_start`'s, then `message_delta`'s cumulative one). */
  noteUsage(usage: unknown, final = false): void {
    if (!usage || typeof usage !== "object") return;
    this.#usage ??= {};
    for (
      const field of [
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
      ] as const
    ) {
      const value = (usage as Record<string, unknown>)[field];
      if (typeof value === "number" && Number.isFinite(value) && value >= 0) this.#usage[field] = value;
    }
    const oneHour = oneHourWritesOf(usage);
    if (oneHour) this.#usage.cache_creation_1h_input_tokens = oneHour;
    if (final) this.#finalUsage = true;
  }

  /** True once `finish` or `error` was written. */
  get ended(): boolean {
    return this.#ended;
  }

  /** True once `message_start` was written. */
  get started(): boolean {
    return this.#started;
  }

  /** Writes `message_start` with a full usage object carrying the best-effort input estimate. */
  start(id: string, model: string, inputTokensEstimate: number): void {
    if (this.#started) return;
    this.#started = true;
    this.#usage = { input_tokens: inputTokensEstimate };
    const message = {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      usage: {
        input_tokens: inputTokensEstimate,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    };
    this.#emit(`event: message_start\ndata: ${JSON.stringify({ type: "message_start", message })}\n\n`);
  }

  /** Writes a keep-alive ping. */
  ping(): void {
    if (!this.#ended) this.#emit(PING);
  }

  /** Closes the open block; null when the open tool call's arguments are not one valid JSON value. */
  #close(): string | null {
    if (this.#open === null) return "";
    let frames = "";
    if (this.#open === "tool_use") {
      if (!this.#toolArgsSeen) {
        // A call without argument fragments has input {}; say so explicitly so the SDK's input is exact.
        frames += this.#delta({ type: "input_json_delta", partial_json: "{}" });
      } else if (!isJsonObject(this.#toolArgs)) {
        // The SDK would silently partial-parse truncated JSON and drop keys: fail loudly instead.
        return null;
      }
    }
    this.#open = null;
    return frames +
      `event: content_block_stop\ndata: {"type":"content_block_stop","index":${this.#index}}\n\n`;
  }

  #openBlock(kind: Exclude<OpenBlock, null>, block: unknown): string | null {
    const frames = this.#close();
    if (frames === null) return this.#invalidArgs();
    this.#index++;
    this.#open = kind;
    this.#toolArgsSeen = false;
    this.#toolArgs = "";
    return frames +
      `event: content_block_start\ndata: ${
        JSON.stringify({ type: "content_block_start", index: this.#index, content_block: block })
      }\n\n`;
  }

  #invalidArgs(): null {
    this.error("api_error", "the upstream model produced tool arguments that are not a valid JSON object");
    return null;
  }

  #delta(delta: unknown): string {
    return `event: content_block_delta\ndata: ${
      JSON.stringify({ type: "content_block_delta", index: this.#index, delta })
    }\n\n`;
  }

  /** Appends text, opening a text block if another kind (or none) is open. */
  text(text: string): void {
    if (text === "" || this.#ended) return;
    this.outputChars += text.length;
    const head = this.#open === "text" ? "" : this.#openBlock("text", { type: "text", text: "" });
    if (head === null) return;
    this.#emit(head + this.#delta({ type: "text_delta", text }));
  }

  /** Appends reasoning text, opening a thinking block if needed. */
  thinking(thinking: string): void {
    if (thinking === "" || this.#ended) return;
    this.outputChars += thinking.length;
    const head = this.#open === "thinking"
      ? ""
      : this.#openBlock("thinking", { type: "thinking", thinking: "", signature: "" });
    if (head === null) return;
    this.#emit(head + this.#delta({ type: "thinking_delta", thinking }));
  }

  /** Sets the signature of the open thinking block (opening an empty one if none is open). */
  signature(signature: string): void {
    if (this.#ended) return;
    const head = this.#open === "thinking"
      ? ""
      : this.#openBlock("thinking", { type: "thinking", thinking: "", signature: "" });
    if (head === null) return;
    this.#emit(head + this.#delta({ type: "signature_delta", signature }));
  }

  /**
   * Closes the open block, if any, so the next output starts a block of its own (two reasoning items in a
   * row are two thinking blocks, each with its own signature).
   */
  endBlock(): void {
    if (this.#ended || this.#open === null) return;
    const frames = this.#close();
    if (frames === null) return void this.#invalidArgs();
    this.#emit(frames);
  }

  /** Opens a tool_use block (closing whatever was open). */
  toolStart(id: string, name: string): void {
    if (this.#ended) return;
    const frames = this.#openBlock("tool_use", { type: "tool_use", id, name, input: {} });
    if (frames !== null) this.#emit(frames);
  }

  /** Appends a fragment of the open tool call's JSON arguments, verbatim. */
  toolArgs(fragment: string): void {
    if (fragment === "" || this.#ended || this.#open !== "tool_use") return;
    this.#toolArgsSeen = true;
    this.#toolArgs += fragment;
    this.outputChars += fragment.length;
    this.#emit(this.#delta({ type: "input_json_delta", partial_json: fragment }));
  }

  /**
   * Writes a whole `server_tool_use` block (a search the upstream ran): opened with `input: {}`, its input
   * as one `input_json_delta`, closed — as Anthropic streams it.
   */
  serverToolUse(id: string, name: string, input: Record<string, unknown>): void {
    if (this.#ended) return;
    const head = this.#openBlock("server", { type: "server_tool_use", id, name, input: {} });
    if (head === null) return;
    this.#emit(head + this.#delta({ type: "input_json_delta", partial_json: JSON.stringify(input) }));
    this.endBlock();
  }

  /** Writes a whole `web_search_tool_result` block (its content arrives in the block's start). */
  webSearchResult(toolUseId: string, content: unknown[]): void {
    if (this.#ended) return;
    const head = this.#openBlock("server", {
      type: "web_search_tool_result",
      tool_use_id: toolUseId,
      content,
    });
    if (head === null) return;
    this.#emit(head);
    this.endBlock();
  }

  /** Adds a citation to the open text block (`citations_delta`); none open: nothing to cite. */
  citation(citation: unknown): void {
    if (this.#ended || this.#open !== "text") return;
    this.#emit(this.#delta({ type: "citations_delta", citation }));
  }

  /** Closes the open block, then writes the final `message_delta` and `message_stop`. */
  finish(stopReason: StopReason, usage: Usage, stopSequence: string | null = null): void {
    if (this.#ended) return;
    const closing = this.#close();
    if (closing === null) return void this.#invalidArgs();
    this.#ended = true;
    this.noteUsage(usage, true);
    const delta = { stop_reason: stopReason, stop_sequence: stopSequence, stop_details: null };
    this.#emit(
      closing +
        `event: message_delta\ndata: ${JSON.stringify({ type: "message_delta", delta, usage })}\n\n` +
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  }

  /** Relays one native Anthropic event verbatim (pass-through lane); `terminal` marks the end. */
  relay(event: string, data: string, terminal = false): void {
    if (this.#ended) return;
    if (event === "message_start") this.#started = true;
    if (terminal) this.#ended = true;
    this.#emit(`event: ${event}\ndata: ${data}\n\n`);
  }

  /** Ends the stream with an `event: error` (no fake stop reason). */
  error(type: AnthropicErrorType, message: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#errorType = type;
    const error = { type, message: this.#redact(message) };
    this.#emit(`event: error\ndata: ${JSON.stringify({ type: "error", error })}\n\n`);
  }
}

/** True when `text` parses as a JSON object (tool inputs are always objects). */
export function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
