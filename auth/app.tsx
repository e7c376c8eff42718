/**
 * The auth service's Hono application: health, local-mode guards, Better Auth mounted at `/api/auth/*` behind
 * the RFC shims, the RFC 8414 path-inserted discovery URL, RP-initiated logout, and the `/sign-in` and
 * `/consent` pages (auth/pages/routes.tsx).
 */
import { serviceErrorResponse } from "./service_errors.ts";
import { Hono } from "hono";
import { HEALTH_PATH, healthResponse } from "@switchyard/lib/health.ts";
import { requestId, type RequestIdVariables } from "@switchyard/lib/request_id.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import { accessPolicyFor, type AuthConfig, DEFAULT_AUDIT_RETENTION_DAYS, issuerOf } from "./config.ts";
import {
  type AuthInstance,
  createBetterAuth,
  DEV_ORIGIN_HEADER,
  LOCAL_MODE_SECRET,
} from "./better_auth/mod.ts";
import type { AuthDatabase } from "./better_auth/database.ts";
import { shimOAuth } from "./endpoints/mod.ts";
import {
  asOrigin,
  effectiveOrigin,
  isAllowedLocalHost,
  wantsSecureCookies,
  withTrustedOrigin,
} from "./local/mode.ts";
import { finishLocalCookies } from "./local/cookies.ts";
import { localHostGuard, registerOriginGuards } from "./edge/guards.ts";
import { registerPageRoutes } from "./pages/routes.tsx";
import { createEndSession, END_SESSION_PATH } from "./endpoints/end_session.tsx";
import { END_SESSION_CONFIRM_PATH } from "./pages/sign_out.tsx";
import { AUTH_ERROR_PATH, renderAuthError } from "./pages/auth_error.tsx";
import { isPublicAuthRoute, routeNotFound } from "./edge/route_allowlist.ts";
import { requestLimits } from "./edge/limits.ts";
import { RateLimiter } from "./edge/rate_limit.ts";
import { withoutSessionToken } from "./edge/session_response.ts";
import { keySignerFor } from "./signing/key_signer.ts";
import { idTokenSigner } from "./signing/id_token_signer.ts";
import { GroupCommit } from "@switchyard/lib/group_commit.ts";
import { staticDocuments } from "./endpoints/static_documents.ts";
import { installGitHubStandIn } from "./local/github_stand_in.ts";
import { isStorageUnavailable, storageUnavailableResponse } from "./better_auth/storage_unavailable.ts";
import {
  DEVICE_AUTHORIZATION_PATH,
  DEVICE_PAGE_PATH,
  deviceAuthorizationEndpoint,
} from "./device/device_flow.ts";
import { registerDeviceRoutes } from "./device/device_routes.tsx";
import { BackchannelDelivery, type DeliveryOptions } from "./logout/delivery.ts";
import { holdSessionLogouts, settleHeldLogouts } from "./logout/fan_out.ts";
import { MembershipGate } from "./membership/access.ts";
import { withMembership } from "./membership/session_groups.ts";
import { type AuditEvent, pruneAudit, recordAudit } from "./audit/mod.ts";

/** Endpoints answered by the service from its own tables (no Better Auth handler, no cookies). */
const SERVICE_ANSWERED: ReadonlySet<string> = new Set([
  "/api/auth/oauth2/introspect",
  "/api/auth/oauth2/revoke",
  "/api/auth/oauth2/userinfo",
]);

/** The token endpoint (RFC 6749 §3.2). */
const TOKEN_PATH = "/api/auth/oauth2/token";

/** Endpoints that use the browser session to issue something: its user is re-validated first. */
const SESSION_USES: ReadonlySet<string> = new Set([
  "/api/auth/oauth2/authorize",
  "/api/auth/oauth2/consent",
]);

const CONSENT_PATH = "/api/auth/oauth2/consent";
const SIGN_OUT_PATH = "/api/auth/sign-out";

/** Name reported by the health endpoint. */
export const AUTH_SERVICE_NAME = "auth";

/** What the auth app needs from the world. */
export interface AuthDeps {
  /** Structured logger. */
  logger: Logger;
  /** The open auth database. */
  database: AuthDatabase;
  /**
   * Back-channel logout delivery (auth/logout/delivery.ts): `onDelivery` sees each attempt after the audit log
   * recorded it, `pollMs` picks up logouts a CLI command queued; `expose` hands the running delivery to the
   * caller (tests).
   */
  backchannel?: DeliveryOptions & { expose?(delivery: BackchannelDelivery): void };
  /** Timeout of each GitHub API call of the membership gate (ms; default 5000). */
  githubTimeoutMs?: number;
  /** Clock of the membership gate (tests move it past AUTH_MEMBERSHIP_TTL). */
  now?: () => number;
}

