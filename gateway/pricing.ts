/**
 * Prices per model in USD per million tokens (input, output, cache reads, cache writes), built in for the
 * current Anthropic, OpenAI and Gemini models, each entry with its source and the date it reflects, and
 * overridable per model in GATEWAY_CONFIG (`pricing:`). A model matches an entry by `provider/model`, then
 * by the bare model name, exactly or as a dated variant (`claude-sonnet-4-5-20250929` matches
 * `claude-sonnet-4-5`; the longest matching entry wins). An unknown model costs 0 and is flagged.
 */
import type { Usage } from "./messages/types.ts";
import { parseTarget } from "./target.ts";

/** One model's prices, USD per million tokens. */
export interface ModelPrice {
  /** Uncached input tokens. */
  input: number;
  /** Output tokens (reasoning included). */
  output: number;
  /** Cache reads (defaults to `input`). */
  cache_read?: number;
  /** Cache writes (5-minute TTL; defaults to `input`). */
  cache_write?: number;
  /** Cache writes with the 1-hour TTL (Anthropic: twice `input`; defaults to `cache_write`). */
  cache_write_1h?: number;
  /** Where the price comes from. */
  source?: string;
  /** The date (YYYY-MM-DD) of the price list it reflects. */
  as_of?: string;
}

const ANTHROPIC = "https://www.anthropic.com/pricing#api";
const OPENAI = "https://platform.openai.com/docs/pricing";
const GEMINI = "https://ai.google.dev/gemini-api/docs/pricing";

/**
 * Built-in prices (standard tier; Gemini Pro at its ≤200k-token prompt rate).
 *
 * Checked on 2026-11-25 (no direct access to the vendors' pages from the build machine; a search over
 * stored copies of public pages):
 * - against Anthropic's own pricing page (docs.anthropic.com/en/docs/about-claude/pricing):
 *   claude-opus-4-1, claude-opus-4, claude-sonnet-4, claude-3-5-haiku (input, output, 5-minute cache
 *   write, cache read: all equal);
 * - against third-party summaries that cite the vendors' pages (deploybase.ai, benchlm.ai, dated
 *   2026-01 to 2026-04): claude-opus-4-5, claude-sonnet-4-5, claude-haiku-4-5, gpt-5, gpt-5-mini,
 *   gpt-5-nano, gpt-4.1, gpt-4.1-mini, gpt-4.1-nano, gpt-4o, gpt-4o-mini, o3, o4-mini, gemini-2.5-pro,
 *   gemini-2.5-flash, gemini-2.5-flash-lite (input and output equal; cache rates not all shown there);
 * - from memory, not confirmed by this check: the cache-read rates of the OpenAI and Gemini entries, the
 *   cache-write rates of claude-opus-4-5, claude-sonnet-4-5 and claude-haiku-4-5, and gemini-2.0-flash;
 * - the 1-hour cache-write rates (`cache_write_1h`) of the Claude entries are Anthropic's stated multiplier,
 *   twice the input price (5-minute writes: 1.25 times), applied to each entry's input price.
 * Newer models (Claude Opus/Sonnet 4.6, GPT-5.1–5.5, Gemini 3) are not built in: price them in
 * GATEWAY_CONFIG `pricing:` from the vendor's page until they are added here.
 */
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  "claude-opus-4-5": {
    input: 5,
    output: 25,
    cache_read: 0.5,
    cache_write: 6.25,
    cache_write_1h: 10,
    source: ANTHROPIC,
    as_of: "2025-11-24",
  },
  "claude-opus-4-1": {
    input: 15,
    output: 75,
    cache_read: 1.5,
    cache_write: 18.75,
    cache_write_1h: 30,
    source: ANTHROPIC,
    as_of: "2025-11-24",
  },
  "claude-opus-4": {
    input: 15,
    output: 75,
    cache_read: 1.5,
    cache_write: 18.75,
    cache_write_1h: 30,
    source: ANTHROPIC,
    as_of: "2025-11-24",
  },
  "claude-sonnet-4-5": {
    input: 3,
    output: 15,
    cache_read: 0.3,
    cache_write: 3.75,
    cache_write_1h: 6,
    source: ANTHROPIC,
    as_of: "2025-11-24",
  },
  "claude-sonnet-4": {
    input: 3,
    output: 15,
    cache_read: 0.3,
    cache_write: 3.75,
    cache_write_1h: 6,
    source: ANTHROPIC,
    as_of: "2025-11-24",
  },
  "claude-haiku-4-5": {
    input: 1,
    output: 5,
    cache_read: 0.1,
    cache_write: 1.25,
    cache_write_1h: 2,
    source: ANTHROPIC,
    as_of: "2025-11-24",
  },
  "claude-3-5-haiku": {
    input: 0.8,
    output: 4,
    cache_read: 0.08,
    cache_write: 1,
    cache_write_1h: 1.6,
    source: ANTHROPIC,
    as_of: "2025-11-24",
  },
  "gpt-5": { input: 1.25, output: 10, cache_read: 0.125, source: OPENAI, as_of: "2025-11-24" },
  "gpt-5-mini": { input: 0.25, output: 2, cache_read: 0.025, source: OPENAI, as_of: "2025-11-24" },
  "gpt-5-nano": { input: 0.05, output: 0.4, cache_read: 0.005, source: OPENAI, as_of: "2025-11-24" },
  "gpt-4.1": { input: 2, output: 8, cache_read: 0.5, source: OPENAI, as_of: "2025-11-24" },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cache_read: 0.1, source: OPENAI, as_of: "2025-11-24" },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cache_read: 0.025, source: OPENAI, as_of: "2025-11-24" },
  "gpt-4o": { input: 2.5, output: 10, cache_read: 1.25, source: OPENAI, as_of: "2025-11-24" },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cache_read: 0.075, source: OPENAI, as_of: "2025-11-24" },
  "o3": { input: 2, output: 8, cache_read: 0.5, source: OPENAI, as_of: "2025-11-24" },
  "o4-mini": { input: 1.1, output: 4.4, cache_read: 0.275, source: OPENAI, as_of: "2025-11-24" },
  "gemini-2.5-pro": { input: 1.25, output: 10, cache_read: 0.125, source: GEMINI, as_of: "2025-11-24" },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cache_read: 0.03, source: GEMINI, as_of: "2025-11-24" },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cache_read: 0.01, source: GEMINI, as_of: "2025-11-24" },
  "gemini-2.0-flash": { input: 0.1, output: 0.4, cache_read: 0.025, source: GEMINI, as_of: "2025-11-24" },
});

