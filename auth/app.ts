/** The auth service's Hono application. */
import { Hono } from "hono";
import { HEALTH_PATH, healthResponse } from "@switchyard/lib/health.ts";
import { requestId, type RequestIdVariables } from "@switchyard/lib/request_id.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import type { AuthConfig } from "./config.ts";

/** Name reported by the health endpoint. */
export const AUTH_SERVICE_NAME = "auth";

/** What the auth app needs from the world. */
export interface AuthDeps {
  /** Structured logger. */
  logger: Logger;
}

/** Builds the auth application. */
export function createAuthApp(_config: AuthConfig, deps: AuthDeps): Hono<{ Variables: RequestIdVariables }> {
  const app = new Hono<{ Variables: RequestIdVariables }>();
  app.use(requestId({ logger: deps.logger }));
  app.get(HEALTH_PATH, () => healthResponse(AUTH_SERVICE_NAME));
  app.notFound((c) =>
    c.json({ error: "not_found", message: `no route for ${c.req.method} ${c.req.path}` }, 404)
  );
  app.onError((error, c) => {
    deps.logger.error("unhandled error", { request_id: c.get("requestId"), error });
    return c.json({ error: "server_error", message: "internal error" }, 500);
  });
  return app;
}
