/**
 * A local input-token estimate for providers without a token-counting API, and for the best-effort
 * `input_tokens` of `message_start` before the upstream reports exact usage. About four characters per
 * token for text and JSON, a flat cost per image and per message; never zero.
 */
import type { MessagesRequest } from "./types.ts";

const CHARS_PER_TOKEN = 4;
const TOKENS_PER_IMAGE = 1_200;
const TOKENS_PER_DOCUMENT = 1_500;
const TOKENS_PER_MESSAGE = 4;

function blockChars(block: Record<string, unknown>): { chars: number; tokens: number } {
  switch (block.type) {
    case "text":
      return { chars: (block.text as string).length, tokens: 0 };
    case "image":
      return { chars: 0, tokens: TOKENS_PER_IMAGE };
    case "document":
      return { chars: 0, tokens: TOKENS_PER_DOCUMENT };
    case "tool_use":
      return { chars: JSON.stringify(block.input ?? {}).length + String(block.name).length, tokens: 0 };
    case "tool_result":
      return contentChars(block.content);
    case "thinking":
      return { chars: String(block.thinking ?? "").length, tokens: 0 };
    default:
      return { chars: 0, tokens: 0 };
  }
}

function contentChars(content: unknown): { chars: number; tokens: number } {
  if (typeof content === "string") return { chars: content.length, tokens: 0 };
  let chars = 0;
  let tokens = 0;
  if (Array.isArray(content)) {
    for (const block of content) {
      const part = blockChars(block as Record<string, unknown>);
      chars += part.chars;
      tokens += part.tokens;
    }
  }
  return { chars, tokens };
}

/** Estimates the input tokens of a request (system, messages and tool definitions). */
export function estimateInputTokens(request: Pick<MessagesRequest, "messages" | "system" | "tools">): number {
  let chars = 0;
  let tokens = 0;
  if (request.system !== undefined) chars += contentChars(request.system).chars;
  for (const message of request.messages) {
    const part = contentChars(message.content);
    chars += part.chars;
    tokens += part.tokens + TOKENS_PER_MESSAGE;
  }
  if (request.tools?.length) chars += JSON.stringify(request.tools).length;
  return Math.max(1, tokens + Math.ceil(chars / CHARS_PER_TOKEN));
}

/** Estimates the tokens of generated text (used only when an upstream reports no usage). */
export function estimateTextTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
