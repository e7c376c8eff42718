/**
 * Upstreams that misbehave at the TCP level, one loopback listener per behaviour, for scenario 5: a
 * connection reset in the middle of a stream, a half-open socket (the request is read, nothing ever comes
 * back), one byte per second (in the body, or in the headers), garbage after the response headers, a TLS handshake that never completes,
 * and a storm of 529 answers. Every accepted socket is tracked and closed by `close`.
 */

/** A misbehaviour. */
export type Misbehaviour =
  | "reset"
  | "half_open"
  | "one_byte_per_second"
  | "headers_one_byte_per_second"
  | "garbage"
  | "tls_stall"
  | "storm_529";

/** Every misbehaviour, in the table's order. */
export const MISBEHAVIOURS: Misbehaviour[] = [
  "reset",
  "half_open",
  "one_byte_per_second",
  "headers_one_byte_per_second",
  "garbage",
  "tls_stall",
  "storm_529",
];

/** A running misbehaving upstream. */
export interface MisbehavingUpstream {
  /** Its behaviour. */
  behaviour: Misbehaviour;
  /** Its port on 127.0.0.1. */
  port: number;
  /** Connections accepted so far. */
  accepted: number;
  /** Stops listening and closes every socket. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const HEAD_SSE = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
const FIRST_CHUNK = `data: ${
  JSON.stringify({
    id: "c",
    object: "chat.completion.chunk",
    model: "m",
    choices: [{ index: 0, delta: { role: "assistant", content: "Hel" }, finish_reason: null }],
  })
}\n\n`;

function chunked(text: string): Uint8Array {
  const bytes = encoder.encode(text);
  return new Uint8Array([
    ...encoder.encode(`${bytes.length.toString(16)}\r\n`),
    ...bytes,
    ...encoder.encode("\r\n"),
  ]);
}

/** Reads until the end of the request head; returns false when the peer went away first. */
async function readHead(conn: Deno.Conn, limit = 64 * 1024): Promise<boolean> {
  const buffer = new Uint8Array(4096);
  let seen = "";
  while (!seen.includes("\r\n\r\n") && seen.length < limit) {
    const n = await conn.read(buffer).catch(() => null);
    if (!n) return false;
    seen += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return true;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

async function misbehave(behaviour: Misbehaviour, conn: Deno.Conn, signal: AbortSignal): Promise<void> {
  switch (behaviour) {
    case "reset": {
      // Read only part of the request, answer part of a stream and close: the unread request bytes make the
      // kernel send a RST instead of a FIN.
      await conn.read(new Uint8Array(32)).catch(() => null);
      await conn.write(encoder.encode(HEAD_SSE)).catch(() => {});
      await conn.write(chunked(FIRST_CHUNK)).catch(() => {});
      await sleep(20, signal);
      return;
    }
    case "half_open":
      // The request is read; the answer never comes and the socket stays open.
      await readHead(conn);
      await sleep(600_000, signal);
      return;
    case "one_byte_per_second": {
      // Headers at once, then the body one byte a second.
      if (!await readHead(conn)) return;
      await conn.write(encoder.encode(HEAD_SSE)).catch(() => {});
      const answer = chunked(FIRST_CHUNK);
      for (const byte of answer) {
        if (signal.aborted) return;
        if (await conn.write(new Uint8Array([byte])).then(() => false, () => true)) return;
        await sleep(1000, signal);
      }
      return;
    }
    case "headers_one_byte_per_second": {
      if (!await readHead(conn)) return;
      for (const byte of encoder.encode(HEAD_SSE)) {
        if (signal.aborted) return;
        if (await conn.write(new Uint8Array([byte])).then(() => false, () => true)) return;
        await sleep(1000, signal);
      }
      return;
    }
    case "garbage": {
      if (!await readHead(conn)) return;
      const junk = new Uint8Array(4096);
      crypto.getRandomValues(junk);
      await conn.write(encoder.encode(HEAD_SSE)).catch(() => {});
      await conn.write(junk).catch(() => {});
      await sleep(50, signal);
      return;
    }
    case "tls_stall":
      // Accepts TCP and reads the ClientHello, never answers it.
      await conn.read(new Uint8Array(4096)).catch(() => null);
      await sleep(600_000, signal);
      return;
    case "storm_529": {
      if (!await readHead(conn)) return;
      const body = JSON.stringify({
        type: "error",
        error: { type: "overloaded_error", message: "Overloaded" },
      });
      await conn.write(encoder.encode(
        `HTTP/1.1 529 Overloaded\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n` +
          `connection: close\r\n\r\n${body}`,
      )).catch(() => {});
      return;
    }
  }
}

/** Starts one misbehaving upstream on a free loopback port. */
export function startMisbehaving(behaviour: Misbehaviour): MisbehavingUpstream {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const stop = new AbortController();
  const handlers = new Set<Promise<void>>();
  const upstream: MisbehavingUpstream = {
    behaviour,
    port: (listener.addr as Deno.NetAddr).port,
    accepted: 0,
    async close() {
      if (stop.signal.aborted) return;
      stop.abort();
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // closed already
        }
      }
      await accepting;
      await Promise.all(handlers);
    },
  };
  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      upstream.accepted++;
      open.add(conn);
      const handler = misbehave(behaviour, conn, stop.signal).catch(() => {}).finally(() => {
        open.delete(conn);
        try {
          conn.close();
        } catch {
          // closed already
        }
        handlers.delete(handler);
      });
      handlers.add(handler);
    }
  })();
  return upstream;
}
