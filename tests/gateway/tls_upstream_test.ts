/**
 * HTTPS upstreams through the built-in client (the default for `https://` since issue 17), against loopback
 * TLS servers with a throwaway CA: a trusted certificate is accepted (whole and chunked answers, keep-alive
 * reuse, a pooled connection the server closed, abort), an unknown CA or a wrong host name is refused — by
 * the client, and by the gateway as a 502 `api_error` naming the provider — and SNI carries the host name.
 */
import assert from "node:assert/strict";
import { createHttp1Client, TlsRefusedError } from "../../gateway/upstream/http1_client.ts";
import { createUpstreamFetch } from "../../gateway/upstream/fetch.ts";
import { makeTestCertificate, type TestCertificate } from "../e2e/support/tls.ts";
import { eventsOf, startFaultyGateway } from "./faulty.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const encoder = new TextEncoder();
const decoder = new TextDecoder();
let certificate: Promise<TestCertificate> | undefined;
/** One CA and leaf (SANs: example.test names and 127.0.0.1, not `localhost`) for the whole file. */
const testCertificate = () => certificate ??= makeTestCertificate();

/** A loopback TLS server answering each request with what `answer` writes; counts connections. */
interface TlsServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The port. */
  port: number;
  /** Connections accepted so far. */
  connections: () => number;
  /** Connections the client closed (read returned end of stream or failed). */
  closedByClient: () => number;
  close(): void;
}

/** Reads one request (head + content-length body); null when the peer closed first. */
async function readRequest(conn: Deno.Conn, carry: { text: string }): Promise<string | null> {
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const end = carry.text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const length = Number(/content-length: (\d+)/i.exec(carry.text.slice(0, end))?.[1] ?? 0);
      if (carry.text.length >= end + 4 + length) { // ASCII bodies only in this file
        const request = carry.text.slice(0, end + 4 + length);
        carry.text = carry.text.slice(end + 4 + length);
        return request;
      }
    }
    const n = await conn.read(buffer);
    if (n === null) return null;
    carry.text += decoder.decode(buffer.subarray(0, n));
  }
}

function tlsServer(
  cert: TestCertificate,
  answer: (conn: Deno.Conn, request: string) => Promise<"keep" | "close">,
): TlsServer {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: cert.certPem,
    key: cert.keyPem,
    alpnProtocols: ["http/1.1"],
  });
  let connections = 0;
  let closedByClient = 0;
  const open = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      connections++;
      open.add(conn);
      (async () => {
        const carry = { text: "" };
        try {
          for (;;) {
            const request = await readRequest(conn, carry);
            if (request === null) {
              closedByClient++;
              break;
            }
            if (await answer(conn, request) === "close") break;
          }
        } catch {
          closedByClient++; // reset by the client, or a refused handshake
        } finally {
          open.delete(conn);
          try {
            conn.close();
          } catch {
            // closed
          }
        }
      })();
    }
  })().catch(() => {});
  const port = listener.addr.port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    closedByClient: () => closedByClient,
    close() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // closed
        }
      }
    },
  };
}

const write = (conn: Deno.Conn, text: string) => conn.write(encoder.encode(text));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const json = (body: string) =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;

Deno.test("a TLS upstream with a trusted certificate answers, over one reused connection", opts, async () => {
  const cert = await testCertificate();
  let alpn: string | null = null;
  const server = tlsServer(cert, async (conn, request) => {
    alpn ??= (await (conn as Deno.TlsConn).handshake()).alpnProtocol;
    await write(conn, json(JSON.stringify({ echo: request.split("\r\n\r\n")[1] })));
    return "keep";
  });
  const client = createHttp1Client({ caCerts: [cert.caPem] });
  try {
    for (let i = 0; i < 3; i++) {
      const response = await client.fetch(`${server.url}/v1/x`, { method: "POST", body: `{"i":${i}}` });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { echo: `{"i":${i}}` });
    }
    assert.equal(server.connections(), 1);
    assert.equal(alpn, "http/1.1");
  } finally {
    client.close();
    server.close();
  }
});

Deno.test(
  "a chunked stream over TLS arrives piece by piece, then its connection is reused",
  opts,
  async () => {
    const cert = await testCertificate();
    const server = tlsServer(cert, async (conn) => {
      await write(
        conn,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
      );
      // 60 ms apart: a Deno TLS server socket keeps Nagle's algorithm on, so a piece written before the last
      // one is acknowledged (≤ 40 ms delayed ACK) would leave with the next, not the client's doing.
      for (let i = 0; i < 4; i++) {
        await sleep(60);
        await write(conn, chunk(`data: ${i}\n\n`));
      }
      await write(conn, "0\r\n\r\n");
      return "keep";
    });
    const client = createHttp1Client({ caCerts: [cert.caPem] });
    try {
      for (let round = 0; round < 2; round++) {
        const response = await client.fetch(`${server.url}/s`, { method: "POST", body: "{}" });
        const reader = response.reader();
        const pieces: string[] = [];
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          pieces.push(
            decoder.decode(r.value),
          );
        }
        assert.equal(pieces.join(""), "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n");
        assert.ok(pieces.length >= 4, `read in ${pieces.length} pieces`);
      }
      assert.equal(server.connections(), 1);
    } finally {
      client.close();
      server.close();
    }
  },
);

