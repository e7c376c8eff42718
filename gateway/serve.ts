/**
 * How the self-hosted gateway listens: behind the connection guard (lib/connection_guard.ts: header and
 * idle timeouts, the close after a 408, a connection cap), or on `Deno.serve` alone with
 * `GATEWAY_CONNECTION_GUARD=off`. The edge entrypoint (gateway/main.ts's `fetch`) never comes here: an edge
 * platform owns and bounds the sockets.
 */
import { startGuardedServer } from "@switchyard/lib/connection_guard.ts";
import { type FetchHandler, type RunningServer, startServer } from "@switchyard/lib/serve.ts";
import type { GatewayConfig } from "./config/mod.ts";
import { errorEnvelope } from "./errors.ts";

/** Where to listen. */
export interface GatewayListen {
  /** Interface; defaults to `127.0.0.1`. */
  hostname?: string;
  /** Port; 0 picks a free one. */
  port: number;
}

/** The settings {@link startGatewayServer} reads. */
export type GatewayServeConfig = Pick<
  GatewayConfig,
  | "GATEWAY_CONNECTION_GUARD"
  | "GATEWAY_CLIENT_HEADER_TIMEOUT_MS"
  | "GATEWAY_CLIENT_IDLE_TIMEOUT_MS"
  | "GATEWAY_MAX_CONNECTIONS"
>;

/** The answer to a connection over GATEWAY_MAX_CONNECTIONS: 503 `overloaded_error`, which SDKs retry. */
export function connectionRefusal(): Uint8Array {
  const body = JSON.stringify(
    errorEnvelope("overloaded_error", "the gateway has too many open connections; retry shortly"),
  );
  return new TextEncoder().encode(
    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n" +
      `connection: close\r\ncontent-length: ${new TextEncoder().encode(body).length}\r\n\r\n${body}`,
  );
}

/** Serves the gateway's fetch handler as GATEWAY_CONNECTION_GUARD says. */
export function startGatewayServer(
  handler: FetchHandler,
  config: GatewayServeConfig,
  listen: GatewayListen,
): Promise<RunningServer> {
  if (config.GATEWAY_CONNECTION_GUARD === "off") return startServer(handler, listen);
  return startGuardedServer(handler, {
    ...listen,
    headerTimeoutMs: config.GATEWAY_CLIENT_HEADER_TIMEOUT_MS,
    idleTimeoutMs: config.GATEWAY_CLIENT_IDLE_TIMEOUT_MS,
    maxConnections: config.GATEWAY_MAX_CONNECTIONS,
    refusal: connectionRefusal(),
  });
}
