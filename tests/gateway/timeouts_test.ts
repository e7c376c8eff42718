/**
 * Upstream deadlines: a hung upstream (no headers), a stream that goes silent, and a body that stalls halfway
 * each end in a bounded time with an Anthropic error — 504 `timeout_error` before the first byte, `event:
 * error` once streaming — and the gateway hangs up on the upstream; an upstream whose TCP connect never
 * completes ends in `api_error` after the connect timeout.
 */
import assert from "node:assert/strict";
import { eventsOf, sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
const encoder = new TextEncoder();
const CHUNK =
  `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n`;

Deno.test("upstream timeouts end hung, silent and stalled calls with Anthropic errors", e2e, async (t) => {
  const upstream = await startFaultyUpstream(async (r, signal) => {
    const model = String(r.body.model);
    if (model === "hang") {
      await sleep(60_000, signal); // never answers (until the gateway hangs up)
    }
    if (model === "stall-body") {
      // Headers and half a JSON body, then silence.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode('{"id":"chatcmpl","object":"chat.completion","choices":['));
        },
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    }
    // "silent-stream": one chunk, then nothing.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(CHUNK));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const gw = await startFaultyGateway({
    OPENAI_API_KEY: "sk-test-timeouts",
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: "300",
    GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: "300",
  });
  const timed = async (body: unknown) => {
    const started = performance.now();
    const r = await gw.post(body);
    const text = await r.text();
    return { status: r.status, text, ms: performance.now() - started };
  };
  try {
    await t.step("a hung upstream answers a non-streamed request with 504 timeout_error", async () => {
      const r = await timed({ model: "openai/hang", ...ask });
      assert.equal(r.status, 504, r.text);
      assert.equal(JSON.parse(r.text).error.type, "timeout_error");
      assert.match(JSON.parse(r.text).error.message, /did not answer within 300 ms/);
      assert.ok(r.ms < 2_000, `answered after ${r.ms} ms`);
      await sleep(50);
      assert.ok(upstream.requests.at(-1)!.abortedAt, "the gateway hung up on the upstream");
    });
    await t.step("a hung upstream ends a stream (committed to pings) with event: error", async () => {
      const r = await timed({ model: "openai/hang", ...ask, stream: true });
      assert.equal(r.status, 200, "the stream committed after one ping interval");
      const events = eventsOf(r.text);
      assert.equal(events[0].event, "ping");
      assert.equal(events.at(-1)!.event, "error");
      assert.equal(JSON.parse(events.at(-1)!.data).error.type, "timeout_error");
      assert.ok(r.ms < 2_000, `ended after ${r.ms} ms`);
    });
    await t.step("a stream that goes silent mid-way ends with event: error", async () => {
      const r = await timed({ model: "openai/silent-stream", ...ask, stream: true });
      const events = eventsOf(r.text);
      assert.ok(events.some((e) => e.event === "content_block_delta"), "the first chunk was relayed");
      assert.equal(events.at(-1)!.event, "error");
      assert.match(JSON.parse(events.at(-1)!.data).error.message, /sent nothing for 300 ms/);
      assert.ok(r.ms < 2_000, `ended after ${r.ms} ms`);
      await sleep(50);
      assert.ok(upstream.requests.at(-1)!.abortedAt, "the gateway hung up on the upstream");
    });
    await t.step("a body that stalls halfway answers 504 timeout_error", async () => {
      const r = await timed({ model: "openai/stall-body", ...ask });
      assert.equal(r.status, 504, r.text);
      assert.equal(JSON.parse(r.text).error.type, "timeout_error");
      assert.ok(r.ms < 2_000, `answered after ${r.ms} ms`);
    });
    await t.step("the timeouts are logged as the gateway's own 5xx", () => {
      assert.ok(gw.logs.some((line) => line.includes("did not answer within 300 ms")));
    });
  } finally {
    await gw.close();
    await upstream.close();
  }
});

/**
 * A listener that never accepts, its accept queue filled: further connects get no answer to their SYN, as
 * with a host that drops them. Returns its port and a function that releases everything.
 */
async function blackholePort(): Promise<{ port: number; release(): void }> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const fillers: Deno.Conn[] = [];
  for (let i = 0; i < 4_096; i++) {
    try {
      fillers.push(await Deno.connect({ hostname: "127.0.0.1", port, signal: AbortSignal.timeout(100) }));
    } catch {
      break; // the queue is full
    }
  }
  return {
    port,
    release() {
      for (const conn of fillers) conn.close();
      listener.close();
    },
  };
}

Deno.test(
  "an upstream that never completes the TCP connect ends in api_error after the connect timeout",
  e2e,
  async () => {
    const hole = await blackholePort();
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: "sk-test-timeouts",
      OPENAI_BASE_URL: `http://127.0.0.1:${hole.port}/v1`,
      GATEWAY_UPSTREAM_CONNECT_TIMEOUT_MS: "300",
    });
    try {
      const started = performance.now();
      const r = await gw.post({ model: "openai/m", ...ask });
      const ms = performance.now() - started;
      const body = await r.json();
      assert.equal(r.status, 500);
      assert.equal(body.error.type, "api_error");
      assert.match(body.error.message, /could not be reached within 300 ms/);
      assert.ok(ms >= 250 && ms < 2_000, `answered after ${ms} ms`);
    } finally {
      await gw.close();
      hole.release();
    }
  },
);
