/**
 * The gateway's upstream HTTP client: HTTP/1.1 over `Deno.connect` (TLS on top for https://) with a keep-alive
 * pool, exposing the part of `fetch` the providers use (string or URL, method, headers, string or byte
 * body, signal → a `Response`). Why not `fetch`: on loopback Deno's fetch costs ≈ 0.2 ms per request more
 * than one write and one read on a pooled socket (bench/, docs/gateway.md), and that was most of the
 * gateway's added latency.
 *
 * Behaviour: the request goes out in one write; `accept-encoding: identity` (gzip/deflate answers are
 * still decoded); a fixed-length body is read before the response resolves (the connection returns to the
 * pool at once), a chunked or close-delimited body is read on demand, through `reader()` or `body` (the
 * connection returns to the pool when it has been read to the end; cancelling the body closes it). A request on a pooled connection that the
 * server had already closed (nothing came back) is retried once on a new connection. Redirects are not
 * followed and proxies are not used (set GATEWAY_UPSTREAM_CLIENT=fetch for those).
 */
import type { BodyReader } from "./response.ts";
import { decoded, Http1Response, streamOf } from "./http1_response.ts";
import { connectTls } from "./http1_tls.ts";
import {
  BufferedReader,
  ChunkedDecoder,
  headerValue,
  Http1ProtocolError,
  readFixedBody,
  readResponseHead,
  type ResponseHead,
} from "./http1_wire.ts";
import {
  T_UPSTREAM_BYTES,
  T_UPSTREAM_CALL,
  T_UPSTREAM_HEAD,
  T_UPSTREAM_RESPONSE,
  T_UPSTREAM_SEND,
  T_UPSTREAM_WRITTEN,
  timelineMark,
} from "../bench_timeline.ts";

export { Http1Response };
export { tlsRefusal, TlsRefusedError } from "./http1_tls.ts";

/** Options of {@link createHttp1Client}. */
export interface Http1ClientOptions {
  /** Longest time an idle pooled connection is kept (default 4 s; a server's `keep-alive: timeout` may lower it). */
  idleTimeoutMs?: number;
  /** Most idle connections kept per origin (default 32). */
  maxIdlePerOrigin?: number;
  /** Longest wait for a new connection (TCP, and TLS handshake); default 10 s. */
  connectTimeoutMs?: number;
  /**
   * PEM certificates trusted for `https://` upstreams instead of the process's root store (tests; in
   * production the root store is Deno's, extended by `DENO_CERT` or `DENO_TLS_CA_STORE=system`).
   */
  caCerts?: string[];
}

/** A new connection was not established in time. */
export class ConnectTimeoutError extends Error {
  /** `ms`: the timeout that passed. */
  constructor(ms: number) {
    super(`no connection within ${ms} ms`);
    this.name = "ConnectTimeoutError";
  }
}

/**
 * Fixed-length bodies up to this size are read before the response resolves (the connection returns to the
 * pool at once); larger ones are read on demand, so a caller can bound them (and a huge answer is never
 * buffered just because it announced its length).
 */
const PRE_READ_LIMIT = 256 * 1024;

/** Largest string body (UTF-16 units) encoded straight into a buffer of three bytes per unit. */
const DIRECT_ENCODE_LIMIT = 64 * 1024;

/** Room for `content-length: <up to 16 digits>` and the blank line ending the head. */
const CONTENT_LENGTH_LINE = 40;

/** Most parsed request URLs a client keeps (the providers' endpoints; Gemini's include the model name). */
const MAX_PARSED_URLS = 256;

/** A client: a fetch-shaped function and a way to close pooled connections. */
export interface Http1Client {
  /** Performs a request (the subset of `fetch` described in the module comment). */
  fetch: (input: string | URL, init?: RequestInit) => Promise<Http1Response>;
  /** Closes every idle connection. */
  close(): void;
}

/** The parts of a request URL the client uses. */
interface Target {
  protocol: string;
  /** Host and port, as the `host` header. */
  host: string;
  hostname: string;
  port: string;
  origin: string;
  /** Path and query. */
  path: string;
}

function targetOfUrl(url: URL): Target {
  return {
    protocol: url.protocol,
    host: url.host,
    hostname: url.hostname,
    port: url.port,
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
  };
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

/** The request head's field lines, without the fields this client sets itself. */
function headerLines(
  headers: HeadersInit | undefined,
): { lines: string; userAgent: boolean; accept: boolean } {
  let lines = "";
  let userAgent = false;
  let accept = false;
  const add = (name: string, value: string) => {
    if (!TOKEN.test(name) || BAD_VALUE.test(value)) throw new TypeError(`invalid header ${name}`);
    const lower = name.toLowerCase();
    if (OWN_HEADERS.has(lower)) return;
    if (lower === "user-agent") userAgent = true;
    else if (lower === "accept") accept = true;
    lines += `${name}: ${value}\r\n`;
  };
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [name, value] of new Headers(headers)) add(name, value);
  } else if (headers) { for (const name in headers) add(name, (headers as Record<string, string>)[name]); }
  return { lines, userAgent, accept };
}

