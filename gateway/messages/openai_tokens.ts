/**
 * `count_tokens` for OpenAI models with OpenAI's own tokenizer (`gpt-tokenizer`: `o200k_base` for the GPT-4o,
 * GPT-4.1, GPT-5 and o-series families, `cl100k_base` for GPT-4 and GPT-3.5), counting the Chat Completions
 * body the gateway would send (the same translation, so joined system blocks and tool messages count as
 * sent) by the rules of OpenAI's cookbook ("How to count tokens with tiktoken", §6 and §7):
 * - each message costs 3 tokens plus its role and content; the reply is primed with 3 more (2 on the o-series:
 *   prompt_tokens measured on o3 and o4-mini are one below the rule, community.openai.com/t/1262691);
 * - tools: per function 7 (`cl100k`: 10) plus `name:description`, 3 for its properties, per property 3 plus
 *   `key:type:description` (a trailing period dropped), an enum −3 plus 3 and its text per value; 12 once;
 * - an assistant's tool call counts its name and JSON arguments plus 3; a tool message counts as a message;
 * - images by OpenAI's image rules from the base64 header's size (openai_image_tokens.ts); a PDF the local
 *   estimate's flat cost.
 * Special-token text (`<|endoftext|>`) in content counts as ordinary text, as the API treats it.
 *
 * Counting is the cost. Text is counted piece by piece (tokens/piece_counter.ts: a char-code pre-tokenizer
 * that reproduces the encoding's split regex, a table of each piece's token count, a byte-pair merge over
 * gpt-tokenizer's vocabulary only for pieces never seen): tiktoken's count at a fraction of gpt-tokenizer's
 * cost (and exact where gpt-tokenizer is not: U+FEFF, U+0085). Claude Code sends the same system prompt,
 * tools and history on every call, so counts of strings of 64 characters or more are also kept in an LRU
 * (tokens/count_cache.ts: found by a sampled fingerprint, confirmed by comparing the whole string), up to 8 M
 * characters per encoding; a repeated 20k-token request then costs the lookups only. The encodings load on first use (a few MB).
 * Other models behind OpenAI-compatible hosts keep the local estimate (count_tokens.ts).
 */
import { type ChatMessage, toChatMessages } from "../providers/openai_request.ts";
import { imageSizeOf } from "./image_size.ts";
import { openAiImageTokens } from "./openai_image_tokens.ts";
import {
  createPieceCounter,
  type EncodingApi,
  MergeBudgetExceeded,
  type PieceCounter,
} from "./tokens/piece_counter.ts";
import type { MessagesRequest, ToolParam } from "./types.ts";
import { CountCache } from "./tokens/count_cache.ts";

export { CountCache };

/** Tokens a message costs beyond its content, and that prime the reply (o-series reasoning models: 2). */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;
const REASONING_REPLY_PRIMING = 2;
/** The cookbook's tool constants (§7). */
const PROP_INIT = 3;
const PROP_KEY = 3;
const ENUM_INIT = -3;
const ENUM_ITEM = 3;
const FUNC_END = 12;
const PER_DOCUMENT = 1_500;

/** The two encodings counted locally. */
export type Encoding = "o200k_base" | "cl100k_base";
type Counter = (text: string) => number;

/** The encoding of an OpenAI model name, or undefined when the model is not OpenAI's. */
export function encodingOf(model: string): Encoding | undefined {
  const name = model.toLowerCase();
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o\d|gpt-oss|codex)/.test(name)) return "o200k_base";
  if (/^(gpt-4|gpt-3\.5)/.test(name)) return "cl100k_base";
  return undefined;
}

/**
 * Characters of never-seen pieces one request may have merged (≈ 0.1–0.3 s of merging at worst, a run of
 * one non-ASCII character or spaceless text; a Claude Code turn merges a few thousand): past it the request's
 * count is the estimate (`gw-token-count: estimate`), and nothing estimated is kept as a count.
 */
export const MERGE_BUDGET_CHARS = 262_144;

/** Strings shorter than this are counted each time (cheaper than keeping them). */
const CACHE_MIN_CHARS = 64;
interface Tokenizer {
  count: Counter;
  cache: CountCache;
  pieces: PieceCounter;
}

const tokenizers = new Map<Encoding, Promise<Tokenizer>>();

type EncodingModule = typeof import("gpt-tokenizer/encoding/o200k_base");

function tokenizerOf(encoding: Encoding, module: EncodingModule, splitRegex: RegExp): Tokenizer {
  // No special tokens: text that spells one (`<|endoftext|>`) is ordinary text, as the API counts it.
  const pieces = createPieceCounter(encoding, module.default as unknown as EncodingApi, splitRegex);
  const raw = pieces.count;
  const cache = new CountCache();
  return {
    cache,
    pieces,
    count: (text) => text.length < CACHE_MIN_CHARS ? raw(text) : cache.get(text, raw),
  };
}

