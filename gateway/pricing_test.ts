import assert from "node:assert/strict";
import { BUILTIN_PRICES, PriceTable } from "./pricing.ts";
import { usageOf } from "./messages/types.ts";

Deno.test("prices match exact entries, dated variants by the longest name, and config overrides first", () => {
  const table = new PriceTable({
    "groq/llama-3.3-70b": { input: 0.59, output: 0.79 },
    "gpt-4o": { input: 1, output: 2 },
  });
  assert.equal(table.priceOf("anthropic/claude-sonnet-4-5-20250929"), BUILTIN_PRICES["claude-sonnet-4-5"]);
  assert.equal(table.priceOf("anthropic/claude-opus-4-1-20250805"), BUILTIN_PRICES["claude-opus-4-1"]);
  assert.equal(table.priceOf("openai/gpt-4o-mini-2024-07-18"), BUILTIN_PRICES["gpt-4o-mini"]);
  assert.deepEqual(table.priceOf("openai/gpt-4o"), { input: 1, output: 2 });
  assert.equal(table.priceOf("groq/llama-3.3-70b")?.input, 0.59);
  assert.equal(table.priceOf("openai/fx-unknown"), null);
  const cost = table.cost(
    "anthropic/claude-sonnet-4-5",
    usageOf({ input_tokens: 1_000_000, output_tokens: 100_000, cache_read_input_tokens: 1_000_000 }),
  );
  assert.ok(Math.abs(cost.usd - (3 + 1.5 + 0.3)) < 1e-9);
  assert.deepEqual(table.cost("x/unknown", usageOf({ input_tokens: 10 })), { usd: 0, priced: false });
  for (const [name, price] of Object.entries(BUILTIN_PRICES)) {
    assert.ok(price.source?.startsWith("https://") && /^\d{4}-\d{2}-\d{2}$/.test(price.as_of ?? ""), name);
  }
});

Deno.test("1-hour cache writes are priced at their own rate, the rest of the writes at the 5-minute rate", () => {
  const table = new PriceTable({
    "x/claude": { input: 3, output: 15, cache_write: 3.75, cache_write_1h: 6 },
  });
  // Anthropic's usage object as it arrives: 1M written, 400k of them with the 1-hour TTL.
  const usage = usageOf({
    cache_creation_input_tokens: 1_000_000,
    cache_creation: { ephemeral_5m_input_tokens: 600_000, ephemeral_1h_input_tokens: 400_000 },
  } as never);
  assert.equal(usage.cache_creation_1h_input_tokens, 400_000);
  assert.ok(Math.abs(table.cost("x/claude", usage).usd - (0.6 * 3.75 + 0.4 * 6)) < 1e-9);
  // Without a 1-hour price the 5-minute one applies; without the breakdown every write is a 5-minute one.
  const plain = new PriceTable({ "x/other": { input: 3, output: 15, cache_write: 3.75 } });
  assert.ok(Math.abs(plain.cost("x/other", usage).usd - 3.75) < 1e-9);
  const noBreakdown = usageOf({ cache_creation_input_tokens: 1_000_000 });
  assert.equal(noBreakdown.cache_creation_1h_input_tokens, undefined);
  assert.ok(Math.abs(table.cost("x/claude", noBreakdown).usd - 3.75) < 1e-9);
  assert.equal(
    BUILTIN_PRICES["claude-sonnet-4-5"].cache_write_1h,
    2 * BUILTIN_PRICES["claude-sonnet-4-5"].input,
  );
});
