/**
 * `count_tokens` for OpenAI models with OpenAI's own tokenizer (`gpt-tokenizer`: `o200k_base` for the GPT-4o,
 * GPT-4.1, GPT-5 and o-series families, `cl100k_base` for GPT-4 and GPT-3.5), counted the way Chat
 * Completions bills a conversation: each message costs 3 tokens plus its role and content, the reply is
 * primed with 3 more; the system prompt is a message; a tool call counts its name and JSON arguments, a tool
 * result its content; tool definitions count their JSON (name, description, parameters) plus a per-function
 * overhead; an image counts OpenAI's high-detail cost of a 1024×1024 image (765), a document the local
 * estimate's flat cost. The encodings load on first use (a few MB), not at start-up.
 * Other models behind OpenAI-compatible hosts keep the local estimate (count_tokens.ts).
 */
import type { MessagesRequest } from "./types.ts";

/** Tokens a message costs beyond its content. */
const PER_MESSAGE = 3;
/** Tokens that prime the reply. */
const REPLY_PRIMING = 3;
/** Tokens of one tool definition beyond its JSON, and of the tool section itself. */
const PER_FUNCTION = 7;
const TOOLS_SECTION = 12;
/** OpenAI's cost of a 1024×1024 image at high detail (85 + 170 × 4 tiles). */
const PER_IMAGE = 765;
const PER_DOCUMENT = 1_500;

type Encoding = "o200k_base" | "cl100k_base";
type Counter = (text: string) => number;

/** The encoding of an OpenAI model name, or undefined when the model is not OpenAI's. */
export function encodingOf(model: string): Encoding | undefined {
  const name = model.toLowerCase();
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o\d|gpt-oss|codex)/.test(name)) return "o200k_base";
  if (/^(gpt-4|gpt-3\.5)/.test(name)) return "cl100k_base";
  return undefined;
}

const counters = new Map<Encoding, Promise<Counter>>();

/** The token counter of an encoding, loaded once. */
function counterOf(encoding: Encoding): Promise<Counter> {
  let counter = counters.get(encoding);
  if (!counter) {
    counter = encoding === "o200k_base"
      ? import("gpt-tokenizer/encoding/o200k_base").then((m) => (text: string) => m.countTokens(text))
      : import("gpt-tokenizer/encoding/cl100k_base").then((m) => (text: string) => m.countTokens(text));
    counters.set(encoding, counter);
  }
  return counter;
}

function contentTokens(content: unknown, count: Counter): number {
  if (typeof content === "string") return count(content);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const raw of content) {
    const block = raw as Record<string, unknown>;
    switch (block.type) {
      case "text":
        tokens += count(String(block.text));
        break;
      case "image":
        tokens += PER_IMAGE;
        break;
      case "document":
        tokens += PER_DOCUMENT;
        break;
      case "tool_use":
        tokens += count(String(block.name)) + count(JSON.stringify(block.input ?? {})) + PER_MESSAGE;
        break;
      case "tool_result":
        tokens += contentTokens(block.content, count) + PER_MESSAGE;
        break;
      case "thinking":
        break; // reasoning is not sent back to OpenAI models
    }
  }
  return tokens;
}

/**
 * Input tokens of `request` for the OpenAI model `model` with its tokenizer, or undefined when `model` is
 * not an OpenAI model.
 */
export async function countOpenAiTokens(
  model: string,
  request: Pick<MessagesRequest, "messages" | "system" | "tools">,
): Promise<number | undefined> {
  const encoding = encodingOf(model);
  if (!encoding) return undefined;
  const count = await counterOf(encoding);
  let tokens = REPLY_PRIMING;
  if (request.system !== undefined) {
    tokens += PER_MESSAGE + count("system") + contentTokens(request.system, count);
  }
  for (const message of request.messages) {
    tokens += PER_MESSAGE + count(message.role) + contentTokens(message.content, count);
  }
  if (request.tools?.length) {
    tokens += TOOLS_SECTION;
    for (const tool of request.tools) {
      const { name, description, input_schema } = tool as unknown as Record<string, unknown>;
      tokens += PER_FUNCTION + count(JSON.stringify({ name, description, parameters: input_schema }));
    }
  }
  return tokens;
}
