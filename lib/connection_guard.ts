/**
 * A connection guard in front of `Deno.serve`, in the same process. `Deno.serve` has no request-header or
 * keep-alive idle timeout, no connection cap, and no way for a handler to close its connection (checked on
 * Deno 2.9.6), so a slowloris client holds a socket forever. The guard accepts the public connections itself
 * (`Deno.listen`), opens one loopback connection per client to an internal `Deno.serve` (127.0.0.1, port 0)
 * and copies bytes both ways, unchanged. It never parses HTTP: the handler wrapper tells it, by the internal
 * socket's port (the remote port `Deno.serve` reports), when a request reached the handler and when its
 * response was delivered (`info.completed`), and the guard only decides when to close both sockets:
 *
 * - no request in flight, and bytes of a request (or, on a new connection, nothing at all) for longer than
 *   `headerTimeoutMs` without a request reaching the handler;
 * - no request in flight and none arriving for `idleTimeoutMs` since the last response byte (keep-alive);
 * - a response carrying `connection: close` (the 408 for a slow body), once it has been delivered;
 * - over `maxConnections`, a new connection gets `refusal` (a complete HTTP response) and is closed.
 *
 * The handler sees the client's own address in `info.remoteAddr`, not the loopback one.
 */
import type { FetchHandler, RunningServer } from "./serve.ts";
import {
  type GuardCloseReason,
  GuardedConnection,
  type GuardedConnectionHost,
} from "./_guarded_connection.ts";

export type { GuardCloseReason } from "./_guarded_connection.ts";

/** Options of {@link startGuardedServer}. */
export interface ConnectionGuardOptions {
  /** Public interface. Defaults to `127.0.0.1`. */
  hostname?: string;
  /** Public port; 0 picks a free one. */
  port: number;
  /** Longest a request head may take to reach the handler once it started arriving (or since connect). */
  headerTimeoutMs: number;
  /** Longest a keep-alive connection may stay without a request. */
  idleTimeoutMs: number;
  /** Most open client connections; more are refused with `refusal`. */
  maxConnections: number;
  /** A complete HTTP response written to a connection refused over the cap. */
  refusal: Uint8Array;
  /** Told about each connection the guard closes (tests and operators' counters). */
  onClose?: (reason: GuardCloseReason, remote: Deno.NetAddr) => void;
}

/** A running guarded server. */
export interface GuardedServer extends RunningServer {
  /** Client connections open now. */
  openConnections(): number;
  /** The internal `Deno.serve` port on 127.0.0.1 (diagnostics; requests not through the guard get 421). */
  internalPort: number;
}

/** How long a refused connection may linger (reading and discarding) so the refusal is not cut by a reset. */
const REFUSAL_LINGER_MS = 500;
/** Most refused connections lingering at once; beyond it (a flood) they are closed right after the write. */
const MAX_LINGERING = 256;
/** Pause after an accept error (out of file descriptors) before accepting again. */
const ACCEPT_BACKOFF_MS = 50;

/** The `ServeHandlerInfo` the wrapped handler sees: the client's address, the same `completed`. */
class ClientInfo implements Deno.ServeHandlerInfo<Deno.NetAddr> {
  readonly remoteAddr: Deno.NetAddr;
  #inner: Deno.ServeHandlerInfo<Deno.NetAddr>;
  constructor(inner: Deno.ServeHandlerInfo<Deno.NetAddr>, remoteAddr: Deno.NetAddr) {
    this.#inner = inner;
    this.remoteAddr = remoteAddr;
  }
  get completed(): Promise<void> {
    return this.#inner.completed;
  }
}

/** A request that reached the internal port without coming through the guard (another local process). */
function notThroughGuard(): Response {
  return new Response("connect through the public port\n", { status: 421, headers: { connection: "close" } });
}

/** Starts `handler` behind a connection guard on `options.hostname:options.port` (rejects if it cannot bind). */
export function startGuardedServer(
  handler: FetchHandler,
  options: ConnectionGuardOptions,
): Promise<GuardedServer> {
  return new Promise((resolve) => {
    const guard = createConnectionGuard(handler, options);
    // The public port first: if it is taken, nothing else has been started.
    const listener = guard.bind();
    // Deno.serve binds synchronously: its address is known on return.
    const internal = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, guard.handler);
    resolve(guard.start(listener, internal.addr.port, () => internal.shutdown()));
  });
}

/**
 * A guard whose internal server someone else runs: `deno serve` (gateway/main.ts) serves `handler` on
 * 127.0.0.1, and once it listens `start` accepts on the public port and forwards there. Requests reaching
 * that server without coming through the guard get 421.
 */
export interface ConnectionGuard {
  /** The handler the internal server must serve (it tells the guard when requests start and end). */
  handler: FetchHandler;
  /** Binds the public port (throws when it cannot: taken, or no permission). */
  bind(): Deno.Listener;
  /** Accepts on `listener` and pairs each client with a connection to 127.0.0.1:`internalPort`. */
  start(listener: Deno.Listener, internalPort: number, stopInternal?: () => Promise<void>): GuardedServer;
}

