/**
 * Edge entrypoint of the gateway: `export default { fetch }`. Health is answered before configuration is
 * read; the app is built once, on first use, and the key database is opened lazily on the first key check.
 * On an edge platform there is no connection guard: the platform owns the sockets and bounds slow clients.
 * Under `deno serve`, which bounds nothing (no header, idle or connection limit), `GATEWAY_SERVE_GUARD=
 * host:port` puts the connection guard on that public address in front of the port `deno serve` listens on
 * (which should then be `--host 127.0.0.1`); without it a warning says the sockets are unbounded. The
 * self-hosted process (`deno task start`) serves this same handler through gateway/serve.ts.
 */
import { healthResponse, isHealthRequest } from "@switchyard/lib/health.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import type { Kysely } from "kysely";
import { createGatewayApp, GATEWAY_SERVICE_NAME } from "./app.ts";
import { readGatewayConfig } from "./config/mod.ts";
import { ApiKeyStore, type KeysDatabase } from "./keys/store.ts";
import type { UsageDatabase } from "./usage/ledger.ts";
import { KeyVerifier } from "./keys/verifier.ts";
import { createIdentities } from "./identity/mod.ts";
import type { PoliciesDatabase } from "./identity/policy_store.ts";
import { createBatchedSink } from "./log_sink.ts";
import { errorEnvelope } from "./errors.ts";
import { ConfigError } from "@switchyard/lib/config.ts";
import { createConnectionGuard } from "@switchyard/lib/connection_guard.ts";
import type { FetchHandler } from "@switchyard/lib/serve.ts";
import { connectionRefusal } from "./serve.ts";
import { UsageLedger } from "./usage/ledger.ts";
import { workerLedgerStore } from "./usage/ledger_store.ts";

let app: ReturnType<typeof createGatewayApp> | undefined;
/** Requests whose response has not been fully delivered yet (counted where the platform says when it is). */
let inFlight = 0;
/** Set by SIGTERM: new requests are refused while those under way finish. */
let draining = false;
/** Longest a SIGTERM waits for requests under way before the queued usage rows are written. */
const DRAIN_LIMIT_MS = 10_000;

function getApp(): ReturnType<typeof createGatewayApp> {
  if (!app) {
    const config = readGatewayConfig(Deno.env.toObject());
    let database: ReturnType<typeof openDatabase<KeysDatabase & UsageDatabase>> | undefined;
    const db = async () => {
      database ??= openDatabase<KeysDatabase & UsageDatabase>({
        url: config.GATEWAY_DATABASE_URL,
        authToken: config.GATEWAY_DATABASE_AUTH_TOKEN,
      }).catch((error) => {
        database = undefined; // retry the connection next time instead of failing forever
        throw error;
      });
      return (await database).db;
    };
    const apiKeys = new KeyVerifier(async () => new ApiKeyStore(await db()).activeHashes(), {
      ttlMs: config.GATEWAY_KEY_CACHE_TTL_MS,
    });
    const sink = createBatchedSink();
    globalThis.addEventListener("unload", () => sink.flush());
    const logger = createLogger({ level: config.LOG_LEVEL, base: { service: GATEWAY_SERVICE_NAME }, sink });
    const ledger = new UsageLedger({
      db,
      logger,
      retentionDays: config.GATEWAY_USAGE_RETENTION_DAYS,
      flushMs: config.GATEWAY_USAGE_FLUSH_MS,
      // A local file's native client writes synchronously: on a worker thread, off the request path.
      store: config.GATEWAY_DATABASE_URL.startsWith("file:")
        ? workerLedgerStore(config.GATEWAY_DATABASE_URL)
        : undefined,
    });
    flushOnSigterm(ledger);
    const identities = createIdentities(config, {
      keys: apiKeys,
      db: db as unknown as () => Promise<Kysely<PoliciesDatabase>>,
      logger,
      policiesTtlMs: config.GATEWAY_KEY_CACHE_TTL_MS,
    });
    app = createGatewayApp(config, {
      logger,
      keys: identities.check,
      usage: { ledger, db },
      githubOidc: identities.exchange,
    });
  }
  return app;
}

/**
 * On SIGTERM (where signals exist): refuse new requests with a retryable 503, let those under way finish (at
 * most DRAIN_LIMIT_MS: a stream can run for minutes), write every usage row — theirs included — and exit.
 */
