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