/** A connection guard for `handler`, not yet listening (see {@link ConnectionGuard}). */
export function createConnectionGuard(
  handler: FetchHandler,
  options: ConnectionGuardOptions,
): ConnectionGuard {
  const byPort = new Map<number, GuardedConnection>();
  const host: GuardedConnectionHost = {
    headerTimeoutMs: options.headerTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    forget(connection, reason) {
      if (byPort.get(connection.internalPort) === connection) byPort.delete(connection.internalPort);
      if (byPort.size === 0) stopTicker();
      options.onClose?.(reason, connection.remote);
    },
  };

  const wrapped = (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
    const connection = info.remoteAddr.hostname === "127.0.0.1"
      ? byPort.get(info.remoteAddr.port)
      : undefined;
    if (!connection) return notThroughGuard();
    connection.requestStarted();
    const done = () => connection.responseDelivered();
    info.completed.then(done, done);
    const result = handler(request, new ClientInfo(info, connection.remote));
    return result instanceof Promise
      ? result.then((response) => connection.noteResponse(response))
      : connection.noteResponse(result);
  };

  // One shared timer checks every connection's deadlines (no timer per connection), only while some are open.
  const periodMs = Math.max(
    5,
    Math.min(1_000, Math.floor(Math.min(options.headerTimeoutMs, options.idleTimeoutMs) / 4)),
  );
  let ticker: ReturnType<typeof setInterval> | undefined;
  const startTicker = () => {
    ticker ??= setInterval(() => {
      const now = Date.now();
      for (const connection of byPort.values()) connection.checkDeadlines(now);
    }, periodMs);
  };
  function stopTicker() {
    if (ticker !== undefined) clearInterval(ticker);
    ticker = undefined;
  }

  return {
    handler: wrapped,
    bind: () => Deno.listen({ hostname: options.hostname ?? "127.0.0.1", port: options.port }),
    start: (listener, internalPort, stopInternal) =>
      accept(listener, internalPort, stopInternal ?? (() => Promise.resolve())),
  };

  function accept(
    listener: Deno.Listener,
    internalPort: number,
    stopInternal: () => Promise<void>,
  ): GuardedServer {
    const publicAddr = listener.addr as Deno.NetAddr;

    let open = 0;
    let stopping = false;
    const lingering = { count: 0 };
    const accepting = (async () => {
      while (!stopping) {
        let client: Deno.TcpConn;
        try {
          client = await listener.accept() as Deno.TcpConn;
        } catch (error) {
          if (stopping || error instanceof Deno.errors.BadResource) return;
          await new Promise((resolve) => setTimeout(resolve, ACCEPT_BACKOFF_MS));
          continue;
        }
        if (open >= options.maxConnections) {
          refuse(client, options.refusal, lingering);
          continue;
        }
        open++;
        connect(client).finally(() => open--);
      }
    })();

    /** Pairs a client with a new internal connection and copies until either side is done. */
    async function connect(client: Deno.TcpConn): Promise<void> {
      let inner: Deno.TcpConn;
      try {
        inner = await Deno.connect({ hostname: "127.0.0.1", port: internalPort });
      } catch {
        client.close();
        return;
      }
      client.setNoDelay(true);
      inner.setNoDelay(true);
      const connection = new GuardedConnection(client, inner, host);
      byPort.set(connection.internalPort, connection);
      startTicker();
      await connection.run();
    }

    return {
      url: `http://${
        publicAddr.hostname.includes(":") ? `[${publicAddr.hostname}]` : publicAddr.hostname
      }:${publicAddr.port}`,
      port: publicAddr.port,
      openConnections: () => open,
      internalPort,
      async shutdown() {
        stopping = true;
        listener.close();
        await accepting;
        for (const connection of [...byPort.values()]) connection.close("shutdown");
        stopTicker();
        await stopInternal();
      },
    };
  }
}

/** Writes the refusal, stops writing, and discards what the client sends for a moment before closing. */
function refuse(client: Deno.TcpConn, refusal: Uint8Array, lingering: { count: number }): void {
  const linger = lingering.count < MAX_LINGERING;
  if (linger) lingering.count++;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    if (linger) lingering.count--;
    try {
      client.close();
    } catch {
      // already closed
    }
  };
  // Without a linger the refusal (a few hundred bytes) goes into the socket's send buffer and it is closed.
  const timer = linger ? setTimeout(close, REFUSAL_LINGER_MS) : undefined;
  (async () => {
    try {
      let written = 0;
      while (written < refusal.length) written += await client.write(refusal.subarray(written));
      if (!linger) return close();
      await client.closeWrite();
      const sink = new Uint8Array(1024);
      while ((await client.read(sink)) !== null);
    } catch {
      // the client went first, or the linger ended
    }
    close();
  })();
}
