/**
 * Token revocation (RFC 7009), answered by the service: 1.6.23 answers 400 for an unknown token under
 * `token_type_hint=access_token`, tears down every refresh token of the user and client for a revoked one,
 * and can race its own rotation. Here:
 * - the client authenticates (401 otherwise); `token` is required (400 `invalid_request`);
 * - an access token of the client is deleted; a refresh token of the client revokes its grant (RFC 7009
 *   §2.1: the access tokens of the same grant go too);
 * - an unknown, expired, already revoked or another client's token → 200 and nothing happens; the hint is
 *   only an order of lookup, and unknown hint values are ignored (§2.1).
 */
import type { Client } from "@libsql/client";
import { grantOfToken, revokeGrant } from "../grants/grant_store.ts";
import { authenticateClient, presentedCredentials } from "./client_auth.ts";
import { storedTokenHash } from "../grants/token_storage.ts";
import { invalidClientResponse, oauthError } from "../oauth_error.ts";
import { isForm, type ShimDeps } from "./shim_types.ts";

/** Handles `POST /api/auth/oauth2/revoke`. */
export async function revocationEndpoint(request: Request, deps: ShimDeps): Promise<Response> {
  if (!isForm(request)) {
    return oauthError("invalid_request", "the revocation request must be application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(await request.text());
  const creds = presentedCredentials(request.headers.get("authorization"), form);
  const auth = await authenticateClient(deps.client, creds);
  if (!auth.ok) return invalidClientResponse(auth.description, creds.basic);
  const token = form.get("token");
  if (!token) return oauthError("invalid_request", "token is required");
  const tokenHash = storedTokenHash(token);
  const refreshFirst = form.get("token_type_hint") === "refresh_token";
  const attempts = refreshFirst ? [revokeRefresh, revokeAccess] : [revokeAccess, revokeRefresh];
  for (const attempt of attempts) {
    if (await attempt(deps.client, tokenHash, auth.clientId)) break;
  }
  return new Response(null, { status: 200, headers: { "cache-control": "no-store", pragma: "no-cache" } });
}

/** Deletes the client's access token; true when the token was an access token (of any client). */
async function revokeAccess(client: Client, tokenHash: string, clientId: string): Promise<boolean> {
  const found = await client.execute({
    sql: "SELECT client_id FROM oauth_access_token WHERE token = ?",
    args: [tokenHash],
  });
  if (!found.rows[0]) return false;
  if (String(found.rows[0].client_id) === clientId) {
    await client.execute({ sql: "DELETE FROM oauth_access_token WHERE token = ?", args: [tokenHash] });
  }
  return true;
}

/** Revokes the grant of the client's refresh token; true when the token was a refresh token. */
async function revokeRefresh(client: Client, tokenHash: string, clientId: string): Promise<boolean> {
  const found = await client.execute({
    sql: "SELECT id, client_id FROM oauth_refresh_token WHERE token = ?",
    args: [tokenHash],
  });
  const row = found.rows[0];
  if (!row) return false;
  if (String(row.client_id) !== clientId) return true;
  const grantId = await grantOfToken(client, tokenHash);
  if (grantId) await revokeGrant(client, grantId);
  // An untracked token (issued before grant tracking) goes alone, with the access tokens made from it.
  await client.batch([
    { sql: "DELETE FROM oauth_access_token WHERE refresh_id = ?", args: [row.id] },
    { sql: "DELETE FROM oauth_refresh_token WHERE id = ?", args: [row.id] },
  ], "write");
  return true;
}