Deno.test("a pooled TLS connection the server closed while idle is replaced, once", opts, async () => {
  const cert = await testCertificate();
  const server = tlsServer(cert, async (conn) => {
    await write(conn, json('"ok"'));
    return "close"; // closes without saying so: the client pools it
  });
  const client = createHttp1Client({ caCerts: [cert.caPem] });
  try {
    assert.equal(await (await client.fetch(`${server.url}/`, { method: "POST", body: "1" })).json(), "ok");
    await sleep(30);
    assert.equal(await (await client.fetch(`${server.url}/`, { method: "POST", body: "2" })).json(), "ok");
    assert.equal(server.connections(), 2);
  } finally {
    client.close();
    server.close();
  }
});

Deno.test(
  "aborting a pending TLS request rejects with the reason and closes the connection",
  opts,
  async () => {
    const cert = await testCertificate();
    let closed = false;
    const server = tlsServer(cert, async (conn) => {
      closed = (await conn.read(new Uint8Array(16)).catch(() => null)) === null; // waits for the hang-up
      return "close";
    });
    const client = createHttp1Client({ caCerts: [cert.caPem] });
    try {
      const abort = new AbortController();
      const pending = client.fetch(`${server.url}/`, { method: "POST", body: "{}", signal: abort.signal });
      setTimeout(() => abort.abort(new DOMException("gone", "AbortError")), 50);
      await assert.rejects(pending, { name: "AbortError" });
      for (let i = 0; i < 50 && !closed; i++) await sleep(10);
      assert.equal(closed, true);
    } finally {
      client.close();
      server.close();
    }
  },
);

Deno.test("a server that never finishes the TLS handshake ends in the connect timeout", opts, async () => {
  // Known limit: Deno cannot close a TlsConn in mid-handshake (close() leaves the socket to the pending
  // handshake), so the socket is released when such a server hangs up; the request itself ends on time.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept(); // reads nothing, answers nothing
  const client = createHttp1Client({ connectTimeoutMs: 200 });
  try {
    const started = performance.now();
    await assert.rejects(
      client.fetch(`https://127.0.0.1:${listener.addr.port}/`, { method: "POST", body: "" }),
      { name: "ConnectTimeoutError" },
    );
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1_000, `rejected after ${elapsed.toFixed(0)} ms`);
  } finally {
    client.close();
    (await accepted).close();
    listener.close();
  }
});

Deno.test("an unknown CA and a wrong host name are refused by the built-in client", opts, async () => {
  const cert = await testCertificate();
  const server = tlsServer(cert, async (conn) => {
    await write(conn, json("{}"));
    return "keep";
  });
  const untrusting = createHttp1Client();
  const trusting = createHttp1Client({ caCerts: [cert.caPem] });
  try {
    await assert.rejects(untrusting.fetch(`${server.url}/`, { method: "POST", body: "{}" }), (error) => {
      assert.ok(error instanceof TlsRefusedError, String(error));
      assert.equal(error.reason, "certificate not trusted (UnknownIssuer)");
      return true;
    });
    // The leaf names 127.0.0.1 and example.test hosts, not `localhost` (which resolves to the same server).
    await assert.rejects(
      trusting.fetch(`https://localhost:${server.port}/`, { method: "POST", body: "{}" }),
      {
        name: "TlsRefusedError",
        reason: "certificate not valid for the host name",
      },
    );
    assert.equal(server.connections(), 2, "both handshakes reached the server and were refused");
  } finally {
    untrusting.close();
    trusting.close();
    server.close();
  }
});

Deno.test("the ClientHello carries the upstream's host name (SNI)", opts, async () => {
  const cert = await testCertificate();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const hello = (async () => {
    const conn = await listener.accept();
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer) ?? 0;
    conn.close();
    return new TextDecoder("latin1").decode(buffer.subarray(0, n));
  })();
  const client = createHttp1Client({ caCerts: [cert.caPem], connectTimeoutMs: 2_000 });
  try {
    await assert.rejects(
      client.fetch(`https://localhost:${listener.addr.port}/`, { method: "POST", body: "" }),
    );
    const bytes = await hello;
    assert.equal(bytes.charCodeAt(0), 0x16, "a TLS handshake record");
    assert.ok(bytes.includes("localhost"), "server_name extension holds the host name");
  } finally {
    client.close();
    listener.close();
  }
});

const COMPLETION = JSON.stringify({
  id: "chatcmpl-tls",
  object: "chat.completion",
  created: 1,
  model: "gpt-tls",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello over TLS" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
});
const delta = (content: string) =>
  `data: ${
    JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      model: "gpt-tls",
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    })
  }\n\n`;

