/**
 * The deployed service's request limits, in front of every route: requests per client address and route
 * group, and failed client authentications (401 at token, introspection, revocation) per address and per
 * OAuth client id. Over a limit: 429 with `Retry-After`. Local mode has no limits (one developer, loopback).
 */
import { serviceErrorResponse } from "../service_errors.ts";
import type { MiddlewareHandler } from "hono";
import { clientAddress, type ClientIpSource, peerAddress } from "./client_ip.ts";
import { type RateLimiter, type RateRule } from "./rate_limit.ts";
import type { GuardEnv } from "./guards.ts";

/** Requests per address and minute, by route group (first match wins). */
const ROUTE_RULES: readonly { group: string; match: RegExp; rule: RateRule }[] = [
  { group: "token", match: /^\/api\/auth\/oauth2\/token$/, rule: { max: 60, windowSeconds: 60 } },
  {
    group: "client-auth",
    match: /^\/api\/auth\/oauth2\/(introspect|revoke)$/,
    rule: { max: 300, windowSeconds: 60 },
  },
  // RFC 8628: device starts, and user-code guesses on the /device pages (codes have ≈ 34.6 bits).
  {
    group: "device",
    match: /^\/api\/auth\/oauth2\/device-authorization$|^\/device(\/|$)/,
    rule: { max: 30, windowSeconds: 60 },
  },
  { group: "userinfo", match: /^\/api\/auth\/oauth2\/userinfo$/, rule: { max: 300, windowSeconds: 60 } },
  {
    group: "sign-in",
    match: /^\/(sign-in\/|api\/auth\/(sign-in|callback)\/)/,
    rule: { max: 30, windowSeconds: 60 },
  },
  {
    group: "pages",
    match: /^\/(consent|sign-in)$|^\/api\/auth\/oauth2\/(authorize|end-session)$/,
    rule: { max: 120, windowSeconds: 60 },
  },
  { group: "api", match: /^\/api\/auth\//, rule: { max: 300, windowSeconds: 60 } },
];

/** Failed client authentications allowed per address in five minutes. */
export const FAILURES_PER_ADDRESS: RateRule = { max: 10, windowSeconds: 300 };
/**
 * Failed authentications of one client id in five minutes, from all addresses together. Higher than the
 * per-address rule: whoever knows a client id can spend this budget, and the client is refused meanwhile.
 */
export const FAILURES_PER_CLIENT: RateRule = { max: 30, windowSeconds: 300 };

const CLIENT_AUTH_PATHS = /^\/api\/auth\/oauth2\/(token|introspect|revoke|device-authorization)$/;

/** The 429 answer (OAuth-style JSON body; `Retry-After` in seconds). */
export function tooManyRequests(retryAfterSeconds: number, what: string): Response {
  return serviceErrorResponse("too_many_requests", `too many ${what}; retry after ${retryAfterSeconds} s`, {
    "retry-after": String(retryAfterSeconds),
  });
}

/** The OAuth client id a token/introspection/revocation request names (Basic or form), if readable. */
async function presentedClientId(request: Request): Promise<string | undefined> {
  const authorization = request.headers.get("authorization") ?? "";
  if (/^basic\s+/i.test(authorization)) {
    try {
      const decoded = atob(authorization.replace(/^basic\s+/i, "").trim());
      const colon = decoded.indexOf(":");
      return colon > 0 ? decodeURIComponent(decoded.slice(0, colon).replaceAll("+", " ")) : undefined;
    } catch {
      return undefined;
    }
  }
  if (
    !(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")
  ) {
    return undefined;
  }
  try {
    return new URLSearchParams(await request.clone().text()).get("client_id") ?? undefined;
  } catch {
    return undefined;
  }
}

/** Builds the limits middleware for a deployed service identifying clients by `source`. */
export function requestLimits(source: ClientIpSource, limiter: RateLimiter): MiddlewareHandler<GuardEnv> {
  return async (c, next) => {
    const path = c.req.path;
    const route = ROUTE_RULES.find((r) => r.match.test(path));
    if (!route) return await next();
    // Without the edge's identification (a request that bypassed it), the connection's own peer is the
    // client: never one bucket shared by everyone.
    const address = clientAddress(c.req.raw, source, c.env?.info) ??
      `peer:${peerAddress(c.env?.info) ?? "unknown"}`;
    const checksClient = c.req.method === "POST" && CLIENT_AUTH_PATHS.test(path);
    const clientId = checksClient ? await presentedClientId(c.req.raw) : undefined;
    if (checksClient) {
      const byAddress = limiter.over(`fail:addr:${address}`, FAILURES_PER_ADDRESS);
      if (!byAddress.allowed) {
        return tooManyRequests(byAddress.retryAfterSeconds, "failed client authentications");
      }
      if (clientId) {
        const byClient = limiter.over(`fail:client:${clientId}`, FAILURES_PER_CLIENT);
        if (!byClient.allowed) {
          return tooManyRequests(byClient.retryAfterSeconds, "failed authentications of this client");
        }
      }
    }
    const decision = limiter.hit(`${route.group}:${address}`, route.rule);
    if (!decision.allowed) return tooManyRequests(decision.retryAfterSeconds, "requests");
    await next();
    if (checksClient && c.res.status === 401) {
      limiter.hit(`fail:addr:${address}`, FAILURES_PER_ADDRESS);
      if (clientId) limiter.hit(`fail:client:${clientId}`, FAILURES_PER_CLIENT);
    }
  };
}
