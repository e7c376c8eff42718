/**
 * Edge entrypoint of the gateway: `export default { fetch }`. Health is answered before configuration is
 * read; the app is built once, on first use, and the key database is opened lazily on the first key check.
 */
import { healthResponse, isHealthRequest } from "@switchyard/lib/health.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import { createGatewayApp, GATEWAY_SERVICE_NAME } from "./app.ts";
import { readGatewayConfig } from "./config.ts";
import { ApiKeyStore, type KeysDatabase } from "./keys/store.ts";
import { KeyVerifier } from "./keys/verifier.ts";
import { createBatchedSink } from "./log_sink.ts";

let app: ReturnType<typeof createGatewayApp> | undefined;

function getApp(): ReturnType<typeof createGatewayApp> {
  if (!app) {
    const config = readGatewayConfig(Deno.env.toObject());
    let store: Promise<ApiKeyStore> | undefined;
    const keys = new KeyVerifier(async () => {
      store ??= openDatabase<KeysDatabase>({
        url: config.GATEWAY_DATABASE_URL,
        authToken: config.GATEWAY_DATABASE_AUTH_TOKEN,
      }).then(({ db }) => new ApiKeyStore(db)).catch((error) => {
        store = undefined; // retry the connection on the next key check instead of failing forever
        throw error;
      });
      return (await store).activeHashes();
    }, { ttlMs: config.GATEWAY_KEY_CACHE_TTL_MS });
    const sink = createBatchedSink();
    globalThis.addEventListener("unload", () => sink.flush());
    app = createGatewayApp(config, {
      logger: createLogger({ level: config.LOG_LEVEL, base: { service: GATEWAY_SERVICE_NAME }, sink }),
      keys,
    });
  }
  return app;
}

/** Handles one request to the gateway. */
export function fetch(request: Request, info?: Deno.ServeHandlerInfo): Response | Promise<Response> {
  if (isHealthRequest(request)) return healthResponse(GATEWAY_SERVICE_NAME);
  return getApp().fetch(request, { info });
}

export default { fetch };
