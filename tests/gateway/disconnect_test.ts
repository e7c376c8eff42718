/**
 * A client that hangs up frees its upstream at once: the gateway aborts the upstream request within 100 ms,
 * for a non-streamed request, for a stream still waiting for the upstream's headers, and for a stream in
 * the middle of its body.
 */
import assert from "node:assert/strict";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
const encoder = new TextEncoder();
const CHUNK =
  `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n`;

Deno.test("a client that disconnects aborts its upstream request within 100 ms", e2e, async (t) => {
  const upstream = await startFaultyUpstream(async (r, signal) => {
    if (r.body.model !== "trickle") {
      await sleep(30_000, signal); // a long generation
      return Response.json({});
    }
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        timer = setInterval(() => controller.enqueue(encoder.encode(CHUNK)), 20);
      },
      cancel() {
        clearInterval(timer);
      },
    });
    signal.addEventListener("abort", () => clearInterval(timer));
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  // A long ping interval: a stream stays in its "waiting for the upstream's headers" phase for seconds.
  const gw = await startFaultyGateway({
    OPENAI_API_KEY: "sk-test-disconnect",
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    GATEWAY_PING_INTERVAL_MS: "5000",
  });
  const hangUpAfter = async (body: unknown, ms: number, readFirst = false) => {
    const controller = new AbortController();
    const response = gw.post(body, { signal: controller.signal });
    if (readFirst) {
      const reader = (await response).body!.getReader();
      await reader.read();
    }
    await sleep(ms);
    const at = performance.now();
    controller.abort();
    await response.then((r) => r.body?.cancel()).catch(() => {});
    await sleep(150);
    const seen = upstream.requests.at(-1)!;
    assert.ok(seen.abortedAt, "the upstream request was aborted");
    assert.ok(seen.abortedAt! - at < 100, `aborted ${seen.abortedAt! - at} ms after the client left`);
  };
  try {
    await t.step("a non-streamed request", () => hangUpAfter({ model: "openai/long", ...ask }, 100));
    await t.step(
      "a stream abandoned before the upstream's headers",
      () => hangUpAfter({ model: "openai/long", ...ask, stream: true }, 100),
    );
    await t.step(
      "a stream abandoned in the middle of its body",
      () => hangUpAfter({ model: "openai/trickle", ...ask, stream: true }, 100, true),
    );
  } finally {
    await gw.close();
    await upstream.close();
  }
});
