/**
 * The connection guard's direct mode (connection_guard.ts): the guard accepts a client socket and hands it
 * to `Deno.serve`'s own HTTP machinery for that one connection (`serveHttpOnConnection`, the per-connection twin of
 * the listener server `Deno.serve` runs; reached through `Deno[Deno.internal]` as it is not public API), so no bytes are copied
 * through a loopback twin. The guard keeps the connection's abort signal: aborting it closes the socket. It
 * sees requests reach the handler and their responses delivered, never the bytes, so a request head that
 * starts arriving on an idle kept-alive connection is bounded by the idle timeout (from the last response),
 * not by the header timeout from its first byte; a new connection's head by the header timeout from accept.
 */
import type { FetchHandler } from "./serve.ts";
import { asksToClose, type GuardCloseReason } from "./_guarded_connection.ts";

/** `serveHttpOnConnection(conn, signal, handler, onError, onListen)` of Deno's ext/http (Deno 2.x). */
export type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: Deno.ServeHandler<Deno.NetAddr>,
  onError: (error: unknown) => Response | Promise<Response>,
  onListen: (scheme: string) => void,
) => { finished: Promise<void> };

/** Deno's per-connection server, or undefined on a Deno without it (the guard then copies bytes). */
export function findServeOnConnection(): ServeOnConnection | undefined {
  const symbol = (Deno as unknown as { internal?: symbol }).internal;
  if (typeof symbol !== "symbol") return undefined;
  const internals = (Deno as unknown as Record<symbol, Record<string, unknown> | undefined>)[symbol];
  const serve = internals?.serveHttpOnConnection;
  return typeof serve === "function" ? serve as ServeOnConnection : undefined;
}

/**
 * How long after a response with `connection: close` was handed over the connection is cut (the copy mode's
 * equivalent waits for its copy to be quiet 20 ms).
 */
const CLOSE_GRACE_MS = 50;

/** What a direct connection needs from its guard. */
export interface DirectConnectionHost {
  /** See ConnectionGuardOptions. */
  readonly headerTimeoutMs: number;
  /** See ConnectionGuardOptions. */
  readonly idleTimeoutMs: number;
  /** Called once when the connection is over. */
  forget(connection: DirectConnection, reason: GuardCloseReason): void;
}

/** A handler's rejection is Deno.serve's to report (its onError); the guard's side reaction ignores it. */
const ignore = () => {};

/** `Deno.serve`'s answer to a handler that throws: a bare 500 (the handler logs its own errors). */
function internalError(): Response {
  return new Response("Internal Server Error", { status: 500 });
}

/** One client connection served in place. */
export class DirectConnection {
  /** The client's address. */
  readonly remote: Deno.NetAddr;
  #host: DirectConnectionHost;
  #abort = new AbortController();
  #inFlight = 0;
  /** Since accept, until the first request reaches the handler; 0 after. */
  #headSince: number;
  /** When the last response was delivered. */
  #idleSince = 0;
  #closeAfterResponse = false;
  #reason: GuardCloseReason | undefined;
  /** The per-connection server has finished: aborting it then would fail on a closed resource. */
  #finished = false;

  constructor(client: Deno.TcpConn, host: DirectConnectionHost) {
    this.remote = client.remoteAddr;
    this.#host = host;
    this.#headSince = Date.now();
  }

  /** Serves `handler` on `client` until the connection ends (either side). */
  async run(client: Deno.TcpConn, serve: ServeOnConnection, handler: FetchHandler): Promise<void> {
    const wrapped = (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
      this.#inFlight++;
      this.#headSince = 0;
      const done = () => this.#responseDelivered();
      info.completed.then(done, done);
      const result = handler(request, info);
      if (!(result instanceof Promise)) return this.#noteResponse(result);
      // Noted beside Deno.serve, not in front of it: the handler's own promise goes back, so the response is
      // set as soon as it resolves (a chained promise cost one more promise and turn of the microtask queue
      // per request); this reaction, registered first, still runs before Deno.serve's.
      result.then(this.#onResponse, ignore);
      return result;
    };
    try {
      await serve(client, this.#abort.signal, wrapped, internalError, () => {}).finished;
    } catch {
      // the socket failed: the connection is over all the same
    }
    this.#finished = true;
    this.#closed(this.#reason ?? "client_closed");
  }

  /** Closes the connection when a deadline has passed (called by the guard's shared ticker). */
  checkDeadlines(now: number): void {
    if (this.#inFlight > 0 || this.#reason) return;
    if (this.#headSince) {
      if (now - this.#headSince >= this.#host.headerTimeoutMs) this.close("header_timeout");
    } else if (now - this.#idleSince >= this.#host.idleTimeoutMs) {
      this.close("idle_timeout");
    }
  }

  /** Closes the socket (once); `run` then ends and tells the guard. */
  close(reason: GuardCloseReason): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#cut();
  }

  /** Aborts the per-connection server (closing its socket) unless it is over already. */
  #cut(): void {
    if (!this.#finished && !this.#abort.signal.aborted) this.#abort.abort();
  }

  #responseDelivered(): void {
    if (--this.#inFlight > 0) return;
    this.#inFlight = 0;
    this.#idleSince = Date.now();
    if (!this.#closeAfterResponse || this.#reason) return;
    // `completed` resolves once hyper has the response's last bytes, not the socket: aborting at once can
    // cut them (and a graceful shutdown would wait for a body the client announced and never sent).
    setTimeout(() => {
      if (this.#inFlight === 0) this.close("close_after_response");
    }, CLOSE_GRACE_MS);
  }

  #onResponse = (response: Response) => {
    this.#noteResponse(response);
  };

  #noteResponse(response: Response): Response {
    if (asksToClose(response)) this.#closeAfterResponse = true;
    return response;
  }

  #forgotten = false;
  #closed(reason: GuardCloseReason): void {
    if (this.#forgotten) return;
    this.#forgotten = true;
    this.#host.forget(this, reason);
  }
}
