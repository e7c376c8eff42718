/**
 * Shims around Better Auth 1.6.23's OAuth endpoints where it departs from the RFCs or the OIDF tests
 * (reference notes §4.3). Each is a no-op once upstream behaves; each has its own test in tests/auth/.
 *
 * token:       answered by auth/endpoints/token.ts (client authentication, grant checks and claims before the
 *              library; grant tracking so a replay revokes its own grant); `resource` → invalid_target.
 * introspect:  confidential clients only; a token the database does not hold → {"active":false} without the
 *              library; hint dropped; `no-store`.
 * revoke:      answered by auth/endpoints/revocation.ts (RFC 7009: always 200 after client authentication).
 * userinfo:    only a live access token reaches the library; otherwise 401 + `WWW-Authenticate: Bearer`.
 * jwks:        `Cache-Control: public, max-age=300`.
 * authorize:   POST accepted (OIDC Core §3.1.2.1); PKCE S256 required for every client; `request` and
 *              `request_uri` rejected; `max_age` enforced by forcing a fresh login; `prompt` validated.
 * discovery:   `request`/`request_uri`/`claims` parameters stated unsupported; `none` client auth listed.
 */
import { authorizeShim } from "./authorize.ts";
import { DISCOVERY_PATHS, discoveryShim } from "./discovery.ts";
import { type Forward, isForm, type ShimDeps } from "./shim_types.ts";
import { tokenEndpoint } from "./token.ts";
import { revocationEndpoint } from "./revocation.ts";
import { introspectionFor, userinfoFor } from "./token_info.ts";
import { authenticateClient, CLIENT_AUTH_FAILED, presentedCredentials } from "./client_auth.ts";
import { bearerChallenge, invalidClientResponse, oauthError } from "../oauth_error.ts";

const PREFIX = "/api/auth/oauth2/";
const JWKS_PATH = "/api/auth/jwks";
const USERINFO_REALM = "userinfo";

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
      return request.method === "POST" ? introspectShim(request, deps) : forward(request);
    case "revoke":
      return request.method === "POST" ? revocationEndpoint(request, deps) : forward(request);
    case "userinfo":
      return userinfoShim(request, deps);
    case "authorize":
      return authorizeShim(request, forward, deps);
    default:
      return forward(request);
  }
}

function noStore(response: Response): Response {
  const copy = new Response(response.body, response);
  copy.headers.set("cache-control", "no-store");
  copy.headers.set("pragma", "no-cache");
  return copy;
}

/**
 * Introspection: the client authenticates (confidential only); a token the database does not hold as an
 * access or refresh token is `{"active":false}` without reaching the library (whose JWT path answers a
 * forged or foreign JWT with a 500); the hint is dropped (1.6.23 treats it as a hard filter).
 */
async function introspectShim(request: Request, deps: ShimDeps): Promise<Response> {
  if (!isForm(request)) {
    return oauthError(
      "invalid_request",
      "the introspection request must be application/x-www-form-urlencoded",
    );
  }
  const form = new URLSearchParams(await request.text());
  const creds = presentedCredentials(request.headers.get("authorization"), form);
  const auth = await authenticateClient(deps.client, creds);
  if (!auth.ok) return invalidClientResponse(auth.description, creds.basic);
  if (!auth.confidential) return invalidClientResponse(CLIENT_AUTH_FAILED, creds.basic);
  const token = form.get("token");
  if (!token) return oauthError("invalid_request", "token is required");
  return noStore(Response.json(await introspectionFor(deps.client, token, auth.clientId, deps.issuer)));
}

async function userinfoShim(request: Request, deps: ShimDeps): Promise<Response> {
  const headers = new Headers(request.headers);
  if (request.method === "POST") {
    // OIDC Core §5.3.1: POST with the token in the header or (RFC 6750 §2.2) in a form body; 1.6.23 takes
    // only the header and rejects a bodiless POST with 415, so the request is re-issued as a GET.
    const form = isForm(request) ? new URLSearchParams(await request.text()) : undefined;
    const bodyToken = form?.get("access_token");
    if (bodyToken && !headers.has("authorization")) headers.set("authorization", `Bearer ${bodyToken}`);
    headers.delete("content-type");
    headers.delete("content-length");
  }
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  if (!bearer) return bearerChallenge(USERINFO_REALM);
  const answer = await userinfoFor(deps.client, bearer[1]);
  if ("error" in answer) return bearerChallenge(USERINFO_REALM, answer.error);
  return noStore(Response.json(answer.claims));
}
