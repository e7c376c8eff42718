/**
 * Edge entrypoint of the auth service: `export default { fetch }`, usable by `deno serve`, Deno Deploy or the
 * one-process suite. The health endpoint is answered before configuration is read, so it never opens the
 * database nor needs a secret; everything else builds the app once, on first use.
 */
import { serviceErrorResponse } from "./service_errors.ts";
import type { Env } from "@switchyard/lib/config.ts";
import { healthResponse, isHealthRequest } from "@switchyard/lib/health.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { AUTH_SERVICE_NAME, createAuthApp } from "./app.tsx";
import { LOCAL_MODE_PORT, readAuthConfig } from "./config.ts";
import { openAuthDatabase } from "./better_auth/database.ts";
import { forbiddenHostResponse, isAllowedLocalHost } from "./local/mode.ts";

/** How often the service looks for back-channel logouts queued by another process. */
const BACKCHANNEL_POLL_MS = 5000;

let app: Promise<ReturnType<typeof createAuthApp>> | undefined;

async function buildApp(): Promise<ReturnType<typeof createAuthApp>> {
  const config = readAuthConfig(Deno.env.toObject());
  const database = await openAuthDatabase(config.AUTH_DATABASE_URL, config.AUTH_DATABASE_AUTH_TOKEN);
  return createAuthApp(config, {
    logger: createLogger({ level: config.LOG_LEVEL, base: { service: AUTH_SERVICE_NAME } }),
    database,
    // Back-channel logouts a CLI command queued (auth:sessions revoke) are picked up within this interval.
    backchannel: { pollMs: BACKCHANNEL_POLL_MS },
  });
}

function getApp(): Promise<ReturnType<typeof createAuthApp>> {
  if (!app) {
    app = buildApp();
    app.catch(() => (app = undefined));
  }
  return app;
}

/**
 * Local mode is asked for by one flag of the committed local.env; the health check honours the loopback
 * Host allow-list without reading the rest of the configuration.
 */
export function localHealthRefused(request: Request, env: Env): Response | undefined {
  if (!/^(1|true|yes|on)$/i.test(env.AUTH_LOCAL_MODE ?? "")) return undefined;
  const base = env.AUTH_BASE_URL ?? `http://localhost:${LOCAL_MODE_PORT}`;
  let port = String(LOCAL_MODE_PORT);
  try {
    port = new URL(base).port || "80";
  } catch {
    // an invalid base URL is reported when the app starts; keep the default port here
  }
  const host = request.headers.get("host") ?? new URL(request.url).host;
  return isAllowedLocalHost(host, port) ? undefined : forbiddenHostResponse(host, base);
}

/** Handles one request to the auth service. */
export async function fetch(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response> {
  if (isHealthRequest(request)) {
    return localHealthRefused(request, Deno.env.toObject()) ?? healthResponse(AUTH_SERVICE_NAME);
  }
  let built: ReturnType<typeof createAuthApp>;
  try {
    built = await getApp();
  } catch (error) {
    // A deployed edge function has no start-up step: the first request reports the configuration problems
    // (key names and expectations, never secret values) to the platform log and gets a 503.
    console.error(`auth: ${error instanceof Error ? error.message : String(error)}`);
    return serviceErrorResponse("not_configured", "the auth service is not configured; see its log");
  }
  return built.fetch(request, { info });
}

export default { fetch };
