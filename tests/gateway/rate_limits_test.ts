/**
 * Upstream rate limits as Claude Code reads them: an OpenAI, Anthropic or Gemini upstream's 429 / 529 /
 * overload becomes `rate_limit_error` / `overloaded_error` with `retry-after` always set (the upstream's own
 * hint, else a default) and `anthropic-ratelimit-*` headers passed through or synthesised from
 * `x-ratelimit-*`, on the Messages API and the OpenAI ingress alike.
 */
import assert from "node:assert/strict";
import { startFaultyGateway, startFaultyUpstream } from "./faulty.ts";
import {
  DEFAULT_OVERLOADED_RETRY_S,
  DEFAULT_RATE_LIMIT_RETRY_S,
} from "../../gateway/upstream/rate_limits.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };

Deno.test("upstream rate limits become Anthropic rate limits with retry-after", e2e, async (t) => {
  const upstream = await startFaultyUpstream((r) => {
    const model = String(r.body.model ?? r.path);
    if (model === "limited-tokens") {
      return Response.json({ error: { message: "Rate limit reached for tokens", type: "tokens" } }, {
        status: 429,
        headers: {
          "x-ratelimit-limit-requests": "500",
          "x-ratelimit-remaining-requests": "499",
          "x-ratelimit-reset-requests": "120ms",
          "x-ratelimit-limit-tokens": "30000",
          "x-ratelimit-remaining-tokens": "0",
          "x-ratelimit-reset-tokens": "17.2s",
        },
      });
    }
    if (model === "bare-429") return Response.json({ error: { message: "slow down" } }, { status: 429 });
    if (model === "busy-503") return Response.json({ error: { message: "overloaded" } }, { status: 503 });
    if (model === "ms-429") {
      return Response.json({ error: { message: "slow down" } }, {
        status: 429,
        headers: { "retry-after-ms": "2500" },
      });
    }
    if (model === "ok-limits") {
      const headers = {
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-remaining-requests": "420",
        "x-ratelimit-reset-requests": "1s",
      };
      if (r.body.stream !== true) {
        return Response.json({
          id: "c",
          object: "chat.completion",
          model,
          choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        }, { headers });
      }
      const base = { id: "c", object: "chat.completion.chunk", model };
      const frames = [
        {
          ...base,
          choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }],
        },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        "[DONE]",
      ].map((f) => `data: ${typeof f === "string" ? f : JSON.stringify(f)}\n\n`);
      return new Response(frames.join(""), { headers: { ...headers, "content-type": "text/event-stream" } });
    }
    if (r.path.startsWith("/anthropic/") && model === "claude-ok") {
      return Response.json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      }, {
        headers: {
          "anthropic-ratelimit-tokens-limit": "80000",
          "anthropic-ratelimit-tokens-remaining": "79000",
        },
      });
    }
    if (r.path.startsWith("/anthropic/")) {
      return Response.json({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, {
        status: 529,
        headers: {
          "anthropic-ratelimit-requests-limit": "50",
          "anthropic-ratelimit-requests-remaining": "12",
          "anthropic-ratelimit-requests-reset": "2026-01-01T00:00:30Z",
        },
      });
    }
    if (r.path.startsWith("/gemini/")) {
      return Response.json({
        error: {
          code: 429,
          status: "RESOURCE_EXHAUSTED",
          message: "Quota exceeded",
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "41s" }],
        },
      }, { status: 429 });
    }
    return Response.json({ error: { message: `unexpected ${model}` } }, { status: 400 });
  });
  const gw = await startFaultyGateway({
    OPENAI_API_KEY: "sk-test-rate-limits",
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    ANTHROPIC_API_KEY: "sk-ant-test-rate-limits",
    ANTHROPIC_BASE_URL: `${upstream.url}/anthropic`,
    GEMINI_API_KEY: "gemini-test-rate-limits",
    GEMINI_BASE_URL: `${upstream.url}/gemini`,
    // No ping may start a stream before the upstream's refusal arrives, however loaded the machine.
    GATEWAY_PING_INTERVAL_MS: "10000",
  });
  const errorOf = async (r: Response) => (await r.json()).error;
  try {
    for (const stream of [false, true]) {
      await t.step(
        `OpenAI x-ratelimit-* → anthropic-ratelimit-*, retry-after of the spent limit (${stream})`,
        async () => {
          const r = await gw.post({ model: "openai/limited-tokens", ...ask, stream });
          assert.equal(r.status, 429);
          assert.equal((await errorOf(r)).type, "rate_limit_error");
          assert.equal(r.headers.get("retry-after"), "18");
          assert.equal(r.headers.get("anthropic-ratelimit-requests-limit"), "500");
          assert.equal(r.headers.get("anthropic-ratelimit-requests-remaining"), "499");
          assert.equal(r.headers.get("anthropic-ratelimit-tokens-limit"), "30000");
          assert.equal(r.headers.get("anthropic-ratelimit-tokens-remaining"), "0");
          const reset = Date.parse(r.headers.get("anthropic-ratelimit-tokens-reset")!);
          assert.ok(Math.abs(reset - (Date.now() + 17_200)) < 3_000, `tokens reset ${reset}`);
        },
      );
    }
    await t.step("a bare 429 still says when to retry", async () => {
      const r = await gw.post({ model: "openai/bare-429", ...ask });
      assert.equal(r.status, 429);
      assert.equal(r.headers.get("retry-after"), String(DEFAULT_RATE_LIMIT_RETRY_S));
      await r.body?.cancel();
    });
    await t.step("retry-after-ms is rounded up to whole seconds", async () => {
      const r = await gw.post({ model: "openai/ms-429", ...ask });
      assert.equal(r.headers.get("retry-after"), "3");
      await r.body?.cancel();
    });
    await t.step("a 503 is overloaded_error (529) with a retry-after", async () => {
      const r = await gw.post({ model: "openai/busy-503", ...ask });
      assert.equal(r.status, 529);
      assert.equal((await errorOf(r)).type, "overloaded_error");
      assert.equal(r.headers.get("retry-after"), String(DEFAULT_OVERLOADED_RETRY_S));
    });
    await t.step("Anthropic's 529 and its anthropic-ratelimit-* headers pass through", async () => {
      const r = await gw.post({ model: "anthropic/claude-sonnet-4-5", ...ask });
      assert.equal(r.status, 529);
      assert.equal((await errorOf(r)).type, "overloaded_error");
      assert.equal(r.headers.get("retry-after"), String(DEFAULT_OVERLOADED_RETRY_S));
      assert.equal(r.headers.get("anthropic-ratelimit-requests-limit"), "50");
      assert.equal(r.headers.get("anthropic-ratelimit-requests-remaining"), "12");
      assert.equal(r.headers.get("anthropic-ratelimit-requests-reset"), "2026-01-01T00:00:30Z");
    });
    await t.step("Gemini's RetryInfo.retryDelay becomes retry-after", async () => {
      const r = await gw.post({ model: "gemini/gemini-2.5-flash", ...ask });
      assert.equal(r.status, 429);
      assert.equal((await errorOf(r)).type, "rate_limit_error");
      assert.equal(r.headers.get("retry-after"), "41");
    });
    for (const stream of [false, true]) {
      await t.step(`a successful answer carries the upstream's limits (stream: ${stream})`, async () => {
        const r = await gw.post({ model: "openai/ok-limits", ...ask, stream });
        assert.equal(r.status, 200, await r.text());
        assert.equal(r.headers.get("anthropic-ratelimit-requests-limit"), "500");
        assert.equal(r.headers.get("anthropic-ratelimit-requests-remaining"), "420");
        assert.ok(r.headers.get("anthropic-ratelimit-requests-reset"));
      });
    }
    await t.step("Anthropic's limits on a successful answer pass through; none are made up", async () => {
      const r = await gw.post({ model: "anthropic/claude-ok", ...ask });
      assert.equal(r.status, 200, await r.text());
      assert.equal(r.headers.get("anthropic-ratelimit-tokens-limit"), "80000");
      assert.equal(r.headers.get("anthropic-ratelimit-tokens-remaining"), "79000");
      assert.equal(r.headers.get("anthropic-ratelimit-requests-limit"), null);
    });
    await t.step("count_tokens says how it counted: OpenAI's tokenizer, or an estimate", async () => {
      const count = (model: string) =>
        fetch(`${gw.url}/v1/messages/count_tokens`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": gw.key },
          body: JSON.stringify({ model, messages: [{ role: "user", content: "hello world" }] }),
        });
      const exact = await count("openai/gpt-4.1");
      assert.equal(exact.headers.get("gw-token-count"), "tokenizer");
      assert.deepEqual(await exact.json(), { input_tokens: 9 });
      const estimate = await count("openai/some-local-model");
      assert.equal(estimate.headers.get("gw-token-count"), "estimate");
      assert.ok((await estimate.json()).input_tokens > 0);
    });
    await t.step("the OpenAI ingress carries the same headers", async () => {
      const r = await fetch(`${gw.url}/openai/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${gw.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "openai/limited-tokens", messages: [{ role: "user", content: "Hi" }] }),
      });
      assert.equal(r.status, 429);
      assert.equal(r.headers.get("retry-after"), "18");
      assert.equal(r.headers.get("anthropic-ratelimit-tokens-remaining"), "0");
      await r.body?.cancel();
    });
  } finally {
    await gw.close();
    await upstream.close();
  }
});
