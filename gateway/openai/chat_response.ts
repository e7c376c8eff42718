/**
 * The internal (Anthropic) answer → a Chat Completions `chat.completion` object. Text blocks join into
 * `content`, tool_use blocks become `tool_calls` (arguments as JSON text), thinking text travels as
 * `reasoning_content` (the field most OpenAI-compatible clients read), and a refusal fills `refusal`.
 */
import type { Message, StopReason, Usage } from "../messages/types.ts";
import { randomHex128 } from "../request_context.ts";
import { countsOf, oneTextAnswer } from "./answer_text.ts";
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

/**
 * The Chat `usage` JSON of an Anthropic usage, written directly (the same text as
 * `JSON.stringify(chatUsage(usage, 0))`).
 */
function chatUsageText(usage: Usage): string {
  const counts = countsOf(usage);
  if (!counts) return JSON.stringify(chatUsage(usage, 0));
  const { output, read } = counts;
  const prompt = counts.input + read + counts.written;
  return `{"prompt_tokens":${prompt},"completion_tokens":${output},"total_tokens":${prompt + output},` +
    `"prompt_tokens_details":{"cached_tokens":${read}},"completion_tokens_details":{"reasoning_tokens":${
      Math.min(output, 0)
    }}}`;
}

/**
 * The `chat.completion` text of an Anthropic answer's JSON `text` whose content is one text block, without
 * parsing the answer (answer_text.ts): the same completion as
 * `JSON.stringify(chatCompletionOf(JSON.parse(text), model))` (the text's escapes as the upstream wrote
 * them). Undefined for anything else (other blocks, a refusal, an unexpected layout): then the caller
 * parses.
 */
export function chatCompletionTextOf(
  text: string,
  model: string,
): { text: string; usage: Usage } | undefined {
  const answer = oneTextAnswer(text);
  if (!answer) return undefined;
  return {
    text: `{"id":"${newChatId()}","object":"chat.completion","created":${Math.floor(Date.now() / 1000)},` +
      `"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":` +
      `${answer.literal},"refusal":null},"logprobs":null,"finish_reason":"${
        finishReasonOf(answer.stop)
      }"}],` +
      `"usage":${chatUsageText(answer.usage)}}`,
    usage: answer.usage,
  };
}
