/**
 * Slow clients: a request body that trickles or stalls (announced length or chunked) is answered 408
 * `timeout_error` with `connection: close` once GATEWAY_CLIENT_BODY_TIMEOUT_MS has passed, and nothing goes
 * upstream. (Closing the socket itself is beyond Deno.serve's API: see docs/gateway.md.)
 */
import assert from "node:assert/strict";
import { startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Sends `head` and a partial body, then reads until the server closes (or 3 s pass). */
async function stall(url: string, key: string, head: string, partial: string) {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const started = performance.now();
  await conn.write(encoder.encode(head + `x-api-key: ${key}\r\n\r\n` + partial));
  let text = "";
  let answeredMs = -1;
  let closedMs = -1;
  const buffer = new Uint8Array(4096);
  const giveUp = setTimeout(() => conn.close(), 1_500);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n));
      if (answeredMs < 0 && text.includes("\r\n\r\n")) answeredMs = performance.now() - started;
    }
    closedMs = performance.now() - started;
  } catch {
    // closed by giveUp
  } finally {
    clearTimeout(giveUp);
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
  return { text, answeredMs, closedMs };
}

Deno.test("a client too slow to send its body gets 408 timeout_error in bounded time", e2e, async (t) => {
  const upstream = await startFaultyUpstream(() => Response.json({}));
  const gw = await startFaultyGateway({
    OPENAI_API_KEY: "sk-test-slow-clients",
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    GATEWAY_CLIENT_BODY_TIMEOUT_MS: "300",
  });
  try {
    for (
      const [name, framing, partial] of [
        ["an announced length", "content-length: 500\r\n", '{"model":"openai/x",'],
        ["a chunked body", "transfer-encoding: chunked\r\n", '5\r\n{"mod\r\n'],
      ]
    ) {
      await t.step(`${name} that stalls`, async () => {
        const r = await stall(
          gw.url,
          gw.key,
          `POST /v1/messages HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json\r\n${framing}`,
          partial,
        );
        assert.match(r.text, /^HTTP\/1\.1 408/, r.text);
        assert.match(r.text, /"type":"timeout_error"/);
        assert.ok(r.answeredMs >= 250 && r.answeredMs < 1_500, `answered after ${r.answeredMs} ms`);
        assert.match(r.text, /connection: close/i);
      });
    }
    assert.equal(upstream.requests.length, 0);
  } finally {
    await gw.close();
    await upstream.close();
  }
});
