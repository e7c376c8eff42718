/** The gateway's Hono application. */
import { Hono } from "hono";
import { HEALTH_PATH, healthResponse } from "@switchyard/lib/health.ts";
import { requestId, type RequestIdVariables } from "@switchyard/lib/request_id.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import type { GatewayConfig } from "./config.ts";

/** Name reported by the health endpoint. */
export const GATEWAY_SERVICE_NAME = "gateway";

/** What the gateway needs from the world. */
export interface GatewayDeps {
  /** Structured logger. */
  logger: Logger;
}

/** Builds the gateway application. */
export function createGatewayApp(
  _config: GatewayConfig,
  deps: GatewayDeps,
): Hono<{ Variables: RequestIdVariables }> {
  const app = new Hono<{ Variables: RequestIdVariables }>();
  app.use(requestId({ header: "request-id", logger: deps.logger }));
  app.get(HEALTH_PATH, () => healthResponse(GATEWAY_SERVICE_NAME));
  app.notFound((c) =>
    c.json({
      type: "error",
      error: { type: "not_found_error", message: `no route for ${c.req.method} ${c.req.path}` },
    }, 404)
  );
  app.onError((error, c) => {
    deps.logger.error("unhandled error", { request_id: c.get("requestId"), error });
    return c.json({ type: "error", error: { type: "api_error", message: "internal error" } }, 500);
  });
  return app;
}
