/**
 * count_tokens on every provider family, against the loopback stand-ins: the gateway calls the provider's
 * own counting endpoint (Anthropic `/v1/messages/count_tokens`, Gemini `:countTokens`, Bedrock
 * `CountTokens`, Vertex `count-tokens:rawPredict` and `:countTokens`) with the request's system prompt,
 * tools and messages in that provider's shape, and answers with exactly the count the stand-in returned
 * (`gw-token-count: upstream`); OpenAI models are counted locally (`tokenizer`) without an upstream call.
 */
import assert from "node:assert/strict";
import { startHarness } from "./harness.ts";
import { startCloudHarness } from "./cloud_harness.ts";
import { type ProviderCall, upstreamCount } from "../../gateway/providers/contract.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const SYSTEM = "You are a careful assistant that counts.";
const TOOL = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const body = (model: string) => ({
  model,
  system: [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }],
  tools: [TOOL],
  messages: [
    { role: "user", content: "What's the weather in Lyon?" },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Lyon" } }],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Sunny, 21 °C" }] },
  ],
});

async function count(url: string, key: string, model: string) {
  const response = await fetch(`${url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body(model)),
  });
  const answer = await response.json();
  assert.equal(response.status, 200, JSON.stringify(answer));
  return { tokens: answer.input_tokens as number, source: response.headers.get("gw-token-count") };
}

const quarter = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);

Deno.test("count_tokens: Anthropic, Gemini and OpenAI lanes", e2e, async (t) => {
  const h = await startHarness();
  try {
    await t.step("Anthropic passes the counted fields through and returns the upstream's count", async () => {
      const { tokens, source } = await count(h.url, h.key, "claude-fx-tool");
      assert.deepEqual({ tokens, source }, { tokens: 4242, source: "upstream" });
      const sent = h.anthropic.requests.at(-1)!;
      assert.equal(sent.path, "/v1/messages/count_tokens");
      assert.equal((sent.body.system as Array<{ text: string }>)[0].text, SYSTEM);
      assert.deepEqual(sent.body.tools, [TOOL]);
      assert.equal((sent.body.messages as unknown[]).length, 3);
      assert.ok(!("max_tokens" in sent.body));
    });
    await t.step(
      "Gemini's countTokens gets the generateContentRequest and its totalTokens comes back",
      async () => {
        const { tokens, source } = await count(h.url, h.key, "gemini/gx-text");
        const sent = h.gemini.requests.at(-1)!;
        assert.match(sent.path, /^\/v1beta\/models\/gx-text:countTokens/);
        const request = sent.body.generateContentRequest as Record<string, unknown>;
        assert.equal(request.model, "models/gx-text");
        assert.deepEqual(request.systemInstruction, { parts: [{ text: SYSTEM }] });
        const declarations = (request.tools as Array<{ functionDeclarations: Array<{ name: string }> }>)[0]
          .functionDeclarations;
        assert.equal(declarations[0].name, "get_weather");
        const contents = request.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
        assert.deepEqual(contents.map((c) => c.role), ["user", "model", "user"]);
        assert.ok(contents[1].parts.some((p) => "functionCall" in p));
        assert.ok(contents[2].parts.some((p) => "functionResponse" in p));
        assert.deepEqual({ tokens, source }, { tokens: quarter(request.contents), source: "upstream" });
      },
    );
    await t.step("OpenAI models are counted with the tokenizer, no upstream call", async () => {
      const before = h.openai.requests.length;
      const { tokens, source } = await count(h.url, h.key, "openai/gpt-4.1");
      assert.equal(source, "tokenizer");
      assert.ok(tokens > 40 && tokens < 200, String(tokens));
      assert.equal(h.openai.requests.length, before);
    });
  } finally {
    await h.close();
  }
});

Deno.test("count_tokens: Bedrock CountTokens and Vertex count endpoints", e2e, async (t) => {
  const h = await startCloudHarness();
  try {
    await t.step("Bedrock (Claude): CountTokens wraps the InvokeModel body", async () => {
      const { tokens, source } = await count(h.url, h.key, "bedrock/anthropic.claude-fx-v1:0");
      const sent = h.bedrock.requests.at(-1)!;
      assert.match(decodeURIComponent(sent.path), /^\/model\/anthropic\.claude-fx-v1:0\/count-tokens$/);
      const input = sent.body.input as { invokeModel: { body: string } };
      const invoke = JSON.parse(input.invokeModel.body);
      assert.equal(invoke.anthropic_version, "bedrock-2023-05-31");
      assert.equal(invoke.system[0].text, SYSTEM);
      assert.equal(invoke.tools[0].name, "get_weather");
      assert.equal(invoke.messages.length, 3);
      assert.deepEqual({ tokens, source }, { tokens: quarter(invoke.messages), source: "upstream" });
    });
    await t.step("Bedrock (Converse): CountTokens wraps the Converse fields", async () => {
      const { tokens, source } = await count(h.url, h.key, "bedrock/amazon.nova-fx-v1:0");
      const sent = h.bedrock.requests.at(-1)!;
      const converse = (sent.body.input as { converse: Record<string, unknown> }).converse;
      assert.deepEqual((converse.system as Array<{ text?: string }>)[0], { text: SYSTEM });
      assert.ok(JSON.stringify(converse.toolConfig).includes("get_weather"));
      assert.equal((converse.messages as unknown[]).length, 3);
      assert.deepEqual({ tokens, source }, { tokens: quarter(converse.messages), source: "upstream" });
    });
    await t.step("Vertex (Claude): count-tokens:rawPredict with the model in the body", async () => {
      const { tokens, source } = await count(h.url, h.key, "vertex/claude-fx@20250101");
      const sent = h.vertex.requests.at(-1)!;
      assert.match(sent.path, /\/publishers\/anthropic\/models\/count-tokens:rawPredict$/);
      assert.equal(sent.body.model, "claude-fx@20250101");
      assert.equal((sent.body.system as Array<{ text: string }>)[0].text, SYSTEM);
      assert.equal(source, "upstream");
      assert.ok(tokens > 0);
    });
    await t.step("Vertex (Gemini): :countTokens with contents, system and tools", async () => {
      const { tokens, source } = await count(h.url, h.key, "vertex/gemini-fx");
      const sent = h.vertex.requests.at(-1)!;
      assert.match(sent.path, /\/models\/gemini-fx:countTokens$/);
      assert.deepEqual(sent.body.systemInstruction, { parts: [{ text: SYSTEM }] });
      assert.ok(JSON.stringify(sent.body.tools).includes("get_weather"));
      assert.deepEqual({ tokens, source }, { tokens: quarter(sent.body.contents), source: "upstream" });
    });
  } finally {
    await h.close();
  }
});

Deno.test("an upstream answer without a count falls back to the estimate and says so", () => {
  const call = { inputTokensEstimate: 77 } as ProviderCall;
  assert.deepEqual(upstreamCount(12, call), { input_tokens: 12, source: "upstream" });
  assert.deepEqual(upstreamCount(undefined, call), { input_tokens: 77, source: "estimate" });
  assert.deepEqual(upstreamCount("12", call), { input_tokens: 77, source: "estimate" });
  assert.deepEqual(upstreamCount(-1, call), { input_tokens: 77, source: "estimate" });
});
