/**
 * Shims around Better Auth 1.6.23's OAuth endpoints where it departs from the RFCs or the OIDF tests
 * (reference notes §4.3). Each is a no-op once upstream behaves; each has its own test in tests/auth/.
 *
 * token:       client authenticated before the code is consumed; `resource` rejected (GHSA-p2fr-6hmx-4528);
 *              a malformed `code_verifier` (RFC 7636 §4.1) → 400 invalid_grant, code intact;
 *              cross-client refresh → 400 invalid_grant; 401 invalid_grant → 400; PKCE mismatch →
 *              400 invalid_grant; reused code → 400 invalid_grant and its tokens revoked; `no-store`.
 * introspect:  unknown token → 200 {"active":false}; invalid_client → 401; `no-store`.
 * revoke:      unknown token → 200; invalid_client → 401.
 * userinfo:    invalid or missing token → 401 + `WWW-Authenticate: Bearer`; `no-store`.
 * authorize:   POST accepted (OIDC Core §3.1.2.1); PKCE S256 required for every client; `request` and
 *              `request_uri` rejected; `max_age` enforced by forcing a fresh login; `prompt` validated.
 * discovery:   `request`/`request_uri`/`claims` parameters stated unsupported; `none` client auth listed.
 */
import type { Client } from "@libsql/client";
import { authorizeShim } from "./authorize_shim.ts";
import { DISCOVERY_PATHS, discoveryShim } from "./discovery_shim.ts";
import { type Forward, isForm, type ShimDeps } from "./shim_types.ts";
import {
  authenticateClient,
  invalidClientResponse,
  oauthError,
  presentedCredentials,
  sha256Base64Url,
} from "./oauth_client_auth.ts";

const PREFIX = "/api/auth/oauth2/";
const CODE_TOMBSTONE_MS = 10 * 60 * 1000;
/** RFC 7636 §4.1: 43–128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** Runs `request` through the shim for its endpoint, if any. */
export function shimOAuth(request: Request, forward: Forward, deps: ShimDeps): Promise<Response> {
  const path = new URL(request.url).pathname;
  if (DISCOVERY_PATHS.has(path)) return discoveryShim(request, forward);
  if (!path.startsWith(PREFIX)) return forward(request);
  switch (path.slice(PREFIX.length)) {
    case "token":
      return request.method === "POST" ? tokenShim(request, forward, deps) : forward(request);
    case "introspect":
      return request.method === "POST"
        ? introspectOrRevokeShim(request, forward, deps, true)
        : forward(request);
    case "revoke":
      return request.method === "POST"
        ? introspectOrRevokeShim(request, forward, deps, false)
        : forward(request);
    case "userinfo":
      return userinfoShim(request, forward);
    case "authorize":
      return authorizeShim(request, forward, deps);
    default:
      return forward(request);
  }
}

function withBody(request: Request, body: string): Request {
  return new Request(request.url, { method: request.method, headers: request.headers, body });
}

async function readJson(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    return await response.clone().json();
  } catch {
    return undefined;
  }
}

function noStore(response: Response): Response {
  const copy = new Response(response.body, response);
  copy.headers.set("cache-control", "no-store");
  copy.headers.set("pragma", "no-cache");
  return copy;
}

async function tokenShim(request: Request, forward: Forward, deps: ShimDeps): Promise<Response> {
  if (!isForm(request)) return noStore(await forward(request));
  const text = await request.text();
  const form = new URLSearchParams(text);
  if (form.has("resource")) {
    return oauthError(400, "invalid_target", "the resource parameter is not supported by this server");
  }
  const creds = presentedCredentials(request.headers.get("authorization"), form);
  const auth = await authenticateClient(deps.client, creds);
  if (!auth.ok) return invalidClientResponse(auth.description, creds.basic);

  const grant = form.get("grant_type");
  const verifier = form.get("code_verifier");
  if (grant === "authorization_code" && verifier !== null && !CODE_VERIFIER.test(verifier)) {
    return noStore(
      oauthError(400, "invalid_grant", "code_verifier must be 43-128 characters of [A-Za-z0-9-._~]"),
    );
  }
  let tombstone: { key: string; userId: string; issuedAt: number } | undefined;
  if (grant === "authorization_code" && form.get("code")) {
    const hashed = await sha256Base64Url(form.get("code")!);
    const live = await deps.client.execute({
      sql: "SELECT value FROM verification WHERE identifier = ?",
      args: [hashed],
    });
    if (live.rows[0]) {
      const value = JSON.parse(String(live.rows[0].value)) as { userId?: string };
      // Token rows carry second-precision created_at (iat × 1000), so the window starts at the full second.
      const issuedAt = Math.floor(Date.now() / 1000) * 1000;
      if (value.userId) tombstone = { key: `consumed:${hashed}`, userId: value.userId, issuedAt };
    } else {
      const reused = await revokeTokensOfReusedCode(deps.client, `consumed:${hashed}`, auth.clientId);
      if (reused) {
        return oauthError(
          400,
          "invalid_grant",
          "authorization code already used; tokens issued from it are revoked",
        );
      }
    }
  }
  if (grant === "refresh_token" && form.get("refresh_token")) {
    const row = await deps.client.execute({
      sql: "SELECT client_id FROM oauth_refresh_token WHERE token = ?",
      args: [await sha256Base64Url(form.get("refresh_token")!)],
    });
    if (row.rows[0] && String(row.rows[0].client_id) !== auth.clientId) {
      return oauthError(400, "invalid_grant", "refresh token was issued to another client");
    }
  }

  const response = await forward(withBody(request, text));
  if (response.ok && tombstone) {
    await deps.client.execute({
      sql: "INSERT INTO verification (id, identifier, value, expires_at, created_at, updated_at) " +
        "VALUES (?, ?, ?, ?, ?, ?)",
      args: [
        crypto.randomUUID().replaceAll("-", ""),
        tombstone.key,
        JSON.stringify({ clientId: auth.clientId, userId: tombstone.userId, issuedAt: tombstone.issuedAt }),
        tombstone.issuedAt + CODE_TOMBSTONE_MS,
        tombstone.issuedAt,
        tombstone.issuedAt,
      ],
    });
  }
  if (response.ok) return noStore(response);
  return noStore(await normalizeTokenError(response, creds.basic));
}