/** The cost of one request, and whether its model had a price. */
export interface Cost {
  /** USD. */
  usd: number;
  /** False when no price was found (the cost is then 0). */
  priced: boolean;
}

/** Looks prices up; `overrides` (GATEWAY_CONFIG `pricing`) take precedence over the built-in table. */
export class PriceTable {
  #entries: Map<string, ModelPrice>;
  #cache = new Map<string, ModelPrice | null>();

  /** A table of the built-in prices with `overrides` on top. */
  constructor(overrides: Readonly<Record<string, ModelPrice>> = {}) {
    this.#entries = new Map(Object.entries({ ...BUILTIN_PRICES, ...overrides }));
  }

  /** The price of `target` (`provider/model`), or null when unknown. */
  priceOf(target: string): ModelPrice | null {
    let price = this.#cache.get(target);
    if (price !== undefined) return price;
    price = this.#entries.get(target) ?? this.#byPrefix(parseTarget(target)?.model ?? target);
    this.#cache.set(target, price);
    return price;
  }

  #byPrefix(model: string): ModelPrice | null {
    let best: string | undefined;
    for (const name of this.#entries.keys()) {
      if (name.includes("/")) continue;
      const matches = model === name || (model.startsWith(name) && /^[-@]\d/.test(model.slice(name.length)));
      if (matches && (!best || name.length > best.length)) best = name;
    }
    return best ? this.#entries.get(best)! : null;
  }

  /** The cost of `usage` on `target`. */
  cost(target: string, usage: Usage): Cost {
    const price = this.priceOf(target);
    if (!price) return { usd: 0, priced: false };
    const write = price.cache_write ?? price.input;
    // 1-hour writes are part of the cache writes, priced at their own rate.
    const oneHour = Math.min(usage.cache_creation_1h_input_tokens ?? 0, usage.cache_creation_input_tokens);
    const micro = usage.input_tokens * price.input + usage.output_tokens * price.output +
      usage.cache_read_input_tokens * (price.cache_read ?? price.input) +
      (usage.cache_creation_input_tokens - oneHour) * write + oneHour * (price.cache_write_1h ?? write);
    return { usd: micro / 1e6, priced: true };
  }
}