/** The request as bytes: the head and the body in one buffer, so they leave in one write. */
function requestBytes(method: string, url: Target, init: RequestInit | undefined): Uint8Array {
  const body = init?.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
    throw new TypeError("the upstream client sends only string or byte bodies");
  }
  const { lines, userAgent, accept } = headerLines(init?.headers);
  let head = `${method} ${url.path} HTTP/1.1\r\nhost: ${url.host}\r\n${lines}`;
  if (!userAgent) head += "user-agent: switchyard-gateway\r\n";
  if (!accept) head += "accept: */*\r\n";
  head += "accept-encoding: identity\r\n";
  if (typeof body === "string") {
    // The body is encoded by the native encoder, not measured in JavaScript first (a loop over its
    // characters cost more than the encoding): a small body straight into a buffer with room for any
    // encoding of it and for the head in front; a large one on its own (no ×3 buffer), then copied behind.
    if (body.length > DIRECT_ENCODE_LIMIT) {
      const bodyBytes = encoder.encode(body);
      const headBytes = encoder.encode(`${head}content-length: ${bodyBytes.length}\r\n\r\n`);
      const all = new Uint8Array(headBytes.length + bodyBytes.length);
      all.set(headBytes);
      all.set(bodyBytes, headBytes.length);
      return all;
    }
    const room = 3 * head.length + CONTENT_LENGTH_LINE;
    const all = new Uint8Array(room + 3 * body.length);
    const bodyLength = encoder.encodeInto(body, all.subarray(room)).written;
    const headBytes = encoder.encode(`${head}content-length: ${bodyLength}\r\n\r\n`);
    const start = room - headBytes.length;
    all.set(headBytes, start);
    return all.subarray(start, room + bodyLength);
  }
  if (body || method === "POST" || method === "PUT") head += `content-length: ${body?.length ?? 0}\r\n`;
  const headBytes = encoder.encode(head + "\r\n");
  if (!body) return headBytes;
  const all = new Uint8Array(headBytes.length + body.length);
  all.set(headBytes);
  all.set(body, headBytes.length);
  return all;
}

function keepAliveOf(head: ResponseHead): { reuse: boolean; timeoutMs?: number } {
  const connection = headerValue(head, "connection")?.toLowerCase() ?? "";
  const reuse = head.minor === 1 ? !connection.includes("close") : connection.includes("keep-alive");
  const hint = /timeout=(\d+)/i.exec(headerValue(head, "keep-alive") ?? "");
  return { reuse, timeoutMs: hint ? Math.max(0, Number(hint[1]) * 1000 - 1000) : undefined };
}