function flushOnSigterm(ledger: UsageLedger): void {
  const onTerm = async () => {
    if (draining) return;
    draining = true;
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await ledger.flush().catch(() => {});
    // End by the signal's own default action, not Deno.exit: under `deno run --watch` (deno task dev)
    // Deno.exit ends only the watched program and the watcher lives on; the signal ends the process.
    Deno.removeSignalListener("SIGTERM", onTerm);
    Deno.kill(Deno.pid, "SIGTERM");
  };
  try {
    Deno.addSignalListener("SIGTERM", onTerm);
  } catch {
    // No signals here (an edge isolate): rows are flushed by the batch timer.
  }
}

/** The answer to a request that arrives after SIGTERM: SDKs retry a 503 `overloaded_error` elsewhere. */
function shuttingDown(): Response {
  return Response.json(errorEnvelope("overloaded_error", "the gateway is shutting down; retry"), {
    status: 503,
    headers: { "retry-after": "1", connection: "close" },
  });
}

/** Handles one request to the gateway. */
export function fetch(request: Request, info?: Deno.ServeHandlerInfo): Response | Promise<Response> {
  if (isHealthRequest(request)) return healthResponse(GATEWAY_SERVICE_NAME);
  if (draining) return shuttingDown();
  const handler = getApp();
  if (info?.completed) {
    inFlight++;
    const done = () => void inFlight--;
    info.completed.then(done, done);
  }
  return handler.fetch(request, { info });
}

/** Under `deno serve` with GATEWAY_SERVE_GUARD: the guard's handler, which every request goes through. */
let guarded: FetchHandler | undefined;

/**
 * `deno serve` calls this once it listens (edge platforms do not): it starts the connection guard when
 * GATEWAY_SERVE_GUARD asks for it, else warns that slow and idle clients are never disconnected.
 */
function onListen(addr: Deno.Addr): void {
  const local = addr as Deno.NetAddr;
  const origin = `http://${
    local.hostname.includes(":") ? `[${local.hostname}]` : local.hostname
  }:${local.port}`;
  let config;
  try {
    config = readGatewayConfig(Deno.env.toObject());
  } catch (error) {
    console.error(`error: ${error instanceof ConfigError ? error.message : String(error)}`);
    Deno.exit(1);
  }
  const target = config.GATEWAY_SERVE_GUARD;
  if (!target) {
    // The warning first: whoever waits for the listening line has seen it by then.
    console.error(
      "warning: no connection guard under deno serve: slow and idle clients are never disconnected; set " +
        "GATEWAY_SERVE_GUARD=host:port (docs/gateway.md, Slow clients) or front it with a proxy that bounds them",
    );
    console.error(`deno serve: Listening on ${origin}/`);
    return;
  }
  const guard = createConnectionGuard(fetch as FetchHandler, {
    hostname: target.hostname,
    port: target.port,
    headerTimeoutMs: config.GATEWAY_CLIENT_HEADER_TIMEOUT_MS,
    idleTimeoutMs: config.GATEWAY_CLIENT_IDLE_TIMEOUT_MS,
    maxConnections: config.GATEWAY_MAX_CONNECTIONS,
    refusal: connectionRefusal(),
  });
  let listener: Deno.Listener;
  try {
    listener = guard.bind();
  } catch (error) {
    // A second `deno serve --parallel` worker finds the public port taken: the guard pairs each client with
    // its own worker's requests, so it cannot be shared between workers.
    console.error(
      `error: GATEWAY_SERVE_GUARD cannot listen on ${target.hostname}:${target.port} (${
        error instanceof Error ? error.message : String(error)
      }); it is one per process and does not work with deno serve --parallel`,
    );
    Deno.exit(1);
  }
  guarded = guard.handler;
  const server = guard.start(listener, local.port);
  // `deno serve` ends on SIGTERM once its event loop is empty: the guard's listener and connections close
  // once the requests under way are done (the same bound as the drain), so the process can end.
  let stopping = false;
  Deno.addSignalListener("SIGTERM", async () => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + DRAIN_LIMIT_MS;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await server.shutdown();
  });
  console.error(`deno serve: Listening on ${server.url}/ (connection guard in front of ${origin})`);
}

/** What `deno serve` and edge platforms load: the handler, through the guard when one is listening. */
export default {
  fetch: (request: Request, info?: Deno.ServeHandlerInfo) =>
    guarded && info ? guarded(request, info as Deno.ServeHandlerInfo<Deno.NetAddr>) : fetch(request, info),
  onListen,
} satisfies Deno.ServeDefaultExport;
