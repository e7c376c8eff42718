import assert from "node:assert/strict";
import {
  type ConnectionGuardOptions,
  type GuardCloseReason,
  startGuardedServer,
} from "./connection_guard.ts";
import type { FetchHandler } from "./serve.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const REFUSAL = encoder.encode(
  "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\nconnection: close\r\n\r\nbusy",
);

async function guarded(handler: FetchHandler, options: Partial<ConnectionGuardOptions> = {}) {
  const closes: GuardCloseReason[] = [];
  const server = await startGuardedServer(handler, {
    port: 0,
    headerTimeoutMs: 200,
    idleTimeoutMs: 400,
    maxConnections: 100,
    refusal: REFUSAL,
    onClose: (reason) => closes.push(reason),
    ...options,
  });
  return { server, closes, [Symbol.asyncDispose]: () => server.shutdown() };
}

/** Connects, writes `text` (if any), reads until the server closes or `giveUpMs` passes. */
async function talk(port: number, text: string, giveUpMs = 2_000) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const started = performance.now();
  if (text) await conn.write(encoder.encode(text));
  let received = "";
  let closedMs = -1;
  const giveUp = setTimeout(() => conn.close(), giveUpMs);
  try {
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      received += decoder.decode(buffer.subarray(0, n));
    }
    closedMs = performance.now() - started;
    conn.close();
  } catch {
    // given up (closed by the timer) or reset
    if (closedMs < 0 && received) closedMs = performance.now() - started;
  } finally {
    clearTimeout(giveUp);
  }
  return { received, closedMs, local: conn.localAddr as Deno.NetAddr };
}

const hello: FetchHandler = () => new Response("hello");

Deno.test("the handler sees the client's own address, not the guard's loopback one", async () => {
  let seen: Deno.NetAddr | undefined;
  await using g = await guarded((_request, info) => {
    seen = info.remoteAddr;
    return new Response("ok", { headers: { connection: "close" } });
  });
  const r = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n");
  assert.match(r.received, /^HTTP\/1\.1 200/);
  assert.equal(seen?.port, r.local.port);
  assert.equal(seen?.hostname, "127.0.0.1");
});

Deno.test("a request head that stalls half-way is closed after the header timeout", async () => {
  await using g = await guarded(hello);
  const r = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\nx-slow: ");
  assert.equal(r.received, "");
  assert.ok(r.closedMs >= 180 && r.closedMs < 600, `closed after ${r.closedMs} ms`);
  assert.deepEqual(g.closes, ["header_timeout"]);
});

Deno.test("a connection that sends nothing is closed after the header timeout", async () => {
  await using g = await guarded(hello, { idleTimeoutMs: 5_000 });
  const r = await talk(g.server.port, "");
  assert.ok(r.closedMs >= 180 && r.closedMs < 600, `closed after ${r.closedMs} ms`);
  assert.deepEqual(g.closes, ["header_timeout"]);
});

Deno.test("an idle keep-alive connection is served, then closed after the idle timeout", async () => {
  await using g = await guarded(hello, { headerTimeoutMs: 150, idleTimeoutMs: 500 });
  const r = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n");
  assert.match(r.received, /^HTTP\/1\.1 200[\s\S]*hello$/);
  // The idle timeout (not the shorter header timeout) applies once a response has been delivered.
  assert.ok(r.closedMs >= 450 && r.closedMs < 1_000, `closed after ${r.closedMs} ms`);
  assert.deepEqual(g.closes, ["idle_timeout"]);
});

