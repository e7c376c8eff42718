/**
 * Slow clients against the gateway as it is self-hosted (behind the connection guard of gateway/serve.ts):
 * a request body that trickles or stalls is answered 408 `timeout_error` and its socket closed; a request
 * head that stalls, a connection that sends nothing and an idle keep-alive connection are closed after their
 * timeouts; a request waiting on a slow upstream and a flowing stream are not; 1,000 slowloris connections
 * are all closed and the gateway still answers; connections over GATEWAY_MAX_CONNECTIONS get a 503.
 */
import assert from "node:assert/strict";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
const ANSWER = {
  id: "c",
  object: "chat.completion",
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
};
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${
    JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  }\n\n`;

/** Tight client timeouts so each case takes well under a second. */
const TIMEOUTS = {
  GATEWAY_CLIENT_BODY_TIMEOUT_MS: "300",
  GATEWAY_CLIENT_HEADER_TIMEOUT_MS: "300",
  GATEWAY_CLIENT_IDLE_TIMEOUT_MS: "500",
};

/** Writes `text`, then reads until the server closes the socket or `giveUpMs` passes. */
async function exchange(url: string, text: string, giveUpMs = 3_000) {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const started = performance.now();
  if (text) await conn.write(encoder.encode(text));
  let received = "";
  let answeredMs = -1;
  let closedMs = -1;
  const buffer = new Uint8Array(16_384);
  const giveUp = setTimeout(() => conn.close(), giveUpMs);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      received += decoder.decode(buffer.subarray(0, n));
      if (answeredMs < 0 && received.includes("\r\n\r\n")) answeredMs = performance.now() - started;
    }
    closedMs = performance.now() - started;
  } catch {
    // closed by giveUp: closedMs stays -1
  } finally {
    clearTimeout(giveUp);
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
  return { received, answeredMs, closedMs };
}

const messagesHead = (key: string, framing: string) =>
  `POST /v1/messages HTTP/1.1\r\nhost: gw\r\ncontent-type: application/json\r\nx-api-key: ${key}\r\n${framing}\r\n`;

Deno.test(
  "a client too slow to send its body gets 408 timeout_error and its socket closed",
  e2e,
  async (t) => {
    const upstream = await startFaultyUpstream(() => Response.json(ANSWER));
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: "sk-test-slow-clients",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ...TIMEOUTS,
      GATEWAY_CLIENT_IDLE_TIMEOUT_MS: "5000", // only the 408's own close may end these sockets in time
    });
    try {
      for (
        const [name, framing, partial] of [
          ["an announced length", "content-length: 500\r\n", '{"model":"openai/x",'],
          ["a chunked body", "transfer-encoding: chunked\r\n", '5\r\n{"mod\r\n'],
        ]
      ) {
        await t.step(`${name} that stalls`, async () => {
          const r = await exchange(gw.url, messagesHead(gw.key, framing) + partial);
          assert.match(r.received, /^HTTP\/1\.1 408/, r.received);
          assert.match(r.received, /"type":"timeout_error"/);
          assert.match(r.received, /connection: close/i);
          assert.ok(r.answeredMs >= 250 && r.answeredMs < 1_500, `answered after ${r.answeredMs} ms`);
          assert.ok(r.closedMs >= 0, "the socket was closed");
          assert.ok(r.closedMs - r.answeredMs < 500, `closed ${r.closedMs - r.answeredMs} ms after the 408`);
        });
      }
      assert.equal(upstream.requests.length, 0);
    } finally {
      await gw.close();
      await upstream.close();
    }
  },
);

Deno.test(
  "stalled heads, silent and idle keep-alive connections are closed after their timeouts",
  e2e,
  async (t) => {
    const upstream = await startFaultyUpstream(() => Response.json(ANSWER));
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: "sk-test-slow-clients",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ...TIMEOUTS,
    });
    try {
      await t.step("a request head that stops half-way", async () => {
        const r = await exchange(
          gw.url,
          `POST /v1/messages HTTP/1.1\r\nhost: gw\r\nx-api-key: ${gw.key}\r\nx-sl`,
        );
        assert.equal(r.received, "", "nothing is answered to a partial head");
        assert.ok(r.closedMs >= 280 && r.closedMs < 1_000, `closed after ${r.closedMs} ms`);
      });
      await t.step("a connection that never sends a byte", async () => {
        const r = await exchange(gw.url, "");
        assert.ok(r.closedMs >= 280 && r.closedMs < 1_000, `closed after ${r.closedMs} ms`);
      });
      await t.step("a keep-alive connection after its answer", async () => {
        const body = JSON.stringify({ model: "openai/m", ...ask });
        const r = await exchange(gw.url, messagesHead(gw.key, `content-length: ${body.length}\r\n`) + body);
        assert.match(r.received, /^HTTP\/1\.1 200[\s\S]*"text":"Hello"/);
        assert.doesNotMatch(r.received, /connection: close/i, "the answer itself keeps the connection");
        // Closed by the idle timeout (500 ms after the answer), not the shorter header timeout.
        assert.ok(
          r.closedMs - r.answeredMs >= 450,
          `closed ${r.closedMs - r.answeredMs} ms after the answer`,
        );
        assert.ok(
          r.closedMs - r.answeredMs < 1_200,
          `closed ${r.closedMs - r.answeredMs} ms after the answer`,
        );
      });
    } finally {
      await gw.close();
      await upstream.close();
    }
  },
);

Deno.test(
  "a request waiting on a slow upstream and a flowing stream outlive the client timeouts",
  e2e,
  async (t) => {
    const upstream = await startFaultyUpstream(async (r, signal) => {
      if (!r.body.stream) {
        await sleep(1_200, signal); // no byte either way meanwhile: longer than the idle and header timeouts
        return Response.json(ANSWER);
      }
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await sleep(650); // gaps longer than the idle timeout: only "a request is in flight" keeps it open
          if (n++ < 3) return controller.enqueue(encoder.encode(chunk({ content: `t${n} ` })));
          controller.enqueue(encoder.encode(chunk({}, "stop") + "data: [DONE]\n\n"));
          controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: "sk-test-slow-clients",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      GATEWAY_PING_INTERVAL_MS: "60000", // no pings: only the stream's own bytes flow
      ...TIMEOUTS,
    });
    try {
      await t.step("a non-streamed request answered after 1.2 s", async () => {
        const started = performance.now();
        const response = await gw.post({ model: "openai/m", ...ask });
        assert.equal(response.status, 200);
        assert.equal((await response.json()).content[0].text, "Hello");
        assert.ok(performance.now() - started >= 1_150);
      });
      await t.step("a stream of 2.6 s whose frames are 650 ms apart", async () => {
        const response = await gw.post({ model: "openai/m", ...ask, stream: true });
        const text = await response.text();
        assert.match(text, /t3 /);
        assert.match(text, /event: message_stop/);
      });
    } finally {
      await gw.close();
      await upstream.close();
    }
  },
);

Deno.test(
  "1,000 slowloris connections are all closed in time and the gateway still answers",
  e2e,
  async () => {
    const upstream = await startFaultyUpstream(() => Response.json(ANSWER));
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: "sk-test-slow-clients",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ...TIMEOUTS,
    });
    const { hostname, port } = new URL(gw.url);
    const conns: Deno.Conn[] = [];
    try {
      for (let batch = 0; batch < 10; batch++) {
        conns.push(
          ...await Promise.all(
            Array.from({ length: 100 }, () => Deno.connect({ hostname, port: Number(port) })),
          ),
        );
      }
      const opened = performance.now();
      // Each sends part of a head, then keeps trickling a byte every 100 ms, as slowloris does.
      const head = encoder.encode(`POST /v1/messages HTTP/1.1\r\nhost: gw\r\nx-api-key: ${gw.key}\r\n`);
      await Promise.all(conns.map((c) => c.write(head)));
      const closedAt: number[] = [];
      const trickle = setInterval(() => {
        for (const c of conns) c.write(encoder.encode("x")).catch(() => {});
      }, 100);
      const watching = conns.map(async (c) => {
        const buffer = new Uint8Array(1024);
        try {
          while ((await c.read(buffer)) !== null);
        } catch {
          // reset counts as closed
        }
        closedAt.push(performance.now() - opened);
      });
      const all = Promise.all(watching);
      const deadline = sleep(4_000).then(() => "late");
      const outcome = await Promise.race([all.then(() => "closed"), deadline]);
      clearInterval(trickle);
      assert.equal(outcome, "closed", `${closedAt.length} of 1000 closed within 4 s`);
      closedAt.sort((a, b) => a - b);
      // Header timeout 300 ms after each connection's accept (all accepted before `opened`) + one tick + load.
      assert.ok(closedAt.at(-1)! < 2_000, `the last closed ${closedAt.at(-1)} ms after all were open`);
      const response = await gw.post({ model: "openai/m", ...ask });
      assert.equal(response.status, 200);
      assert.equal((await response.json()).content[0].text, "Hello");
    } finally {
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      await gw.close();
      await upstream.close();
    }
  },
);

Deno.test(
  "connections over GATEWAY_MAX_CONNECTIONS get 503 overloaded_error and are closed",
  e2e,
  async () => {
    const upstream = await startFaultyUpstream(() => Response.json(ANSWER));
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: "sk-test-slow-clients",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      GATEWAY_MAX_CONNECTIONS: "3",
      GATEWAY_CLIENT_HEADER_TIMEOUT_MS: "5000",
    });
    const { hostname, port } = new URL(gw.url);
    const held = await Promise.all([1, 2, 3].map(() => Deno.connect({ hostname, port: Number(port) })));
    try {
      await sleep(50);
      const body = JSON.stringify({ model: "openai/m", ...ask });
      const r = await exchange(gw.url, messagesHead(gw.key, `content-length: ${body.length}\r\n`) + body);
      assert.match(r.received, /^HTTP\/1\.1 503/);
      assert.match(r.received, /retry-after: 1/i);
      assert.equal(
        JSON.parse(r.received.slice(r.received.indexOf("\r\n\r\n") + 4)).error.type,
        "overloaded_error",
      );
      assert.ok(r.closedMs >= 0 && r.closedMs < 1_000, `closed after ${r.closedMs} ms`);
      assert.equal(upstream.requests.length, 0);
    } finally {
      for (const c of held) c.close();
    }
    await sleep(50);
    const response = await gw.post({ model: "openai/m", ...ask });
    assert.equal(response.status, 200, "a freed slot serves again");
    await response.body?.cancel();
    await gw.close();
    await upstream.close();
  },
);
