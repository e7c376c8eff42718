import assert from "node:assert/strict";
import { createHttp1Client } from "./http1_client.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface RawServer {
  url: string;
  /** Number of connections accepted so far. */
  connections: () => number;
  close(): Promise<void>;
}

/** Reads one request (head + content-length body) from `conn`; null when the peer closed first. */
async function readRequest(conn: Deno.Conn, carry: { rest: Uint8Array }): Promise<string | null> {
  let bytes = carry.rest;
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const text = decoder.decode(bytes);
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      const total = encoder.encode(text.slice(0, end + 4)).length + length;
      if (bytes.length >= total) {
        carry.rest = bytes.slice(total);
        return decoder.decode(bytes.subarray(0, total));
      }
    }
    const n = await conn.read(buffer);
    if (n === null) return null;
    const grown = new Uint8Array(bytes.length + n);
    grown.set(bytes);
    grown.set(buffer.subarray(0, n), bytes.length);
    bytes = grown;
  }
}

/** A TCP server that answers each request with whatever `answer` writes (raw bytes, for edge cases). */
function rawServer(
  answer: (conn: Deno.Conn, request: string, index: number) => Promise<"keep" | "close">,
): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  let requests = 0;
  const open = new Set<Deno.Conn>();
  const serve = async (conn: Deno.Conn) => {
    open.add(conn);
    const carry = { rest: new Uint8Array(0) };
    try {
      for (;;) {
        const request = await readRequest(conn, carry);
        if (request === null) break;
        if ((await answer(conn, request, requests++)) === "close") break;
      }
    } catch {
      // client went away
    } finally {
      open.delete(conn);
      try {
        conn.close();
      } catch {
        // closed
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      serve(conn);
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    connections: () => connections,
    async close() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // closed
        }
      }
      await accepting.catch(() => {});
    },
  };
}

const write = (conn: Deno.Conn, text: string | Uint8Array) =>
  conn.write(typeof text === "string" ? encoder.encode(text) : text);

const opts = { sanitizeOps: false, sanitizeResources: false };