/** The tokenizer of an encoding, loaded once. */
function load(encoding: Encoding): Promise<Tokenizer> {
  let tokenizer = tokenizers.get(encoding);
  if (!tokenizer) {
    const constants = import("gpt-tokenizer/encodingParams/constants");
    tokenizer = encoding === "o200k_base"
      ? Promise.all([import("gpt-tokenizer/encoding/o200k_base"), constants])
        .then(([module, { O200K_TOKEN_SPLIT_REGEX }]) =>
          tokenizerOf(encoding, module, O200K_TOKEN_SPLIT_REGEX)
        )
      : Promise.all([import("gpt-tokenizer/encoding/cl100k_base"), constants])
        .then(([module, { CL100K_TOKEN_SPLIT_REGEX }]) =>
          tokenizerOf(encoding, module, CL100K_TOKEN_SPLIT_REGEX)
        );
    tokenizers.set(encoding, tokenizer);
  }
  return tokenizer;
}

/** The count cache of an encoding (for tests and the bench), once it is loaded. */
export async function countCacheOf(encoding: Encoding): Promise<CountCache> {
  return (await load(encoding)).cache;
}

/** The piece counter of an encoding (for tests and the bench), once it is loaded. */
export async function pieceCounterOf(encoding: Encoding): Promise<PieceCounter> {
  return (await load(encoding)).pieces;
}

function imageTokens(model: string, url: string): number {
  const comma = url.startsWith("data:") ? url.indexOf(",") : -1;
  return openAiImageTokens(model, comma > 0 ? imageSizeOf(url.slice(comma + 1)) : undefined);
}

function messageTokens(model: string, message: ChatMessage, count: Counter): number {
  let tokens = PER_MESSAGE + count(message.role);
  const content = message.content;
  if (typeof content === "string") tokens += count(content);
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === "text") tokens += count(part.text);
      else if (part.type === "image_url") tokens += imageTokens(model, part.image_url.url);
      else tokens += PER_DOCUMENT;
    }
  }
  if (message.role === "assistant" && message.tool_calls) {
    for (const call of message.tool_calls) {
      tokens += PER_MESSAGE + count(call.function.name) + count(call.function.arguments);
    }
  }
  return tokens;
}

function withoutPeriod(text: unknown): string {
  const s = typeof text === "string" ? text : "";
  return s.endsWith(".") ? s.slice(0, -1) : s;
}

function propertiesTokens(schema: Record<string, unknown> | undefined, count: Counter): number {
  const properties = schema?.properties;
  if (!properties || typeof properties !== "object") return 0;
  const entries = Object.entries(properties as Record<string, Record<string, unknown>>);
  if (!entries.length) return 0;
  let tokens = PROP_INIT;
  for (const [key, raw] of entries) {
    const property = raw && typeof raw === "object" ? raw : {};
    tokens += PROP_KEY;
    if (Array.isArray(property.enum)) {
      tokens += ENUM_INIT;
      for (const item of property.enum) tokens += ENUM_ITEM + count(String(item));
    }
    const type = Array.isArray(property.type) ? property.type.join("|") : String(property.type ?? "");
    tokens += count(`${key}:${type}:${withoutPeriod(property.description)}`);
    // Nested shapes (the cookbook's rule stops at the top level) count by the same rule.
    tokens += propertiesTokens(property, count);
    const items = property.items as Record<string, unknown> | undefined;
    if (items && typeof items === "object") tokens += propertiesTokens(items, count);
  }
  return tokens;
}

function toolTokens(tool: ToolParam, funcInit: number, count: Counter): number {
  return funcInit + count(`${tool.name}:${withoutPeriod(tool.description)}`) +
    propertiesTokens(tool.input_schema as Record<string, unknown> | undefined, count);
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
  const { count, pieces } = await load(encoding);
  pieces.setMergeBudget(MERGE_BUDGET_CHARS);
  try {
    return countRequestTokens(model, encoding, request, count);
  } catch (error) {
    // Pathological text (see MERGE_BUDGET_CHARS), or a letter run so long that the split regex overflows the
    // stack (millions of characters): the caller answers with the estimate, saying so in its header.
    if (error instanceof MergeBudgetExceeded || error instanceof RangeError) return undefined;
    throw error;
  } finally {
    pieces.setMergeBudget(Infinity);
  }
}

/**
 * Input tokens of `request` for `model` (of `encoding`) with `count` counting each text: the rules above
 * around any counter (the bench passes gpt-tokenizer's own `encode` as the reference).
 */
export function countRequestTokens(
  model: string,
  encoding: Encoding,
  request: Pick<MessagesRequest, "messages" | "system" | "tools">,
  count: (text: string) => number,
): number {
  let tokens = /^o\d/.test(model.toLowerCase()) ? REASONING_REPLY_PRIMING : REPLY_PRIMING;
  for (const message of toChatMessages(request as MessagesRequest, (id) => id)) {
    tokens += messageTokens(model, message, count);
  }
  const tools = request.tools ?? [];
  const funcInit = encoding === "o200k_base" ? 7 : 10;
  let functions = 0;
  for (const tool of tools) {
    // Server tools (web_search, …) are not functions: they are translated or refused elsewhere.
    const type = (tool as { type?: unknown }).type;
    if (type && type !== "custom") continue;
    tokens += toolTokens(tool, funcInit, count);
    functions++;
  }
  if (functions) tokens += FUNC_END;
  return tokens;
}