Deno.test("direct mode: a next head trickling on a kept-alive connection is closed by the idle timeout", async () => {
  await using g = await guarded(hello);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: g.server.port });
  try {
    const buffer = new Uint8Array(4096);
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nhost: x\r\n\r\n"));
    let text = "";
    while (!text.endsWith("hello")) text += decoder.decode(buffer.subarray(0, (await conn.read(buffer))!));
    const answered = performance.now();
    // The next head never completes: the guard sees no bytes in direct mode, so the idle deadline (400 ms from
    // the answer) bounds it, as it bounds a silent kept-alive client.
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nhost: "));
    const trickle = setInterval(() => conn.write(encoder.encode("x")).catch(() => {}), 50);
    const giveUp = setTimeout(() => conn.close(), 3_000);
    try {
      while ((await conn.read(buffer).catch(() => null)) !== null);
    } finally {
      clearInterval(trickle);
      clearTimeout(giveUp);
    }
    const closedMs = performance.now() - answered;
    assert.ok(closedMs >= 350 && closedMs < 1_000, `closed after ${closedMs} ms`);
    assert.deepEqual(g.closes, ["idle_timeout"]);
  } finally {
    try {
      conn.close();
    } catch {
      // closed by the give-up timer
    }
  }
});

Deno.test("a request waiting on a slow handler is not closed by the idle or header timeout", async () => {
  await using g = await guarded(async () => {
    await new Promise((resolve) => setTimeout(resolve, 700));
    return new Response("late", { headers: { connection: "close" } });
  }, { headerTimeoutMs: 100, idleTimeoutMs: 200 });
  const r = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n");
  assert.match(r.received, /^HTTP\/1\.1 200[\s\S]*late$/);
  assert.ok(r.closedMs >= 650, `closed after ${r.closedMs} ms`);
});

Deno.test("a streamed response keeps flowing past the idle timeout", async () => {
  await using g = await guarded(() => {
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        if (n++ === 4) return controller.close();
        controller.enqueue(encoder.encode(`tick ${n}\n`));
      },
    });
    return new Response(body);
  }, { headerTimeoutMs: 100, idleTimeoutMs: 200 });
  const r = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n", 4_000);
  assert.match(r.received, /tick 4/);
  assert.match(r.received, /0\r\n\r\n/, "the chunked body ended properly");
  assert.deepEqual(g.closes, ["idle_timeout"]);
});

Deno.test("a response with connection: close is delivered whole, then the socket is closed", async () => {
  await using g = await guarded(
    () => new Response("x".repeat(100_000), { status: 408, headers: { connection: "close" } }),
    {
      headerTimeoutMs: 5_000,
      idleTimeoutMs: 5_000,
    },
  );
  // A body announced but never sent: Deno.serve alone would keep this socket open.
  const r = await talk(g.server.port, "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 50\r\n\r\n{", 3_000);
  assert.match(r.received, /^HTTP\/1\.1 408/);
  assert.ok(r.received.endsWith("x".repeat(100_000)), "the whole body arrived");
  assert.ok(r.closedMs >= 0 && r.closedMs < 1_000, `closed after ${r.closedMs} ms`);
  assert.deepEqual(g.closes, ["close_after_response"]);
});