Deno.test("a JSON answer comes back whole and the connection is reused", opts, async () => {
  const ports: number[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request, info) => {
    ports.push(info.remoteAddr.port);
    const body = await request.json();
    return Response.json({ echo: body, path: new URL(request.url).pathname + new URL(request.url).search });
  });
  const client = createHttp1Client();
  try {
    for (let i = 0; i < 3; i++) {
      const response = await client.fetch(`http://127.0.0.1:${server.addr.port}/v1/x?y=${i}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k" },
        body: JSON.stringify({ i, text: "é" }),
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { echo: { i, text: "é" }, path: `/v1/x?y=${i}` });
    }
    assert.equal(new Set(ports).size, 1, `one connection, got ports ${ports.join(", ")}`);
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("a streamed answer arrives piece by piece, then the connection is reused", opts, async () => {
  const ports: number[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (_request, info) => {
    ports.push(info.remoteAddr.port);
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (i === 4) return controller.close();
        controller.enqueue(encoder.encode(`data: ${i++}\n\n`));
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const client = createHttp1Client();
  try {
    for (let round = 0; round < 2; round++) {
      const response = await client.fetch(`http://127.0.0.1:${server.addr.port}/s`, {
        method: "POST",
        body: "{}",
      });
      const pieces: string[] = [];
      for await (const piece of response.body!) pieces.push(decoder.decode(piece));
      assert.ok(pieces.length >= 2, "more than one piece: the body is not buffered whole");
      assert.equal(pieces.join(""), "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n");
    }
    assert.equal(new Set(ports).size, 1);
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("chunk extensions, trailers, 100 Continue and one-byte writes are decoded", opts, async () => {
  const server = rawServer(async (conn) => {
    const wire =
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\nx-a: 1\r\n\r\n" +
      "5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nx-trailer: t\r\n\r\n";
    for (const byte of encoder.encode(wire)) await write(conn, new Uint8Array([byte]));
    return "keep";
  });
  const client = createHttp1Client();
  try {
    const response = await client.fetch(`${server.url}/`, { method: "POST", body: "x" });
    assert.equal(response.headers.get("x-a"), "1");
    assert.equal(await response.text(), "hello world");
    const again = await client.fetch(`${server.url}/`, { method: "POST", body: "x" });
    assert.equal(await again.text(), "hello world");
    assert.equal(server.connections(), 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a close-delimited body is read to the end and its connection is not reused", opts, async () => {
  const server = rawServer(async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end");
    return "close";
  });
  const client = createHttp1Client();
  try {
    for (let i = 0; i < 2; i++) {
      assert.equal(
        await (await client.fetch(`${server.url}/`, { method: "POST", body: "" })).text(),
        "until the end",
      );
    }
    assert.equal(server.connections(), 2);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a pooled connection the server closed while idle is replaced, once", opts, async () => {
  const server = rawServer(async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    return "close"; // closes without saying so: the client pools it
  });
  const client = createHttp1Client();
  try {
    assert.equal(await (await client.fetch(`${server.url}/`, { method: "POST", body: "1" })).text(), "ok");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await (await client.fetch(`${server.url}/`, { method: "POST", body: "2" })).text(), "ok");
    assert.equal(server.connections(), 2);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a fresh connection closed without an answer is an error, not a retry", opts, async () => {
  const server = rawServer(() => Promise.resolve("close"));
  const client = createHttp1Client();
  try {
    await assert.rejects(client.fetch(`${server.url}/`, { method: "POST", body: "1" }), TypeError);
    assert.equal(server.connections(), 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a chunked body cut in the middle errors the stream", opts, async () => {
  const server = rawServer(async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel");
    return "close";
  });
  const client = createHttp1Client();
  try {
    const response = await client.fetch(`${server.url}/`, { method: "POST", body: "" });
    await assert.rejects(response.text());
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a gzip answer is decoded", opts, async () => {
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([encoder.encode('{"a":1}')]).stream().pipeThrough(new CompressionStream("gzip")),
    )
      .arrayBuffer(),
  );
  const server = rawServer(async (conn) => {
    await write(
      conn,
      `HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${gzipped.length}\r\n\r\n`,
    );
    await write(conn, gzipped);
    return "keep";
  });
  const client = createHttp1Client();
  try {
    const response = await client.fetch(`${server.url}/`, { method: "POST", body: "" });
    assert.deepEqual(await response.json(), { a: 1 });
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test(
  "aborting a pending request rejects with the abort reason and closes the connection",
  opts,
  async () => {
    let closed = false;
    const server = rawServer(async (conn) => {
      const buffer = new Uint8Array(16);
      closed = (await conn.read(buffer).catch(() => null)) === null; // waits for the client to hang up
      return "close";
    });
    const client = createHttp1Client();
    try {
      const abort = new AbortController();
      const pending = client.fetch(`${server.url}/`, { method: "POST", body: "{}", signal: abort.signal });
      setTimeout(() => abort.abort(new DOMException("gone", "AbortError")), 20);
      await assert.rejects(pending, { name: "AbortError" });
      for (let i = 0; i < 50 && !closed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(closed, true);
    } finally {
      client.close();
      await server.close();
    }
  },
);

Deno.test(
  "the request goes out with its headers, length and body, and header injection is refused",
  opts,
  async () => {
    let seen = "";
    const server = rawServer(async (conn, request) => {
      seen = request;
      await write(conn, "HTTP/1.1 204 No Content\r\n\r\n");
      return "keep";
    });
    const client = createHttp1Client();
    try {
      const response = await client.fetch(`${server.url}/v1/m?beta=true`, {
        method: "POST",
        headers: { "x-api-key": "k", "anthropic-version": "2023-06-01" },
        body: "héllo🔑\uD800",
      });
      assert.equal(response.status, 204);
      assert.match(seen, /^POST \/v1\/m\?beta=true HTTP\/1\.1\r\n/);
      assert.match(seen, /\r\nhost: 127\.0\.0\.1:\d+\r\n/);
      assert.match(seen, /\r\nx-api-key: k\r\n/);
      assert.match(
        seen,
        /\r\ncontent-length: 13\r\n/,
        "UTF-8 length: é 2 bytes, 🔑 4, a lone surrogate 3 (U+FFFD)",
      );
      assert.match(seen, /\r\naccept-encoding: identity\r\n/);
      assert.ok(seen.endsWith("\r\n\r\nhéllo🔑\uFFFD"));
      // A body over 64 Ki UTF-16 units is encoded on its own path: the same length and bytes.
      const large = "é🔑".repeat(30_000);
      assert.equal((await client.fetch(`${server.url}/`, { method: "POST", body: large })).status, 204);
      assert.match(seen, /\r\ncontent-length: 180000\r\n/);
      assert.ok(seen.endsWith(`\r\n\r\n${large}`));
      await assert.rejects(
        client.fetch(`${server.url}/`, { method: "POST", headers: { "x-a": "1\r\nx-b: 2" }, body: "" }),
        TypeError,
      );
    } finally {
      client.close();
      await server.close();
    }
  },
);
