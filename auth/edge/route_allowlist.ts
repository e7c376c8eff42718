/**
 * Deny by default: the Better Auth routes reachable from outside the service. Better Auth 1.6.23 with this
 * configuration mounts 57 routes (client management, consent management, account and password routes…);
 * the OP and the pages need the few below. Every other path under `/api/auth` answers 404, with or without
 * a session, so a new plugin cannot widen the surface silently (tests/auth/route_allowlist_test.ts
 * enumerates what Better Auth registers). The pages reach `/oauth2/consent`, `/sign-in/social`,
 * `/sign-out` and the local-developer sign-in through in-process calls that do not pass this gate.
 */
import { serviceErrorResponse } from "../service_errors.ts";

/** One allowed route: exact path (under the service origin) and its methods. */
interface PublicRoute {
  path: string;
  methods: readonly string[];
  /** Only in local mode, or only deployed. */
  mode?: "local" | "deployed";
}

const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { path: "/api/auth/oauth2/authorize", methods: ["GET", "HEAD", "POST"] },
  { path: "/api/auth/oauth2/token", methods: ["POST"] },
  { path: "/api/auth/oauth2/introspect", methods: ["POST"] },
  { path: "/api/auth/oauth2/revoke", methods: ["POST"] },
  { path: "/api/auth/oauth2/userinfo", methods: ["GET", "HEAD", "POST"] },
  { path: "/api/auth/jwks", methods: ["GET", "HEAD"] },
  { path: "/api/auth/.well-known/openid-configuration", methods: ["GET", "HEAD"] },
  { path: "/api/auth/.well-known/oauth-authorization-server", methods: ["GET", "HEAD"] },
  { path: "/.well-known/oauth-authorization-server/api/auth", methods: ["GET", "HEAD"] },
  // First-party apps on the cookie domain read and end the shared session (the only credentialed CORS).
  { path: "/api/auth/get-session", methods: ["GET", "HEAD"] },
  { path: "/api/auth/sign-out", methods: ["POST"] },
  // GitHub returns the browser here; the social sign-in start is accepted from the service's own origin only.
  { path: "/api/auth/callback/github", methods: ["GET"], mode: "deployed" },
  { path: "/api/auth/sign-in/social", methods: ["POST"], mode: "deployed" },
  { path: "/api/auth/local-developer/sign-in", methods: ["POST"], mode: "local" },
];

/**
 * Paths under `/api/auth` that the service answers itself, in front of Better Auth's routes of the same
 * name (RP-initiated logout and the OP's error page): they never reach Better Auth.
 */
export const SERVICE_OWN_AUTH_PATHS: readonly string[] = [
  "/api/auth/oauth2/end-session",
  "/api/auth/error",
  "/api/auth/oauth2/device-authorization",
];

/** The allowlist, for docs and tests. */
export function publicAuthRoutes(local: boolean): { path: string; methods: readonly string[] }[] {
  return PUBLIC_ROUTES.filter((r) => !r.mode || r.mode === (local ? "local" : "deployed"))
    .map(({ path, methods }) => ({ path, methods }));
}

/** Whether an external request may reach Better Auth. */
export function isPublicAuthRoute(method: string, path: string, local: boolean): boolean {
  const upper = method.toUpperCase();
  return PUBLIC_ROUTES.some((r) =>
    r.path === path && r.methods.includes(upper) && (!r.mode || r.mode === (local ? "local" : "deployed"))
  );
}

/** The 404 every other route gets. */
export function routeNotFound(method: string, path: string): Response {
  return serviceErrorResponse("not_found", `no route for ${method} ${path}`);
}
