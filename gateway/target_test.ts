import assert from "node:assert/strict";
import { parseTarget, targetName } from "./target.ts";

Deno.test("a target splits at its first slash and needs both a provider and a model", () => {
  assert.deepEqual(parseTarget("openai/gpt-4.1"), { provider: "openai", model: "gpt-4.1" });
  assert.deepEqual(parseTarget("together/meta-llama/Llama-3-8b"), {
    provider: "together",
    model: "meta-llama/Llama-3-8b",
  });
  for (const bad of ["gpt-4.1", "/gpt", "openai/", ""]) assert.equal(parseTarget(bad), undefined, bad);
  assert.equal(targetName({ provider: "gemini", model: "gemini-2.5-pro" }), "gemini/gemini-2.5-pro");
});
