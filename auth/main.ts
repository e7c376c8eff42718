/**
 * Edge entrypoint of the auth service: `export default { fetch }`, usable by `deno serve`, Deno Deploy or the
 * one-process suite. The health endpoint is answered before configuration is read, so it never opens the
 * database nor needs a secret; everything else builds the app once, on first use.
 */
import { healthResponse, isHealthRequest } from "@switchyard/lib/health.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { AUTH_SERVICE_NAME, createAuthApp } from "./app.ts";
import { readAuthConfig } from "./config.ts";

let app: ReturnType<typeof createAuthApp> | undefined;

function getApp(): ReturnType<typeof createAuthApp> {
  if (!app) {
    const config = readAuthConfig(Deno.env.toObject());
    app = createAuthApp(config, {
      logger: createLogger({ level: config.LOG_LEVEL, base: { service: AUTH_SERVICE_NAME } }),
    });
  }
  return app;
}

/** Handles one request to the auth service. */
export function fetch(request: Request, info?: Deno.ServeHandlerInfo): Response | Promise<Response> {
  if (isHealthRequest(request)) return healthResponse(AUTH_SERVICE_NAME);
  return getApp().fetch(request, { info });
}

export default { fetch };
