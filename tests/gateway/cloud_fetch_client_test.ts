/**
 * The cloud lanes through Deno's `fetch` (GATEWAY_UPSTREAM_CLIENT=fetch, chosen automatically behind a proxy)
 * as well as the built-in client: the signed headers, the event-stream bytes and the token grant must survive
 * either client unchanged.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { startCloudHarness } from "./cloud_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user" as const, content: "Hi" }] };

Deno.test(
  "every cloud lane answers the same through Deno's fetch as through the built-in client",
  e2e,
  async () => {
    const models = [
      "bedrock/anthropic.claude-fx-v1:0",
      "claude-on-bedrock",
      "bedrock/amazon.nova-fx-v1:0",
      "vertex/claude-fx@20250101",
      "vertex/gemini-fx",
    ];
    const answers: Record<string, unknown[]> = {};
    for (const client of ["builtin", "fetch"]) {
      const h = await startCloudHarness({ GATEWAY_UPSTREAM_CLIENT: client });
      const sdk = new Anthropic({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
      try {
        for (const model of models) {
          const whole = await sdk.messages.create({ model, ...ask });
          const streamed = await sdk.messages.stream({ model, ...ask }).finalMessage();
          answers[client] ??= [];
          answers[client].push([
            whole.content,
            whole.usage,
            streamed.content,
            streamed.usage,
            streamed.stop_reason,
          ]);
        }
        assert.equal(h.tokens.grants, 1);
      } finally {
        await h.close();
      }
    }
    assert.equal(answers.fetch.length, models.length);
    assert.deepEqual(answers.fetch, answers.builtin);
  },
);
