/**
 * The gateway's upstream HTTP client: HTTP/1.1 over `Deno.connect` / `Deno.connectTls` with a keep-alive
 * pool, exposing the part of `fetch` the providers use (string or URL, method, headers, string or byte
 * body, signal → a `Response`). Why not `fetch`: on loopback Deno's fetch costs ≈ 0.2 ms per request more
 * than one write and one read on a pooled socket (bench/, docs/gateway.md), and that was most of the
 * gateway's added latency.
 *
 * Behaviour: the request goes out in one write; `accept-encoding: identity` (gzip/deflate answers are
 * still decoded); a fixed-length body is read before the Response resolves (the connection returns to the
 * pool at once), a chunked or close-delimited body is a stream (the connection returns to the pool when
 * it has been read to the end; cancelling the body closes it). A request on a pooled connection that the
 * server had already closed (nothing came back) is retried once on a new connection. Redirects are not
 * followed and proxies are not used (set GATEWAY_UPSTREAM_CLIENT=fetch for those).
 */
import {
  BufferedReader,
  ChunkedDecoder,
  Http1ProtocolError,
  readFixedBody,
  readResponseHead,
  type ResponseHead,
} from "./http1_wire.ts";

/** Options of {@link createHttp1Client}. */
export interface Http1ClientOptions {
  /** Longest time an idle pooled connection is kept (default 4 s; a server's `keep-alive: timeout` may lower it). */
  idleTimeoutMs?: number;
  /** Most idle connections kept per origin (default 32). */
  maxIdlePerOrigin?: number;
}

/** A client: a fetch-shaped function and a way to close pooled connections. */
export interface Http1Client {
  /** Performs a request (the subset of `fetch` described in the module comment). */
  fetch: (input: string | URL, init?: RequestInit) => Promise<Response>;
  /** Closes every idle connection. */
  close(): void;
}

interface Connection {
  conn: Deno.Conn;
  reader: BufferedReader;
  expires: number;
  closed: boolean;
}

const encoder = new TextEncoder();
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BAD_VALUE = /[\r\n\0]/;
const OWN_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "accept-encoding"]);

function headerLines(headers: HeadersInit | undefined): string {
  let out = "";
  const add = (name: string, value: string) => {
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new TypeError(`invalid header ${name}`);
    if (!OWN_HEADERS.has(name.toLowerCase())) out += `${name}: ${value}\r\n`;
  };
  if (headers === undefined) return out;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [name, value] of new Headers(headers)) add(name, value);
  } else for (const name in headers) add(name, (headers as Record<string, string>)[name]);
  return out;
}

function bodyBytes(body: BodyInit | null | undefined): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError("the upstream client sends only string or byte bodies");
}

