import assert from "node:assert/strict";
import type { Provider } from "./providers/contract.ts";
import { ModelRouter } from "./routing.ts";
import { GatewayError } from "./errors.ts";

const fake = (name: string) => ({ name }) as unknown as Provider;
const router = new ModelRouter(
  new Map([["openai", fake("openai")], ["gemini", fake("gemini")], ["openrouter", fake("openrouter")]]),
  { fast: "openrouter/meta/llama-3" },
);

Deno.test("provider/model, aliases and families route to the right provider and upstream name", () => {
  assert.deepEqual(
    [router.resolve("openai/gpt-4.1"), router.resolve("gpt-4.1"), router.resolve("o4-mini")].map((r) => [
      r.provider.name,
      r.upstreamModel,
    ]),
    [["openai", "gpt-4.1"], ["openai", "gpt-4.1"], ["openai", "o4-mini"]],
  );
  const alias = router.resolve("fast");
  assert.equal(alias.provider.name, "openrouter");
  assert.equal(alias.upstreamModel, "meta/llama-3");
  assert.equal(router.resolve("gemini-2.5-pro").provider.name, "gemini");
});

Deno.test("a family whose provider is not configured is a not_found_error naming the provider", () => {
  assert.throws(
    () => router.resolve("claude-sonnet-4-5"),
    (e) => e instanceof GatewayError && e.type === "not_found_error" && /anthropic/.test(e.message),
  );
  assert.throws(() => router.resolve("llama-3"), (e) => e instanceof GatewayError && e.status === 404);
});

Deno.test("glob aliases: exact > provider/model > longest literal prefix > most literals > order written", () => {
  const providers = new Map(
    ["openai", "gemini", "anthropic", "cheap", "fast"].map((name) => [name, fake(name)] as const),
  );
  const globs = new ModelRouter(providers, {
    "claude-haiku-4-5-20251001": "openai/exact-haiku",
    "claude-*": "anthropic/*",
    "claude-haiku-4-5-*": "fast/haiku-dated",
    "claude-*-opus-*": "cheap/opus-like",
    "claude-*opus*": "gemini/opus-any",
    "*-mini": "openai/gpt-4.1-mini",
  });
  const where = (name: string) => {
    const r = globs.resolve(name);
    return `${r.provider.name}/${r.upstreamModel}`;
  };
  assert.equal(where("claude-haiku-4-5-20251001"), "openai/exact-haiku"); // exact
  assert.equal(where("claude-haiku-4-5-20990101"), "fast/haiku-dated"); // longest prefix
  assert.equal(where("claude-3-opus-20240229"), "cheap/opus-like"); // same prefix, more literals
  assert.equal(where("claude-opus-4-1-20250805"), "gemini/opus-any"); // the only opus glob that matches
  assert.equal(where("claude-sonnet-4-5-20250929"), "anthropic/claude-sonnet-4-5-20250929"); // `*` target
  assert.equal(where("o4-mini"), "openai/gpt-4.1-mini");
  assert.equal(where("gemini/gemini-2.5-pro"), "gemini/gemini-2.5-pro"); // provider/model beats globs
  assert.equal(where("gpt-4.1"), "openai/gpt-4.1"); // families still apply
  assert.equal(where("claude-haiku-4-5-2025.1001"), "fast/haiku-dated"); // `.` is literal in keys, `*` any
  assert.throws(() => new ModelRouter(providers, { "x*": "openai/x" }).resolve("y"), GatewayError);
});

Deno.test("tier defaults route Claude Code's dated names that no alias routes", () => {
  const providers = new Map(["openai", "gemini", "anthropic"].map((name) => [name, fake(name)] as const));
  const tiered = new ModelRouter(providers, { "claude-opus-4-1": "anthropic/claude-opus-4-1" }, {
    opus: "openai/gpt-5",
    sonnet: "gemini/gemini-2.5-pro",
    haiku: "openai/gpt-4.1-mini",
  });
  const where = (name: string) => {
    const r = tiered.resolve(name);
    return `${r.provider.name}/${r.upstreamModel}`;
  };
  assert.equal(where("claude-opus-4-1-20250805"), "openai/gpt-5");
  assert.equal(where("claude-opus-4-1"), "anthropic/claude-opus-4-1"); // an exact alias wins
  assert.equal(where("claude-sonnet-4-5-20250929"), "gemini/gemini-2.5-pro");
  assert.equal(where("claude-3-7-sonnet-latest"), "gemini/gemini-2.5-pro");
  assert.equal(where("claude-3-5-haiku-20241022"), "openai/gpt-4.1-mini");
  assert.equal(where("claude-haiku-4-5"), "openai/gpt-4.1-mini");
  assert.equal(where("claude-sonnetish-1"), "anthropic/claude-sonnetish-1"); // not a tier segment
  assert.equal(where("anthropic/claude-opus-4-1-20250805"), "anthropic/claude-opus-4-1-20250805");
  // Without a tier for a name, the families apply.
  const partial = new ModelRouter(providers, {}, { haiku: "openai/gpt-4.1-mini" });
  assert.equal(partial.resolve("claude-opus-4-1-20250805").provider.name, "anthropic");
});
