/**
 * The internal (Anthropic) answer → a Chat Completions `chat.completion` object. Text blocks join into
 * `content`, tool_use blocks become `tool_calls` (arguments as JSON text), thinking text travels as
 * `reasoning_content` (the field most OpenAI-compatible clients read), and a refusal fills `refusal`.
 */
import type { Message, StopReason, Usage } from "../messages/types.ts";
import { jsonStringEnd } from "../messages/json_scan.ts";
import { topLevelSpans } from "../providers/json_peek.ts";
import { randomHex128 } from "../request_context.ts";
import { chatUsage } from "./usage.ts";

/** Chat `finish_reason` of an Anthropic stop reason. */
export function finishReasonOf(reason: StopReason | null | undefined): string {
  switch (reason) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    default:
      return "stop";
  }
}

/** A `chatcmpl-…` id. */
export function newChatId(): string {
  return `chatcmpl-${randomHex128()}`;
}

/** Builds the `chat.completion` for `message`, echoing `model` (the name the client asked for). */
export function chatCompletionOf(message: Message, model: string): Record<string, unknown> {
  let text = "";
  let thinking = "";
  const toolCalls: Record<string, unknown>[] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "thinking") thinking += block.thinking;
    else if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const refused = message.stop_reason === "refusal";
  const reply: Record<string, unknown> = {
    role: "assistant",
    content: refused ? null : text || (toolCalls.length ? null : ""),
    refusal: refused ? text || "The model refused to answer this request." : null,
  };
  if (thinking) reply.reasoning_content = thinking;
  if (toolCalls.length) reply.tool_calls = toolCalls;
  return {
    id: newChatId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{
      index: 0,
      message: reply,
      logprobs: null,
      finish_reason: finishReasonOf(message.stop_reason),
    }],
    usage: chatUsage(message.usage, thinking.length),
  };
}

/** The fields of an Anthropic answer the text-only fast path reads. */
const ANSWER_FIELDS = ["content", "stop_reason", "usage"] as const;

/** The opening of a content array of one text block, as Anthropic writes it, up to the text's quote. */
const ONE_TEXT_BLOCK = '[{"type":"text","text":"';

/** A character JSON refuses unescaped in a string. */
// deno-lint-ignore no-control-regex -- the control characters are what it looks for
const CONTROL = /[\u0000-\u001f]/;
/** One escape's characters after its backslash. */
const ESCAPE = /^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/;

/** True when `literal` (a JSON string with its quotes, found by its closing quote) is a well-formed one. */
function wellFormedLiteral(literal: string): boolean {
  if (CONTROL.test(literal)) return false;
  for (let i = literal.indexOf("\\"); i >= 0; i = literal.indexOf("\\", i + 2)) {
    if (!ESCAPE.test(literal.slice(i + 1, i + 6))) return false;
  }
  return true;
}

/**
 * A top-level string-or-null value `text[start, end)` without escapes (every Anthropic `stop_reason`),
 * read without `JSON.parse`; undefined for anything else (the caller parses).
 */
function plainStringOrNull(text: string, start: number, end: number): string | null | undefined {
  if (end - start === 4 && text.startsWith("null", start)) return null;
  if (end - start < 2 || text.charCodeAt(start) !== 34 || text.charCodeAt(end - 1) !== 34) return undefined;
  for (let i = start + 1; i < end - 1; i++) if (text.charCodeAt(i) === 92) return undefined;
  return text.slice(start + 1, end - 1);
}

/**
 * The Chat `usage` JSON of an Anthropic usage whose four counts are numbers, written directly (the same
 * text as `JSON.stringify(chatUsage(usage, 0))`); undefined otherwise.
 */
function chatUsageText(usage: Usage): string | undefined {
  const { input_tokens: input, output_tokens: output } = usage;
  const read = usage.cache_read_input_tokens;
  const written = usage.cache_creation_input_tokens;
  if (
    typeof input !== "number" || typeof output !== "number" || typeof read !== "number" ||
    typeof written !== "number"
  ) return undefined;
  const prompt = input + read + written;
  if (!Number.isFinite(prompt + output)) return undefined;
  return `{"prompt_tokens":${prompt},"completion_tokens":${output},"total_tokens":${prompt + output},` +
    `"prompt_tokens_details":{"cached_tokens":${read}},"completion_tokens_details":{"reasoning_tokens":${
      Math.min(output, 0)
    }}}`;
}

/**
 * The `chat.completion` text of an Anthropic answer's JSON `text` whose content is one text block, without
 * parsing the answer: the text goes over as the JSON literal it already is (checked to be a well-formed
 * one), where parsing the answer and serializing the completion copied it twice. The same completion as
 * `JSON.stringify(chatCompletionOf(JSON.parse(text), model))` (the text's escapes as the upstream wrote
 * them). Undefined for anything else (other blocks, a refusal, an unexpected layout): then the caller
 * parses. One `JSON.parse` (of `usage`, which the caller keeps) per answer: the stop reason is read in
 * place and the usage written directly when they are as Anthropic sends them.
 */
export function chatCompletionTextOf(
  text: string,
  model: string,
): { text: string; usage: Usage } | undefined {
  const spans = topLevelSpans(text, ANSWER_FIELDS);
  const content = spans?.[0];
  const usageSpan = spans?.[2];
  if (!content || !usageSpan || !text.startsWith(ONE_TEXT_BLOCK, content[0])) return undefined;
  const open = content[0] + ONE_TEXT_BLOCK.length - 1;
  const close = jsonStringEnd(text, open);
  if (close + 3 !== content[1] || !text.startsWith('"}]', close)) return undefined;
  const literal = text.slice(open, close + 1);
  if (!wellFormedLiteral(literal)) return undefined;
  let stop: unknown = null;
  let usage: unknown;
  try {
    const stopSpan = spans[1];
    if (stopSpan) {
      stop = plainStringOrNull(text, stopSpan[0], stopSpan[1]) ??
        JSON.parse(text.slice(stopSpan[0], stopSpan[1]));
    }
    usage = JSON.parse(text.slice(usageSpan[0], usageSpan[1]));
  } catch {
    return undefined;
  }
  if ((stop !== null && typeof stop !== "string") || stop === "refusal") return undefined;
  if (!usage || typeof usage !== "object") return undefined;
  const usageText = chatUsageText(usage as Usage) ?? JSON.stringify(chatUsage(usage as Usage, 0));
  return {
    text: `{"id":"${newChatId()}","object":"chat.completion","created":${Math.floor(Date.now() / 1000)},` +
      `"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":` +
      `${literal},"refusal":null},"logprobs":null,"finish_reason":"${
        finishReasonOf(stop as StopReason)
      }"}],"usage":${usageText}}`,
    usage: usage as Usage,
  };
}
