/** Starting HTTP servers on loopback, shared by the local suite and integration tests. */

/** A fetch handler as exported by an edge entrypoint. */
export type FetchHandler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/** A running server. */
export interface RunningServer {
  /** Base URL without trailing slash, for example `http://127.0.0.1:37960`. */
  url: string;
  /** The bound port (useful with port 0). */
  port: number;
  /** Stops accepting connections and waits for in-flight requests. */
  shutdown(): Promise<void>;
}

/** Options for {@link startServer}. */
export interface StartServerOptions {
  /** Interface to bind. Defaults to `127.0.0.1`. */
  hostname?: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** Called once the server listens. */
  onListen?: (server: RunningServer) => void;
}

/** Serves `handler` and resolves once it listens. */
export function startServer(handler: FetchHandler, options: StartServerOptions): Promise<RunningServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname,
      port: options.port,
      onListen: (addr) => {
        const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
        const running: RunningServer = {
          url: `http://${host}:${addr.port}`,
          port: addr.port,
          shutdown: () => server.shutdown(),
        };
        options.onListen?.(running);
        resolve(running);
      },
    }, handler as Deno.ServeHandler<Deno.NetAddr>);
  });
}
