/**
 * Edge entrypoint of the gateway: `export default { fetch }`. Health is answered before configuration is
 * read; the app is built once, on first use.
 */
import { healthResponse, isHealthRequest } from "@switchyard/lib/health.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { createGatewayApp, GATEWAY_SERVICE_NAME } from "./app.ts";
import { readGatewayConfig } from "./config.ts";

let app: ReturnType<typeof createGatewayApp> | undefined;

function getApp(): ReturnType<typeof createGatewayApp> {
  if (!app) {
    const config = readGatewayConfig(Deno.env.toObject());
    app = createGatewayApp(config, {
      logger: createLogger({ level: config.LOG_LEVEL, base: { service: GATEWAY_SERVICE_NAME } }),
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
