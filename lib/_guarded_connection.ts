/**
 * One client connection of the connection guard (connection_guard.ts): the client socket, its loopback
 * twin to the internal `Deno.serve`, the two byte copies between them, and the state the deadlines read
 * (requests in flight, since when a request head has been arriving, since when the connection is idle).
 */
/** Why the guard closed a connection. */
export type GuardCloseReason =
  | "header_timeout"
  | "idle_timeout"
  | "close_after_response"
  | "client_closed"
  | "server_closed"
  | "shutdown";

/** What a connection needs from its guard. */
export interface GuardedConnectionHost {
  /** See ConnectionGuardOptions. */
  readonly headerTimeoutMs: number;
  /** See ConnectionGuardOptions. */
  readonly idleTimeoutMs: number;
  /** Called once when the connection is closed. */
  forget(connection: GuardedConnection, reason: GuardCloseReason): void;
}

/**
 * Copy buffer per direction. Small on purpose: an idle connection holds both while its reads wait, so
 * 1,000 open connections cost 16 MB; large bodies simply take more reads.
 */
const BUFFER_BYTES = 8 * 1024;
/**
 * After a `connection: close` response has been delivered to the internal socket, its last bytes may still
 * be on their way through the copy; the guard closes once the copy has been quiet this long.
 */
const CLOSE_QUIET_MS = 20;

/**
 * Whether a handler's response asks for the connection to be closed after it (`connection: close`), which
 * hyper alone does not always honour (a client that announced a body it never sent stays connected). Only an
 * error answer (status ≥ 400: the 408 of a body timeout, a 503, a 421) is looked at: reading a response's
 * headers turns `Deno.serve`'s native response back into a JavaScript one (its headers copied into a JS list,
 * then set by a slower op), ≈ 4–6 µs per request at c=1 in CPU profiles (docs/gateway.md, "The c=1 gap, leg by
 * leg"); a successful answer with `connection: close` is closed by hyper itself.
 */
export function asksToClose(response: Response): boolean {
  // A handler that resolved to something else (a bug) is answered 500 by Deno.serve: never a throw here.
  return response instanceof Response && response.status >= 400 &&
    response.headers.get("connection") === "close";
}

/** A client connection and its internal twin. */
export class GuardedConnection {
  /** The client's address (what the handler sees as `remoteAddr`). */
  readonly remote: Deno.NetAddr;
  /** The internal socket's local port: the remote port `Deno.serve` reports for its requests. */
  readonly internalPort: number;
  #client: Deno.TcpConn;
  #inner: Deno.TcpConn;
  #host: GuardedConnectionHost;
  #inFlight = 0;
  /** When bytes of a request head started arriving with none in flight (a new connection: its accept); 0: none. */
  #headSince: number;
  /** When the connection last became idle: a response delivered, or a response byte passed. */
  #idleSince: number;
  #closeAfterResponse = false;
  #lastOutbound = 0;
  #closed = false;

  constructor(client: Deno.TcpConn, inner: Deno.TcpConn, host: GuardedConnectionHost) {
    this.#client = client;
    this.#inner = inner;
    this.#host = host;
    this.remote = client.remoteAddr;
    this.internalPort = inner.localAddr.port;
    this.#headSince = this.#idleSince = Date.now();
  }

  /** Copies both ways until the connection is closed. */
  async run(): Promise<void> {
    await Promise.all([this.#inbound(), this.#outbound()]);
  }

  /** A request of this connection reached the handler. */
  requestStarted(): void {
    this.#inFlight++;
    this.#headSince = 0;
  }

  /** A response of this connection was delivered to the internal socket (or abandoned). */
  responseDelivered(): void {
    if (--this.#inFlight > 0) return;
    this.#inFlight = 0;
    this.#idleSince = Date.now();
    if (this.#closeAfterResponse) this.#closeWhenQuiet();
  }

  /** Notes a response that asks for the connection to be closed after it; returns the response. */
  noteResponse(response: Response): Response {
    if (asksToClose(response)) this.#closeAfterResponse = true;
    return response;
  }

  /** Closes the connection when a deadline has passed (called by the guard's shared ticker). */
  checkDeadlines(now: number): void {
    if (this.#inFlight > 0 || this.#closed) return;
    if (this.#headSince) {
      if (now - this.#headSince >= this.#host.headerTimeoutMs) this.close("header_timeout");
    } else if (now - Math.max(this.#idleSince, this.#lastOutbound) >= this.#host.idleTimeoutMs) {
      this.close("idle_timeout");
    }
  }

  /** Closes both sockets (once). */
  close(reason: GuardCloseReason): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const conn of [this.#client, this.#inner]) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
    this.#host.forget(this, reason);
  }

  /** Client → internal. A client that stops writing (half-close) is passed on as such. */
  async #inbound(): Promise<void> {
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      for (;;) {
        const n = await this.#client.read(buffer);
        if (n === null) {
          await this.#inner.closeWrite();
          return;
        }
        // Bytes with nothing in flight start (or continue) a request head; it must reach the handler in time.
        if (this.#inFlight === 0 && this.#headSince === 0) this.#headSince = Date.now();
        await writeAll(this.#inner, buffer.subarray(0, n));
      }
    } catch {
      this.close("client_closed");
    }
  }

  /** Internal → client. When `Deno.serve` closes its side, the client's connection goes too. */
  async #outbound(): Promise<void> {
    const buffer = new Uint8Array(BUFFER_BYTES);
    try {
      for (;;) {
        const n = await this.#inner.read(buffer);
        if (n === null) break;
        this.#lastOutbound = Date.now();
        await writeAll(this.#client, buffer.subarray(0, n));
      }
      this.close("server_closed");
    } catch {
      this.close(this.#closed ? "shutdown" : "client_closed");
    }
  }

  /** Closes once the response's last bytes have passed (the copy quiet for {@link CLOSE_QUIET_MS}). */
  #closeWhenQuiet(): void {
    const check = () => {
      if (this.#closed || this.#inFlight > 0) return;
      if (Date.now() - this.#lastOutbound < CLOSE_QUIET_MS) setTimeout(check, CLOSE_QUIET_MS);
      else this.close("close_after_response");
    };
    setTimeout(check, CLOSE_QUIET_MS);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}