/** On a replayed code: deletes the tokens of that client and user issued since the code's redemption. */
async function revokeTokensOfReusedCode(client: Client, key: string, clientId: string): Promise<boolean> {
  const found = await client.execute({
    sql: "SELECT value FROM verification WHERE identifier = ? AND expires_at > ?",
    args: [key, Date.now()],
  });
  if (!found.rows[0]) return false;
  const value = JSON.parse(String(found.rows[0].value)) as {
    clientId: string;
    userId: string;
    issuedAt: number;
  };
  if (value.clientId !== clientId) return false;
  await client.batch([
    {
      sql: "DELETE FROM oauth_access_token WHERE client_id = ? AND user_id = ? AND created_at >= ?",
      args: [value.clientId, value.userId, value.issuedAt],
    },
    {
      sql: "DELETE FROM oauth_refresh_token WHERE client_id = ? AND user_id = ? AND created_at >= ?",
      args: [value.clientId, value.userId, value.issuedAt],
    },
  ], "write");
  return true;
}

async function normalizeTokenError(response: Response, basic: boolean): Promise<Response> {
  const body = await readJson(response);
  const error = typeof body?.error === "string" ? body.error : undefined;
  const description = typeof body?.error_description === "string" ? body.error_description : "";
  if (error === "invalid_client") return invalidClientResponse(description, basic);
  if (error === "invalid_grant") return oauthError(400, "invalid_grant", description);
  if (error === "invalid_request" && /code verification failed|code_verifier/i.test(description)) {
    return oauthError(400, "invalid_grant", description);
  }
  if (error && response.status === 401) return oauthError(400, error, description);
  return response;
}

const NOT_FOUND = /not found/i;

async function introspectOrRevokeShim(
  request: Request,
  forward: Forward,
  deps: ShimDeps,
  introspect: boolean,
): Promise<Response> {
  if (!isForm(request)) return forward(request);
  const text = await request.text();
  const form = new URLSearchParams(text);
  const creds = presentedCredentials(request.headers.get("authorization"), form);
  const auth = await authenticateClient(deps.client, creds);
  if (!auth.ok) return invalidClientResponse(auth.description, creds.basic);
  if (introspect && !auth.confidential) {
    return invalidClientResponse("introspection requires a confidential client", creds.basic);
  }
  const response = await forward(withBody(request, text));
  if (!response.ok) {
    const body = await readJson(response);
    const description = typeof body?.error_description === "string" ? body.error_description : "";
    if (body?.error === "invalid_client") return invalidClientResponse(description, creds.basic);
    if (response.status === 400 && (NOT_FOUND.test(description) || body?.error === "invalid_token")) {
      return introspect
        ? noStore(Response.json({ active: false }))
        : new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
    }
  }
  return introspect ? noStore(response) : response;
}

function bearerChallenge(description?: string): Response {
  const headers = new Headers({ "cache-control": "no-store", pragma: "no-cache" });
  if (description === undefined) {
    headers.set("www-authenticate", 'Bearer realm="userinfo"');
    return new Response(null, { status: 401, headers });
  }
  headers.set("www-authenticate", `Bearer realm="userinfo", error="invalid_token"`);
  headers.set("content-type", "application/json");
  return new Response(JSON.stringify({ error: "invalid_token", error_description: description }), {
    status: 401,
    headers,
  });
}

async function userinfoShim(request: Request, forward: Forward): Promise<Response> {
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
  if (!/^bearer\s+\S/i.test(headers.get("authorization") ?? "")) return bearerChallenge();
  const response = await forward(new Request(request.url, { method: "GET", headers }));
  if (response.ok) return noStore(response);
  const body = await readJson(response);
  if (response.status === 400 || response.status === 401) {
    const description = typeof body?.error_description === "string"
      ? body.error_description
      : "invalid token";
    return bearerChallenge(description);
  }
  return noStore(response);
}
