/**
 * Shims around Better Auth 1.6.23's OAuth endpoints where it departs from the RFCs or the OIDF tests
 * (reference notes §4.3). Each is a no-op once upstream behaves; each has its own test in tests/auth/.
 *
 * token:       answered by auth/endpoints/token.ts (client authentication, grant checks and claims before the
 *              library; grant tracking so a replay revokes its own grant); `resource` → invalid_target.
 * introspect:  answered by auth/endpoints/introspection.ts: confidential clients only; a token the database does not hold → {"active":false} without the
 *              library; hint dropped; `no-store`.
 * revoke:      answered by auth/endpoints/revocation.ts (RFC 7009: always 200 after client authentication).
 * userinfo:    answered by auth/endpoints/userinfo.ts from the service's tables; otherwise 401 + `WWW-Authenticate: Bearer`.
 * jwks:        `Cache-Control: public, max-age=300`.
 * authorize:   POST accepted (OIDC Core §3.1.2.1); PKCE S256 required for every client; `request` and
 *              `request_uri` rejected; `max_age` enforced by forcing a fresh login; `prompt` validated.
 * discovery:   `request`/`request_uri`/`claims` parameters stated unsupported; `none` client auth listed.
 */
import { authorizeShim } from "./authorize.ts";
import { DISCOVERY_PATHS, discoveryShim } from "./discovery.ts";
import type { Forward, ShimDeps } from "./shim_types.ts";
import { tokenEndpoint } from "./token.ts";
import { revocationEndpoint } from "./revocation.ts";
import { introspectionEndpoint } from "./introspection.ts";
import { userinfoEndpoint } from "./userinfo.ts";

const PREFIX = "/api/auth/oauth2/";
const JWKS_PATH = "/api/auth/jwks";

/**
 * The JWKS is public and changes only when keys rotate: RPs may cache it for five minutes (a rotated-in key
 * is published before it signs; RPs also refetch on an unknown `kid`).
 */
async function withPublicCaching(pending: Promise<Response>): Promise<Response> {
  const response = await pending;
  if (!response.ok) return response;
  const copy = new Response(response.body, response);
  copy.headers.set("cache-control", "public, max-age=300");
  return copy;
}

/** Runs `request` through the shim for its endpoint, if any. */
export function shimOAuth(request: Request, forward: Forward, deps: ShimDeps): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (DISCOVERY_PATHS.has(path)) return discoveryShim(request, forward);
  if (path === JWKS_PATH) return withPublicCaching(forward(request));
  if (!path.startsWith(PREFIX)) return forward(request);
  switch (path.slice(PREFIX.length)) {
    case "token":
      return request.method === "POST" ? tokenEndpoint(request, forward, deps) : forward(request);
    case "introspect":
      return request.method === "POST" ? introspectionEndpoint(request, deps) : forward(request);
    case "revoke":
      return request.method === "POST" ? revocationEndpoint(request, deps) : forward(request);
    case "userinfo":
      return userinfoEndpoint(request, deps);
    case "authorize":
      return authorizeShim(request, forward, deps);
    default:
      return forward(request);
  }
}
