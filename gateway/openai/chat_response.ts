/**
 * The internal (Anthropic) answer → a Chat Completions `chat.completion` object. Text blocks join into
 * `content`, tool_use blocks become `tool_calls` (arguments as JSON text), thinking text travels as
 * `reasoning_content` (the field most OpenAI-compatible clients read), and a refusal fills `refusal`.
 */
import type { Message, StopReason } from "../messages/types.ts";
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
