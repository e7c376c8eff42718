/**
 * The auth service's request guards, in front of every route: local mode's Host check (DNS rebinding) and
 * Origin check of every state change; in deployment, CORS on `/api/auth/*` and the same-origin check of the
 * service's own page forms (login and logout CSRF).
 */
import type { Env, Hono, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AuthConfig } from "../config.ts";
import { originTrusted } from "./cors_origin.ts";
import { END_SESSION_PATH } from "../endpoints/end_session.tsx";
import {
  checkLocalOrigin,
  effectiveOrigin,
  forbiddenHostResponse,
  invalidOriginResponse,
  isAllowedLocalHost,
  isStateChanging,
} from "../local/mode.ts";
import { END_SESSION_CONFIRM_PATH } from "../pages/sign_out.tsx";

/** The only routes with credentialed CORS (deployed), for first-party apps on the cookie domain. */
export const CREDENTIALED_CORS_PATHS: readonly string[] = ["/api/auth/get-session", "/api/auth/sign-out"];

/** Hono bindings carrying the connection info of `Deno.serve` (the peer address). */
export type GuardEnv = Env & { Bindings: { info?: Deno.ServeHandlerInfo } };

/** Local mode's DNS-rebinding defence: every route, health included, answers loopback Host names only. */
export function localHostGuard(baseUrl: string): MiddlewareHandler {
  const base = new URL(baseUrl);
  const servicePort = base.port || (base.protocol === "https:" ? "443" : "80");
  return async (c, next) => {
    if (!isAllowedLocalHost(c.req.header("host") ?? new URL(c.req.url).host, servicePort)) {
      return forbiddenHostResponse(c.req.header("host"), baseUrl);
    }
    await next();
  };
}

/** Registers the Origin checks of local mode or of a deployment (see the module comment). */
export function registerOriginGuards<E extends GuardEnv>(app: Hono<E>, config: AuthConfig): void {
  const base = new URL(config.AUTH_BASE_URL);
  if (config.AUTH_LOCAL_MODE) {
    // Better Auth checks Origin only when cookies are present; local mode checks every state change.
    app.use(async (c, next) => {
      // A POST to end-session changes nothing: it is answered with a 303 to the same request as GET.
      if (!isStateChanging(c.req.method) || c.req.path === END_SESSION_PATH) return await next();
      const peer = c.env?.info?.remoteAddr;
      const denied = checkLocalOrigin(
        c.req.raw,
        config.AUTH_BASE_URL,
        peer && "hostname" in peer ? peer.hostname : undefined,
      );
      if (denied) return denied;
      await next();
    });
    return;
  }
  // Credentialed CORS only where first-party apps need it: reading and ending the shared session. The OAuth
  // front channel (/oauth2/*) has none: a script on a sibling subdomain must not read a code, a consent or a
  // token (it still sends the SameSite=Lax cookie, so those routes also refuse scripts and foreign origins).
  const firstParty = cors({
    origin: (origin) => originTrusted(config, origin) ? origin : null,
    credentials: true,
    allowMethods: ["GET", "POST", "OPTIONS"],
  });
  for (const path of CREDENTIALED_CORS_PATHS) app.use(path, firstParty);
  // The pages' forms (sign-in start, consent, sign-out confirmation) and the social sign-in start are posted
  // from the service's own pages only (login and logout CSRF, also from sibling subdomains).
  app.on(
    "POST",
    ["/sign-in/*", "/consent", END_SESSION_CONFIRM_PATH, "/api/auth/sign-in/*"],
    async (c, next) => {
      const origin = effectiveOrigin(c.req.raw, base.origin);
      if (origin === base.origin) return await next();
      return invalidOriginResponse(
        `Invalid origin: ${JSON.stringify(origin)} is not accepted; accepted origins: ${base.origin}`,
      );
    },
  );
}