/** How often an instance prunes the audit log (on sign-in) at most. */
const AUDIT_PRUNE_INTERVAL_MS = 3600_000;

type AppEnv = { Variables: RequestIdVariables; Bindings: { info?: Deno.ServeHandlerInfo } };

/** The request headers an internal call to `/api/auth/*` carries over from the browser's request. */
const FORWARDED_HEADERS = ["cookie", "user-agent", "x-forwarded-for", DEV_ORIGIN_HEADER];

/** Copies the browser's credentials and client facts ({@link FORWARDED_HEADERS}) onto an internal call. */
function forwardCredentials(request: Request, headers: Headers): void {
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
}

/** Builds the auth application. */
export function createAuthApp(config: AuthConfig, deps: AuthDeps): Hono<AppEnv> {
  const local = config.AUTH_LOCAL_MODE;
  const { db, client } = deps.database;
  const logger = deps.logger;
  if (config.AUTH_GITHUB_STAND_IN) installGitHubStandIn(config.AUTH_GITHUB_STAND_IN);
  const onError = (message: string, error: unknown) => logger.error(message, { error });
  let prunedAt = 0;
  const audit = async (event: AuditEvent) => {
    await recordAudit(client, event, (error) => onError("audit write failed", error));
    const now = Date.now();
    if (event.action === "sign_in" && now - prunedAt > AUDIT_PRUNE_INTERVAL_MS) {
      prunedAt = now;
      await pruneAudit(client, config.AUTH_AUDIT_RETENTION_DAYS ?? DEFAULT_AUDIT_RETENTION_DAYS, now)
        .catch((error) => onError("audit prune failed", error));
    }
  };
  const gate = new MembershipGate({
    client,
    policy: accessPolicyFor(config),
    // Resolved per call: the test-only GitHub stand-in wraps the global fetch.
    api: { fetch: (input, init) => globalThis.fetch(input, init), timeoutMs: deps.githubTimeoutMs ?? 5000 },
    secret: config.AUTH_SECRET ?? LOCAL_MODE_SECRET,
    audit,
    onError,
    now: deps.now,
    logoutQueued: () => logoutDelivery.kick(),
  });
  const secure = createBetterAuth({ config, db, secureCookies: true, logger, gate });
  const plain = local ? createBetterAuth({ config, db, secureCookies: false, logger, gate }) : secure;
  const pick = (request: Request): AuthInstance => !local || wantsSecureCookies(request) ? secure : plain;
  const base = new URL(config.AUTH_BASE_URL);
  const issuer = issuerOf(config);
  const writes = new GroupCommit(client);
  const keySigner = keySignerFor(config.AUTH_SIGNING_LIBCRYPTO);
  logger.debug(keySigner.note);
  const signJwt = idTokenSigner({
    client,
    signer: keySigner.signer,
    secret: config.AUTH_SECRET ?? LOCAL_MODE_SECRET,
    // Better Auth's JWKS endpoint mints the first key, once (auth/better_auth/signing_key.ts).
    ensureKey: () => secure.api.getJwks(),
  });

  const { expose, ...deliveryOptions } = deps.backchannel ?? {};
  const logoutDelivery = new BackchannelDelivery({
    ...deliveryOptions,
    client,
    issuer,
    sign: signJwt,
    logger,
    // Every attempt's outcome reaches the audit log (never the token), then the caller's own hook.
    onDelivery: async (event) => {
      await audit({
        action: "backchannel_logout",
        outcome: event.outcome === "delivered" ? "success" : "failure",
        userId: event.userId,
        clientId: event.clientId,
        actor: "service",
        reason: `${event.reason} ${event.outcome}${event.status ? ` ${event.status}` : ""}`,
      });
      await deliveryOptions.onDelivery?.(event);
    },
  });
  expose?.(logoutDelivery);
  const logoutQueued = () => logoutDelivery.kick();

  const sessionOf = async (request: Request) => {
    try {
      return await pick(request).api.getSession({ headers: request.headers });
    } catch {
      return null;
    }
  };

  /** Serves one `/api/auth/*` request: instance choice, shims, local cookie rules. */
  const shimDeps = {
    client,
    issuer,
    signJwt,
    writes,
    logoutQueued,
    refreshReuseSeconds: config.AUTH_REFRESH_REUSE_SECONDS ?? 0,
    gate,
    audit,
    currentSession: async (r: Request) => {
      const session = await sessionOf(r);
      if (!session) return undefined;
      return { createdAt: new Date(session.session.createdAt).getTime(), userId: session.user.id };
    },
  };

  const serveAuth = async (incoming: Request): Promise<Response> => {
    const path = new URL(incoming.url).pathname;
    // The back-channel endpoints the service answers itself set no cookie and never reach Better Auth's
    // origin check: local mode's request and cookie rewriting has nothing to do there.
    if (SERVICE_ANSWERED.has(path)) return await shimOAuth(incoming, (r) => pick(r).handler(r), shimDeps);
    if (path === TOKEN_PATH) {
      // Server-to-server, no session: the service answers every grant but the code exchange itself, so local
      // mode's Origin default goes on the forwarded request only, not on a copy of every token request.
      const instance = pick(incoming);
      const forward = local
        ? (r: Request) => instance.handler(withTrustedOrigin(r, config.AUTH_BASE_URL))
        : (r: Request) => instance.handler(r);
      const response = await shimOAuth(incoming, forward, shimDeps);
      return local
        ? await finishLocalCookies(client, incoming, incoming.headers.get("cookie"), response)
        : response;
    }
    const request = local ? withTrustedOrigin(incoming, config.AUTH_BASE_URL) : incoming;
    let userId: string | undefined;
    let endingSession: string | undefined;
    if (SESSION_USES.has(path) || path === SIGN_OUT_PATH) {
      // A session used to authorize or consent is re-validated first (ended if membership was lost).
      const session = await sessionOf(request);
      userId = session?.user.id;
      if (session && path === SIGN_OUT_PATH && request.method === "POST") endingSession = session.session.id;
      if (session && path !== SIGN_OUT_PATH) await gate.revalidateUser(session.user.id);
    }
    const consent = path === CONSENT_PATH && request.method === "POST"
      ? await request.clone().json().catch(() => undefined) as
        | { accept?: unknown; oauth_query?: unknown }
        | undefined
      : undefined;
    const instance = pick(request);
    const cookieHeader = request.headers.get("cookie");
    // Sign-out: the session's back-channel logouts are queued before Better Auth deletes the session (which
    // clears the tokens' session ids), released once it did, and sent in the background.
    if (endingSession) await client.execute(holdSessionLogouts(endingSession));
    const response = await shimOAuth(request, (r) => instance.handler(r), shimDeps);
    if (endingSession) await client.execute(settleHeldLogouts(endingSession, response.ok));
    if (consent && userId) {
      const query = new URLSearchParams(typeof consent.oauth_query === "string" ? consent.oauth_query : "");
      await audit({
        action: "consent",
        outcome: response.ok ? "success" : "failure",
        userId,
        clientId: query.get("client_id"),
        actor: "user",
        reason: consent.accept === true ? `allow ${query.get("scope") ?? ""}`.trim() : "deny",
      });
    }
    if (path === SIGN_OUT_PATH && userId && response.ok) {
      await audit({ action: "logout", outcome: "success", userId, actor: "user" });
    }
    const finished = local ? await finishLocalCookies(client, request, cookieHeader, response) : response;
    if (endingSession && response.ok) logoutQueued();
    return path === "/api/auth/get-session"
      ? await withMembership(await withoutSessionToken(finished), gate)
      : finished;
  };

  /** An external request to `/api/auth/*`: only the allowlisted routes reach Better Auth. */
  const servePublicAuth = (request: Request): Promise<Response> | Response => {
    const path = new URL(request.url).pathname;
    if (!isPublicAuthRoute(request.method, path, local)) return routeNotFound(request.method, path);
    return serveAuth(request);
  };

  /** Calls an auth endpoint on behalf of a page form, as JSON, forwarding the browser's credentials. */
  const callAuth = (request: Request, path: string, body: unknown): Promise<Response> => {
    const headers = new Headers({
      "content-type": "application/json",
      accept: "application/json",
      "sec-fetch-mode": "cors",
    });
    forwardCredentials(request, headers);
    // The pages' forms are same-origin posts (older pages, cached under `no-referrer`, may send `Origin: null`).
    const origin = effectiveOrigin(request, local ? new URL(request.url).origin : base.origin);
    if (origin !== null) headers.set("origin", origin);
    const url = new URL(`/api/auth${path}`, request.url);
    return serveAuth(new Request(url, { method: "POST", headers, body: JSON.stringify(body) }));
  };

  const logout = createEndSession({
    client,
    issuer,
    logoutQueued,
    secret: config.AUTH_SECRET ?? LOCAL_MODE_SECRET,
    currentSession: async (request) => {
      const session = await sessionOf(request);
      return session ? { id: session.session.id, userName: session.user.name } : undefined;
    },
    signOut: async (request) => {
      // The service signs out on the user's behalf (the logout request was validated or confirmed).
      const headers = new Headers({ "content-type": "application/json", accept: "application/json" });
      forwardCredentials(request, headers);
      const devOrigin = local ? asOrigin(request.headers.get(DEV_ORIGIN_HEADER)) : undefined;
      headers.set("origin", devOrigin ?? base.origin);
      const url = new URL("/api/auth/sign-out", base);
      const response = await serveAuth(new Request(url, { method: "POST", headers, body: "{}" }));
      await response.body?.cancel();
      return response.headers.getSetCookie();
    },
  });

  const documents = staticDocuments((path) => serveAuth(new Request(new URL(path, base))));
  const servicePort = base.port || (base.protocol === "https:" ? "443" : "80");

  const app = new Hono<AppEnv>();
  // Discovery and JWKS from memory, before anything else (auth/endpoints/static_documents.ts).
  app.use(async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return await next(); // documents are GET/HEAD only
    if (local && !isAllowedLocalHost(c.req.header("host") ?? new URL(c.req.url).host, servicePort)) {
      return await next(); // the Host guard below answers
    }
    const document = await documents(c.req.raw);
    if (document) return document;
    await next();
  });
  app.use(requestId({ logger: deps.logger }));
  if (local) app.use(localHostGuard(config.AUTH_BASE_URL));
  else if (config.AUTH_CLIENT_IP) app.use(requestLimits(config.AUTH_CLIENT_IP, new RateLimiter()));
  app.get(HEALTH_PATH, () => healthResponse(AUTH_SERVICE_NAME));
  registerOriginGuards(app, config);

  // RP-initiated logout, in the service's own layer (auth/endpoints/end_session.tsx).
  app.on(["GET", "POST"], END_SESSION_PATH, (c) => logout.endSession(c.req.raw));
  app.get(AUTH_ERROR_PATH, (c) => renderAuthError(new URL(c.req.url)));
  app.post(END_SESSION_CONFIRM_PATH, (c) => logout.confirm(c.req.raw));

  // Local `/api/auth/*` calls are served here, before any session lookup of the service's own pages.
  // RFC 8628: answered by the service (auth/device/), never by Better Auth.
  app.post(DEVICE_AUTHORIZATION_PATH, (c) =>
    deviceAuthorizationEndpoint(c.req.raw, {
      client,
      issuer,
      sign: signJwt,
      verificationUri: `${base.origin}${DEVICE_PAGE_PATH}`,
    }));
  app.all("/api/auth/*", (c) => servePublicAuth(c.req.raw));
  app.on(
    ["GET", "HEAD"],
    "/.well-known/oauth-authorization-server/api/auth",
    (c) => servePublicAuth(c.req.raw),
  );

  registerPageRoutes(app, {
    local,
    secret: config.AUTH_SECRET ?? LOCAL_MODE_SECRET,
    client,
    sessionOf,
    callAuth,
  });

  registerDeviceRoutes(app, { local, client, origin: base.origin, sessionOf, callAuth, audit });

  app.notFound((c) => serviceErrorResponse("not_found", `no route for ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => {
    if (isStorageUnavailable(error)) {
      deps.logger.warn("storage unavailable", { request_id: c.get("requestId"), error });
      return storageUnavailableResponse();
    }
    deps.logger.error("unhandled error", { request_id: c.get("requestId"), error });
    return serviceErrorResponse("server_error", "internal error");
  });
  // Discovery and JWKS already in memory are answered before the router (the middleware above loads them
  // and answers the rest): the same bytes and headers, without the router's and middleware's work.
  const routed = app.fetch;
  app.fetch = (request, env, executionCtx) => {
    if (!local || isAllowedLocalHost(request.headers.get("host") ?? new URL(request.url).host, servicePort)) {
      const document = documents.cached(request);
      if (document) return document;
    }
    return routed(request, env, executionCtx);
  };
  return app;
}
