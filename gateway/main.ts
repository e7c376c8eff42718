/**
 * Edge entrypoint of the gateway: `export default { fetch }`. Health is answered before configuration is
 * read; the app is built once, on first use, and the key database is opened lazily on the first key check.
 * Served this way (an edge platform, `deno serve`) there is no connection guard: the platform owns the sockets
 * and bounds slow clients. The self-hosted process serves this same handler through gateway/serve.ts.
 */
import { healthResponse, isHealthRequest } from "@switchyard/lib/health.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import type { Kysely } from "kysely";
import { createGatewayApp, GATEWAY_SERVICE_NAME } from "./app.ts";
import { readGatewayConfig } from "./config.ts";
import { ApiKeyStore, type KeysDatabase } from "./keys/store.ts";
import type { UsageDatabase } from "./usage/ledger.ts";
import { KeyVerifier } from "./keys/verifier.ts";
import { createIdentities } from "./identity/mod.ts";
import type { PoliciesDatabase } from "./identity/policy_store.ts";
import { createBatchedSink } from "./log_sink.ts";
import { errorEnvelope } from "./errors.ts";
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

export default { fetch };
