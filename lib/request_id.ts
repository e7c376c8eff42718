/**
 * Request id middleware for Hono: accepts a well-formed incoming id or makes one, exposes it as
 * `c.get("requestId")`, echoes it on the response and writes one access-log line per request.
 */
import type { MiddlewareHandler } from "hono";
import type { Logger } from "./log.ts";

/** Variables this middleware sets on the Hono context. */
export interface RequestIdVariables {
  /** The id of the current request. */
  requestId: string;
}

/** Options for {@link requestId}. */
export interface RequestIdOptions {
  /** Response (and accepted request) header name. Defaults to `x-request-id`. */
  header?: string;
  /** Makes a new id. Defaults to a `req_` prefixed random UUID without dashes. */
  generate?: () => string;
  /** Access log; omitted means no access log. */
  logger?: Logger;
}

/** Incoming ids are trusted only if short and plain, so logs cannot be forged through them. */
const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

/** Makes a fresh request id. */
export function newRequestId(): string {
  return `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** Creates the request id middleware. */
export function requestId(
  options: RequestIdOptions = {},
): MiddlewareHandler<{ Variables: RequestIdVariables }> {
  const header = (options.header ?? "x-request-id").toLowerCase();
  const generate = options.generate ?? newRequestId;
  const logger = options.logger;
  return async (c, next) => {
    const incoming = c.req.header(header);
    const id = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : generate();
    c.set("requestId", id);
    const started = performance.now();
    await next();
    c.res.headers.set(header, id);
    logger?.info("request", {
      request_id: id,
      method: c.req.method,
      route: c.req.routePath,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
    });
  };
}