/** Creates a pooled HTTP/1.1 client. */
export function createHttp1Client(options: Http1ClientOptions = {}): Http1Client {
  const idleTimeoutMs = options.idleTimeoutMs ?? 4_000;
  const maxIdle = options.maxIdlePerOrigin ?? 32;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
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
  const open = async (url: Target, signal?: AbortSignal): Promise<Connection> => {
    const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
    // A timer per new connection only (pooled requests pay nothing); a host that drops SYNs would
    // otherwise hold the request for the OS's connect timeout (minutes).
    const timeout = AbortSignal.timeout(connectTimeoutMs);
    const connectSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let conn: Deno.Conn;
    try {
      conn = url.protocol === "https:"
        ? await connectTls(hostname, Number(url.port || 443), options.caCerts, connectSignal)
        : await Deno.connect({ hostname, port: Number(url.port || 80), signal: connectSignal });
    } catch (error) {
      if (timeout.aborted && !signal?.aborted) throw new ConnectTimeoutError(connectTimeoutMs);
      throw error;
    }
    if ("setNoDelay" in conn) (conn as Deno.TcpConn).setNoDelay(true);
    return { conn, reader: new BufferedReader(conn), expires: 0, closed: false };
  };

  const respond = (
    origin: string,
    c: Connection,
    head: ResponseHead,
    method: string,
    done: () => void,
  ): Promise<Http1Response> | Http1Response => {
    const { reuse, timeoutMs } = keepAliveOf(head);
    const finish = (ok: boolean) => {
      done();
      if (ok && reuse) release(origin, c, timeoutMs);
      else destroy(c);
    };
    if (method === "HEAD" || head.status === 204 || head.status === 304) {
      finish(true);
      return new Http1Response(head, null, null);
    }
    const chunked = /(^|,)\s*chunked\s*$/i.test(headerValue(head, "transfer-encoding") ?? "");
    const length = headerValue(head, "content-length");
    const fixed = !chunked && length !== null && /^\d+$/.test(length);
    if (fixed && Number(length) <= PRE_READ_LIMIT) {
      const whole = (bytes: Uint8Array<ArrayBuffer>) => {
        finish(true);
        const coding = headerValue(head, "content-encoding");
        if (!coding || coding.toLowerCase() === "identity") return new Http1Response(head, bytes, null);
        return new Http1Response(head, null, decoded(new Blob([bytes]).stream(), head));
      };
      // Usually the body came in the head's read: taken at once, without a promise, and an uncoded one as
      // its text, decoded from the read buffer (copying it into an ArrayBuffer of its own cost more).
      const size = Number(length);
      if (c.reader.buffered >= size) {
        const coding = headerValue(head, "content-encoding");
        if (coding && coding.toLowerCase() !== "identity") return whole(c.reader.take(size));
        const text = c.reader.takeText(size);
        finish(true);
        return new Http1Response(head, null, null, text);
      }
      return readFixedBody(c.reader, size).then(whole);
    }
    const decoder = chunked ? new ChunkedDecoder(c.reader) : undefined;
    let remaining = fixed ? Number(length) : Infinity;
    const next = decoder ? () => decoder.next() : async () => {
      if (remaining === 0) return null;
      if (c.reader.buffered === 0 && !(await c.reader.fill())) {
        if (fixed) throw new Http1ProtocolError("connection closed in the middle of the body");
        return null;
      }
      const n = Math.min(remaining, c.reader.buffered);
      remaining -= n;
      return c.reader.take(n);
    };
    let settled = false;
    const source: BodyReader = {
      async read() {
        if (settled) return { done: true, value: undefined };
        try {
          const piece = await next();
          if (piece) return { done: false, value: piece };
          settled = true;
          finish(decoder !== undefined || fixed);
          return { done: true, value: undefined };
        } catch (error) {
          settled = true;
          finish(false);
          throw new TypeError("upstream connection failed in the middle of the body", { cause: error });
        }
      },
      cancel() {
        if (!settled) {
          settled = true;
          finish(false);
        }
        return Promise.resolve();
      },
    };
    const coding = headerValue(head, "content-encoding");
    if (!coding || coding.toLowerCase() === "identity") return new Http1Response(head, null, source);
    return new Http1Response(head, null, decoded(streamOf(source), head));
  };

  // The providers call a few fixed URLs: each is parsed once into the parts a request needs (a URL parse and
  // its getters per request were op calls and garbage), bounded so arbitrary URLs cannot grow the map.
  const parsed = new Map<string, Target>();
  const targetOf = (input: string | URL): Target => {
    const key = typeof input === "string" ? input : input.href;
    let target = parsed.get(key);
    if (!target) {
      target = targetOfUrl(typeof input === "string" ? new URL(input) : input);
      if (parsed.size < MAX_PARSED_URLS) parsed.set(key, target);
    }
    return target;
  };

  const request = async (input: string | URL, init?: RequestInit): Promise<Http1Response> => {
    timelineMark?.(T_UPSTREAM_CALL);
    const url = targetOf(input);
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new TypeError(`unsupported URL ${url.protocol}`);
    }
    const method = (init?.method ?? "GET").toUpperCase();
    const bytes = requestBytes(method, url, init);
    timelineMark?.(T_UPSTREAM_BYTES);
    const signal = init?.signal ?? undefined;
    signal?.throwIfAborted();
    const origin = url.origin;
    for (let attempt = 0;; attempt++) {
      const pooled = attempt === 0 ? take(origin) : undefined;
      const c = pooled ?? await open(url, signal);
      const receivedBefore = c.reader.received;
      const onAbort = () => destroy(c);
      // No options object (`once`): `done` removes the listener on every path, and converting the options
      // dictionary was ≈ 1 µs per request in c=1 profiles.
      signal?.addEventListener("abort", onAbort);
      const done = () => signal?.removeEventListener("abort", onAbort);
      timelineMark?.(T_UPSTREAM_SEND);
      try {
        // The request in one write (a loop only if the kernel takes part of it), inline: no async layer.
        for (let offset = 0; offset < bytes.length;) offset += await c.conn.write(bytes.subarray(offset));
        timelineMark?.(T_UPSTREAM_WRITTEN);
        const head = await readResponseHead(c.reader);
        timelineMark?.(T_UPSTREAM_HEAD);
        const response = await respond(origin, c, head, method, done);
        timelineMark?.(T_UPSTREAM_RESPONSE);
        return response;
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