/** An OpenAI-compatible upstream over TLS: JSON, or a stream (`slow` in the model: one delta per 50 ms). */
function openAiOverTls(cert: TestCertificate): TlsServer {
  return tlsServer(cert, async (conn, request) => {
    const body = JSON.parse(request.split("\r\n\r\n")[1]);
    if (!body.stream) {
      await write(conn, json(COMPLETION));
      return "keep";
    }
    await write(
      conn,
      "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n",
    );
    const slow = String(body.model).includes("slow");
    for (let i = 0; i < (slow ? 100 : 3); i++) {
      if (slow) await sleep(50);
      await write(conn, chunk(delta(`tok${i} `)));
    }
    await write(conn, chunk("data: [DONE]\n\n") + "0\r\n\r\n");
    return "keep";
  });
}

const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };

Deno.test("the gateway serves a TLS upstream through the built-in client", opts, async (t) => {
  const cert = await testCertificate();
  const upstream = openAiOverTls(cert);
  const gw = await startFaultyGateway(
    { OPENAI_API_KEY: "sk-tls-test", OPENAI_BASE_URL: `${upstream.url}/v1` },
    undefined,
    createUpstreamFetch("builtin", { connectTimeoutMs: 2_000, caCerts: [cert.caPem] }),
  );
  try {
    await t.step("a whole answer", async () => {
      const r = await gw.post({ model: "openai/gpt-tls", ...ask });
      const body = await r.json();
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.deepEqual(body.content, [{ type: "text", text: "Hello over TLS" }]);
    });
    await t.step("a streamed answer, on the same upstream connection", async () => {
      const r = await gw.post({ model: "openai/gpt-tls", ...ask, stream: true });
      const text = await r.text();
      assert.equal(r.status, 200, text);
      const deltas = eventsOf(text).filter((e) => e.event === "content_block_delta");
      assert.equal(
        deltas.map((e) => JSON.parse(e.data).delta.text).join(""),
        "tok0 tok1 tok2 ",
      );
      assert.equal(upstream.connections(), 1);
    });
    await t.step("a client that hangs up mid-stream closes the TLS upstream connection", async () => {
      const closedBefore = upstream.closedByClient();
      const abort = new AbortController();
      const r = await gw.post({ model: "openai/gpt-tls-slow", ...ask, stream: true }, {
        signal: abort.signal,
      });
      const reader = r.body!.getReader();
      let seen = "";
      while (!seen.includes("tok1")) seen += decoder.decode((await reader.read()).value);
      abort.abort();
      for (let i = 0; i < 100 && upstream.closedByClient() === closedBefore; i++) await sleep(20);
      assert.equal(upstream.closedByClient(), closedBefore + 1, "the gateway hung up on the upstream");
    });
  } finally {
    await gw.close();
    upstream.close();
  }
});

Deno.test(
  "an upstream certificate the gateway does not trust answers 502 api_error naming the provider",
  opts,
  async (t) => {
    const cert = await testCertificate();
    const upstream = openAiOverTls(cert);
    try {
      for (const client of ["builtin", "fetch"]) {
        await t.step(`unknown CA, GATEWAY_UPSTREAM_CLIENT=${client}`, async () => {
          const gw = await startFaultyGateway({
            OPENAI_API_KEY: "sk-tls-test",
            OPENAI_BASE_URL: `${upstream.url}/v1`,
            GATEWAY_UPSTREAM_CLIENT: client,
          });
          try {
            const r = await gw.post({ model: "openai/gpt-tls", ...ask });
            const text = await r.text();
            assert.equal(r.status, 502, text);
            const { error } = JSON.parse(text);
            assert.equal(error.type, "api_error");
            assert.equal(
              error.message,
              "upstream provider openai could not be reached over TLS: certificate not trusted (UnknownIssuer)",
            );
            assert.doesNotMatch(text, /\bat .*\.ts:\d+|sk-tls-test/);
            // The private detail in the log tells which client met the refusal: https:// goes to the built-in
            // client by default, to Deno's fetch when GATEWAY_UPSTREAM_CLIENT=fetch.
            const logged = gw.logs.join("\n");
            if (client === "builtin") assert.match(logged, /TLS certificate refused/);
            else assert.match(logged, /error sending request/);
          } finally {
            await gw.close();
          }
        });
      }
      await t.step("a certificate for another host name", async () => {
        const gw = await startFaultyGateway(
          { OPENAI_API_KEY: "sk-tls-test", OPENAI_BASE_URL: `https://localhost:${upstream.port}/v1` },
          undefined,
          createUpstreamFetch("builtin", { connectTimeoutMs: 2_000, caCerts: [cert.caPem] }),
        );
        try {
          const r = await gw.post({ model: "openai/gpt-tls", ...ask, stream: true });
          const { error } = await r.json();
          assert.equal(r.status, 502);
          assert.equal(
            error.message,
            "upstream provider openai could not be reached over TLS: certificate not valid for the host name",
          );
        } finally {
          await gw.close();
        }
      });
    } finally {
      upstream.close();
    }
  },
);
