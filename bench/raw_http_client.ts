/**
 * A minimal HTTP/1.1 keep-alive client over one TCP connection, for `bench:auth --client raw`: one request at
 * a time (no pipelining), the request written as one buffer, the answer read by `Content-Length` or chunked
 * framing. At tens of thousands of requests per second `fetch` costs the load generator more CPU per request
 * than the documents cost the servers (docs/auth.md, "Fifth pass"), and the generator shares the machine's
 * cores with the servers; this client costs a fraction of that, so the figures say more about the servers.
 * Bench code: it trusts the servers it talks to (loopback, our own processes).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEADER_END = [13, 10, 13, 10];

function indexOfSequence(haystack: Uint8Array, needle: number[], from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** The part of a `Response` the bench reads: status, body text or JSON, cancel, clone. */
class RawAnswer {
  readonly ok: boolean;
  readonly headers = new Headers();
  constructor(readonly status: number, readonly payload: Uint8Array | null) {
    this.ok = status >= 200 && status < 300;
  }
  get body(): { cancel(): Promise<void> } | null {
    return this.payload ? { cancel: () => Promise.resolve() } : null;
  }
  text(): Promise<string> {
    return Promise.resolve(this.payload ? decoder.decode(this.payload) : "");
  }
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
  clone(): RawAnswer {
    return new RawAnswer(this.status, this.payload);
  }
}

/** One keep-alive connection to `url`'s host. */
export class RawHttpConnection {
  readonly #conn: Deno.TcpConn;
  readonly #host: string;
  #pending = new Uint8Array(0);
  readonly #chunk = new Uint8Array(64 * 1024);

  private constructor(conn: Deno.TcpConn, host: string) {
    this.#conn = conn;
    this.#host = host;
  }

  /** Connects to the host and port of `url` (http only). */
  static async open(url: string): Promise<RawHttpConnection> {
    const { hostname, port, host } = new URL(url);
    const conn = await Deno.connect({ hostname, port: Number(port || 80) });
    conn.setNoDelay(true);
    return new RawHttpConnection(conn, host);
  }

  async #fill(): Promise<void> {
    const n = await this.#conn.read(this.#chunk);
    if (n === null) throw new Error("the server closed the connection");
    const next = new Uint8Array(this.#pending.length + n);
    next.set(this.#pending);
    next.set(this.#chunk.subarray(0, n), this.#pending.length);
    this.#pending = next;
  }

  async #take(length: number): Promise<Uint8Array> {
    while (this.#pending.length < length) await this.#fill();
    const taken = this.#pending.slice(0, length);
    this.#pending = this.#pending.subarray(length);
    return taken;
  }

  async #line(): Promise<string> {
    let end: number;
    while ((end = indexOfSequence(this.#pending, [13, 10])) < 0) await this.#fill();
    const line = decoder.decode(this.#pending.subarray(0, end));
    this.#pending = this.#pending.subarray(end + 2);
    return line;
  }

  /** Sends one request and reads its whole answer (status and body; no response headers). */
  async request(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Response> {
    const bodyBytes = body === undefined ? undefined : encoder.encode(body);
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.#host}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    if (bodyBytes) head += `content-length: ${bodyBytes.length}\r\n`;
    head += "\r\n";
    const headBytes = encoder.encode(head);
    const out = bodyBytes ? new Uint8Array(headBytes.length + bodyBytes.length) : headBytes;
    if (bodyBytes) {
      out.set(headBytes);
      out.set(bodyBytes, headBytes.length);
    }
    try {
      for (let written = 0; written < out.length;) written += await this.#conn.write(out.subarray(written));
    } catch (error) {
      throw new Error("the server closed the connection", { cause: error });
    }

    let end: number;
    while ((end = indexOfSequence(this.#pending, HEADER_END)) < 0) await this.#fill();
    const lines = decoder.decode(this.#pending.subarray(0, end)).split("\r\n");
    this.#pending = this.#pending.subarray(end + 4);
    const status = Number(lines[0].split(" ")[1]);
    // Only the framing headers are read (the bench looks at status and body only).
    let contentLength = 0;
    let chunked = false;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      if (name === "content-length") contentLength = Number(line.slice(colon + 1).trim());
      if (name === "transfer-encoding") chunked = line.slice(colon + 1).toLowerCase().includes("chunked");
    }
    let payload: Uint8Array;
    if (method === "HEAD" || status === 204 || status === 304) {
      payload = new Uint8Array(0);
    } else if (chunked) {
      const parts: Uint8Array[] = [];
      for (;;) {
        const size = parseInt(await this.#line(), 16);
        if (size === 0) {
          while ((await this.#line()) !== "");
          break;
        }
        parts.push(await this.#take(size));
        await this.#take(2);
      }
      payload = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let offset = 0;
      for (const part of parts) {
        payload.set(part, offset);
        offset += part.length;
      }
    } else {
      payload = await this.#take(contentLength);
    }
    const nullBody = status === 204 || status === 304;
    // Not a `Response`: constructing one (a body stream) and cancelling it cost the generator more per
    // request than the JWKS document costs the server; the bench reads only these members.
    return new RawAnswer(status, nullBody ? null : payload) as unknown as Response;
  }

  /** Closes the connection. */
  close(): void {
    this.#conn.close();
  }
}