Deno.test("an error answer with connection: close is closed; a successful one's headers are not read", async () => {
  let status = 503;
  await using g = await guarded(() => new Response("done", { status, headers: { connection: "close" } }), {
    headerTimeoutMs: 5_000,
    idleTimeoutMs: 5_000,
  });
  const closed = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n", 3_000);
  assert.match(closed.received, /^HTTP\/1\.1 503[\s\S]*done$/);
  assert.ok(closed.closedMs >= 0 && closed.closedMs < 1_000, `closed after ${closed.closedMs} ms`);
  // A 200's headers are never read (that would turn Deno.serve's native response into a JavaScript one):
  // two pipelined requests are both answered on the one connection.
  status = 200;
  const request = "GET / HTTP/1.1\r\nhost: x\r\n\r\n";
  const open = await talk(g.server.port, request + request, 600);
  assert.equal(open.received.match(/HTTP\/1\.1 200/g)?.length, 2, open.received);
  for (let i = 0; i < 50 && g.closes.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  // The second connection stayed open until this client gave up (not closed 50 ms after its answer).
  assert.deepEqual(g.closes, ["close_after_response", "client_closed"]);
});

Deno.test("connections over the cap get the refusal and are closed", async () => {
  await using g = await guarded(hello, { maxConnections: 2, headerTimeoutMs: 2_000, idleTimeoutMs: 2_000 });
  const held = await Promise.all(
    [1, 2].map(() => Deno.connect({ hostname: "127.0.0.1", port: g.server.port })),
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(g.server.openConnections(), 2);
    const r = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n");
    assert.match(r.received, /^HTTP\/1\.1 503[\s\S]*busy$/);
    assert.ok(r.closedMs >= 0 && r.closedMs < 700, `closed after ${r.closedMs} ms`);
  } finally {
    for (const conn of held) conn.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(g.server.openConnections(), 0);
  const after = await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
  assert.match(after.received, /^HTTP\/1\.1 200/, "a slot freed is usable again");
});

Deno.test("a flood of refused connections all get the refusal, lingering or not", async () => {
  await using g = await guarded(hello, { maxConnections: 1, headerTimeoutMs: 2_000, idleTimeoutMs: 2_000 });
  const held = await Deno.connect({ hostname: "127.0.0.1", port: g.server.port });
  try {
    await new Promise((resolve) => setTimeout(resolve, 50));
    // More than the 256 that may linger at once: the rest are closed right after the write.
    const refused = await Promise.all(Array.from({ length: 400 }, () => talk(g.server.port, "", 3_000)));
    assert.equal(refused.filter((r) => /^HTTP\/1\.1 503[\s\S]*busy$/.test(r.received)).length, 400);
  } finally {
    held.close();
  }
});

Deno.test("the guard serves each connection in place (direct mode): no internal port", async () => {
  await using g = await guarded(hello);
  assert.equal(g.server.internalPort, 0);
  assert.match(
    (await talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")).received,
    /hello$/,
  );
});

Deno.test("copy mode: a request straight to the internal port, not through the guard, gets 421", async () => {
  let called = false;
  await using g = await guarded(() => {
    called = true;
    return new Response("ok");
  }, { copy: true });
  const r = await talk(g.server.internalPort, "GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
  assert.match(r.received, /^HTTP\/1\.1 421/);
  assert.equal(called, false);
});

Deno.test("keep-alive requests in a row are all served on one connection", async () => {
  await using g = await guarded((request) => new Response(new URL(request.url).pathname));
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: g.server.port });
  try {
    const buffer = new Uint8Array(4096);
    for (const path of ["/a", "/b", "/c"]) {
      await conn.write(encoder.encode(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`));
      let text = "";
      while (!text.endsWith(path)) text += decoder.decode(buffer.subarray(0, (await conn.read(buffer))!));
      assert.match(text, /^HTTP\/1\.1 200/);
    }
  } finally {
    conn.close();
  }
});

Deno.test("shutdown closes the connections still open", async () => {
  const g = await guarded(hello, { headerTimeoutMs: 10_000, idleTimeoutMs: 10_000 });
  const pending = talk(g.server.port, "GET / HTTP/1.1\r\nhost: x\r\nx-slow: ", 3_000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  await g.server.shutdown();
  const r = await pending;
  assert.ok(r.closedMs >= 0 && r.closedMs < 1_000, `closed after ${r.closedMs} ms`);
  assert.deepEqual(g.closes, ["shutdown"]);
});

Deno.test("a handler that resolves to no Response is answered 500, and nothing rejects unhandled", async () => {
  const encoder = new TextEncoder();
  const server = await startGuardedServer((() => Promise.resolve(undefined)) as never, {
    port: 0,
    headerTimeoutMs: 200,
    idleTimeoutMs: 400,
    maxConnections: 10,
    refusal: encoder.encode("HTTP/1.1 503 x\r\ncontent-length: 0\r\n\r\n"),
  });
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"));
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer);
    conn.close();
    assert.match(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), /^HTTP\/1\.1 500/);
    await new Promise((resolve) => setTimeout(resolve, 50)); // an unhandled rejection would fail the test here
  } finally {
    await server.shutdown();
  }
});
