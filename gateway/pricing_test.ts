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