function requestBytes(method: string, url: URL, init: RequestInit | undefined): Uint8Array {
  const body = bodyBytes(init?.body);
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n` +
    headerLines(init?.headers);
  if (!/\r\nuser-agent:/i.test(head)) head += "user-agent: switchyard-gateway\r\n";
  if (!/\r\naccept:/i.test(head)) head += "accept: */*\r\n";
  head += "accept-encoding: identity\r\n";
  if (body !== undefined || method === "POST" || method === "PUT") {
    head += `content-length: ${body?.length ?? 0}\r\n`;
  }
  head += "\r\n";
  const headBytes = encoder.encode(head);
  if (!body) return headBytes;
  const all = new Uint8Array(headBytes.length + body.length);
  all.set(headBytes);
  all.set(body, headBytes.length);
  return all;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

function keepAliveOf(head: ResponseHead): { reuse: boolean; timeoutMs?: number } {
  const connection = head.headers.get("connection")?.toLowerCase() ?? "";
  const reuse = head.minor === 1 ? !connection.includes("close") : connection.includes("keep-alive");
  const hint = /timeout=(\d+)/i.exec(head.headers.get("keep-alive") ?? "");
  return { reuse, timeoutMs: hint ? Math.max(0, Number(hint[1]) * 1000 - 1000) : undefined };
}

type Bytes = Uint8Array<ArrayBuffer>;

function decoded(body: ReadableStream<Bytes>, head: ResponseHead): ReadableStream<Bytes> {
  const coding = head.headers.get("content-encoding")?.trim().toLowerCase();
  if (!coding || coding === "identity") return body;
  head.headers.delete("content-encoding");
  head.headers.delete("content-length");
  const format = coding === "gzip" || coding === "x-gzip"
    ? "gzip"
    : coding === "deflate"
    ? "deflate"
    : undefined;
  if (format) {
    return body.pipeThrough(new DecompressionStream(format) as unknown as TransformStream<Bytes, Bytes>);
  }
  throw new Http1ProtocolError(`unsupported content-encoding ${coding}`);
}

/** Creates a pooled HTTP/1.1 client. */
export function createHttp1Client(options: Http1ClientOptions = {}): Http1Client {
  const idleTimeoutMs = options.idleTimeoutMs ?? 4_000;
  const maxIdle = options.maxIdlePerOrigin ?? 32;
  const idle = new Map<string, Connection[]>();

  const destroy = (c: Connection) => {
    if (c.closed) return;
    c.closed = true;
    try {
      c.conn.close();
    } catch {
      // already closed
    }
  };
  const take = (origin: string): Connection | undefined => {
    const list = idle.get(origin);
    const now = performance.now();
    for (let c = list?.pop(); c; c = list?.pop()) {
      if (c.expires > now) return c;
      destroy(c);
    }
    return undefined;
  };
  const release = (origin: string, c: Connection, timeoutMs?: number) => {
    let list = idle.get(origin);
    if (!list) idle.set(origin, list = []);
    if (c.closed || list.length >= maxIdle) return destroy(c);
    c.expires = performance.now() + Math.min(idleTimeoutMs, timeoutMs ?? idleTimeoutMs);
    list.push(c);
  };
  const open = async (url: URL): Promise<Connection> => {
    const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const conn = url.protocol === "https:"
      ? await Deno.connectTls({ hostname, port: Number(url.port || 443), alpnProtocols: ["http/1.1"] })
      : await Deno.connect({ hostname, port: Number(url.port || 80) });
    if ("setNoDelay" in conn) (conn as Deno.TcpConn).setNoDelay(true);
    return { conn, reader: new BufferedReader(conn), expires: 0, closed: false };
  };

  const respond = (
    origin: string,
    c: Connection,
    head: ResponseHead,
    method: string,
    done: () => void,
  ): Promise<Response> | Response => {
    const { reuse, timeoutMs } = keepAliveOf(head);
    const finish = (ok: boolean) => {
      done();
      if (ok && reuse) release(origin, c, timeoutMs);
      else destroy(c);
    };
    const init = { status: head.status, statusText: head.statusText, headers: head.headers };
    if (method === "HEAD" || head.status === 204 || head.status === 304) {
      finish(true);
      return new Response(null, init);
    }
    const chunked = /(^|,)\s*chunked\s*$/i.test(head.headers.get("transfer-encoding") ?? "");
    const length = head.headers.get("content-length");
    if (!chunked && length !== null && /^\d+$/.test(length.trim())) {
      return readFixedBody(c.reader, Number(length)).then((bytes) => {
        finish(true);
        const coding = head.headers.get("content-encoding");
        if (!coding || coding.toLowerCase() === "identity") return new Response(bytes, init);
        return new Response(decoded(new Blob([bytes]).stream(), head), init);
      });
    }
    const decoder = chunked ? new ChunkedDecoder(c.reader) : undefined;
    const next = decoder ? () => decoder.next() : async () => {
      if (c.reader.buffered === 0 && !(await c.reader.fill())) return null;
      return c.reader.take(c.reader.buffered);
    };
    const body = new ReadableStream<Bytes>({
      async pull(controller) {
        try {
          const piece = await next();
          if (piece) return controller.enqueue(piece);
          finish(decoder !== undefined);
          controller.close();
        } catch (error) {
          finish(false);
          controller.error(
            new TypeError("upstream connection failed in the middle of the body", { cause: error }),
          );
        }
      },
      cancel() {
        finish(false);
      },
    });
    return new Response(decoded(body, head), init);
  };

  const request = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === "string" ? new URL(input) : input;
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`unsupported URL ${url.protocol}`);
    }
    const method = (init?.method ?? "GET").toUpperCase();
    const bytes = requestBytes(method, url, init);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const origin = url.origin;
    for (let attempt = 0;; attempt++) {
      const pooled = attempt === 0 ? take(origin) : undefined;
      const c = pooled ?? await open(url);
      const receivedBefore = c.reader.received;
      const onAbort = () => destroy(c);
      signal?.addEventListener("abort", onAbort, { once: true });
      const done = () => signal?.removeEventListener("abort", onAbort);
      try {
        await writeAll(c.conn, bytes);
        const head = await readResponseHead(c.reader);
        return await respond(origin, c, head, method, done);
      } catch (error) {
        done();
        destroy(c);
        if (signal?.aborted) throw signal.reason;
        // A pooled connection the server had closed while idle: nothing came back, so nothing was processed.
        if (pooled && c.reader.received === receivedBefore) continue;
        throw new TypeError(`upstream request failed: ${error instanceof Error ? error.message : error}`, {
          cause: error,
        });
      }
    }
  };

  return {
    fetch: request,
    close() {
      for (const list of idle.values()) for (const c of list.splice(0)) destroy(c);
    },
  };
}
