/**
 * The token endpoint in front of Better Auth 1.6.23 (RFC 6749 §4.1.3, §5.2, §6; RFC 7636 §4.6; RFC 9700
 * §4.14). The service decides everything that can fail on the client's input before the library runs, so
 * that a failed request consumes nothing, and it tracks grants (auth/grants/) so a replay revokes exactly
 * the grant it belongs to:
 * - the client is authenticated first (Basic in any letter case, or the form), with one description for
 *   every failure (no client-id enumeration);
 * - `grant_type` missing → `invalid_request`; other than `authorization_code`/`refresh_token`/the device
 *   code (auth/device/) → `unsupported_grant_type`;
 * - a code is checked against its client, its `redirect_uri` and its PKCE challenge (all `invalid_grant`,
 *   code intact), then claimed once: a second redemption is a replay and revokes that code's grant only;
 * - the refresh grant is the service's own (auth/grants/refresh_grant.ts): the presented token is marked
 *   used by a conditional update, so of parallel uses one wins; a rotated or concurrently used token
 *   revokes its own grant (the family), never the user's other grants or sessions;
 * - errors are `invalid_grant` unless the client or the scope is at fault; `no-store` on every answer.
 */
import {
  claimOf,
  claimOnce,
  newGrantId,
  recordGrantTokens,
  revokeGrant,
  sweepExpiredClaims,
} from "../grants/grant_store.ts";
import {
  authenticateClient,
  CLIENT_AUTH_FAILED,
  presentedCredentials,
  sha256Base64Url,
  verifyClient,
} from "./client_auth.ts";
import { invalidClientResponse, oauthError } from "../oauth_error.ts";
import { type Forward, isForm, noStore, type ShimDeps } from "./shim_types.ts";
import { loadRefreshContext, type RefreshContext, refreshGrant } from "../grants/refresh_grant.ts";
import { deviceCodeGrant } from "../device/device_flow.ts";
import { DEVICE_CODE_GRANT } from "../device/device_client.ts";
import { decodeJwt } from "jose";
import { reusedResponse } from "../grants/refresh_reuse.ts";
import { storedTokenHash } from "../grants/token_storage.ts";

/** RFC 7636 §4.1: 43–128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** How long a redeemed code's claim outlives the code (a replay within it revokes the grant). */
const CODE_CLAIM_GRACE_MS = 10 * 60 * 1000;
/** Parameters that must not appear twice (RFC 6749 §3.2). */
const SINGLE_VALUED = [
  "grant_type",
  "code",
  "redirect_uri",
  "code_verifier",
  "refresh_token",
  "client_id",
  "client_secret",
  "scope",
  "device_code",
];

/**
 * Redemptions and rotations running in this isolate, by claim key. A request that loses a claim waits for
 * the winner to finish before revoking the grant, so the winner's own request is answered (with tokens
 * that the revocation then removes, as RFC 9700 §4.14.2 wants) instead of failing half-way.
 */
const inFlight = new Map<string, Promise<unknown>>();

/** Runs the winner's forward while losers of the same claim can wait for it. */
async function asWinner(key: string, run: () => Promise<Response>): Promise<Response> {
  const running = run();
  inFlight.set(key, running.catch(() => undefined));
  try {
    return await running;
  } finally {
    inFlight.delete(key);
  }
}

/** Waits until the winner of `key` (in this isolate) has finished. */
async function afterWinner(key: string): Promise<void> {
  await inFlight.get(key);
}

/** The code's stored authorization request, as 1.6.23 writes it into `verification.value`. */
interface StoredCode {
  /** The browser session the code was issued in (the ID token's `sid`). */
  sessionId?: string;
  query?: {
    client_id?: string;
    redirect_uri?: string;
    code_challenge?: string;
    code_challenge_method?: string;
  };
}

/** Handles `POST /api/auth/oauth2/token`. */
export async function tokenEndpoint(request: Request, forward: Forward, deps: ShimDeps): Promise<Response> {
  if (!isForm(request)) {
    return oauthError("invalid_request", "the token request must be application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(await request.text());
  const repeated = SINGLE_VALUED.find((name) => form.getAll(name).length > 1);
  if (repeated) return oauthError("invalid_request", `${repeated} must not be repeated`);
  if (form.has("resource")) {
    return oauthError("invalid_target", "the resource parameter is not supported by this server");
  }
  const creds = presentedCredentials(request.headers.get("authorization"), form);
  const grantType = form.get("grant_type");
  // A refresh reads the client, the token with its grant and the user in one statement; client
  // authentication is checked on that row exactly as on its own read.
  const presentedRefresh = grantType === "refresh_token" ? form.get("refresh_token") : null;
  const refresh = presentedRefresh && creds.clientId && !creds.malformed
    ? { hash: storedTokenHash(presentedRefresh), token: presentedRefresh }
    : undefined;
  const context = refresh ? await loadRefreshContext(deps.client, creds.clientId!, refresh.hash) : undefined;
  const auth = context ? verifyClient(context.client, creds) : await authenticateClient(deps.client, creds);
  if (!auth.ok) return invalidClientResponse(auth.description, creds.basic);

  if (!grantType) return oauthError("invalid_request", "grant_type is required");
  // Better Auth reads credentials from the form only, and Basic only when spelled "Basic ".
  form.set("client_id", auth.clientId);
  if (creds.clientSecret !== undefined) form.set("client_secret", creds.clientSecret);
  const forwardForm = () => {
    const headers = new Headers(request.headers);
    headers.delete("authorization");
    headers.delete("content-length");
    return forward(new Request(request.url, { method: "POST", headers, body: form.toString() }));
  };
  if (grantType === "authorization_code") return await codeGrant(form, auth.clientId, forwardForm, deps);
  if (grantType === "refresh_token") {
    if (!refresh || !context) return oauthError("invalid_request", "refresh_token is required");
    return await refreshTokenGrant(form, auth.clientId, refresh, context, deps);
  }
  if (grantType === DEVICE_CODE_GRANT) {
    return await deviceCodeGrant(form, auth.clientId, { ...deps, sign: deps.signJwt, verificationUri: "" });
  }
  return oauthError("unsupported_grant_type", `grant_type ${JSON.stringify(grantType)} is not supported`);
}

async function codeGrant(
  form: URLSearchParams,
  clientId: string,
  forwardForm: () => Promise<Response>,
  deps: ShimDeps,
): Promise<Response> {
  const code = form.get("code");
  if (!code) return oauthError("invalid_request", "code is required");
  const codeHash = await sha256Base64Url(code);
  const claimKey = `code:${codeHash}`;
  const found = await deps.client.execute({
    sql: "SELECT value, expires_at FROM verification WHERE identifier = ?",
    args: [codeHash],
  });
  const row = found.rows[0];
  if (!row) {
    const claim = await claimOf(deps.client, claimKey);
    if (claim && claim.clientId === clientId) {
      await revokeGrant(deps.client, claim.grantId, "token_replay");
      deps.logoutQueued?.();
      await deps.audit?.({ action: "token_replay", outcome: "refused", clientId, reason: "code_replay" });
      return oauthError(
        "invalid_grant",
        "authorization code already used; tokens issued from it are revoked",
      );
    }
    return oauthError("invalid_grant", "invalid, expired or already used authorization code");
  }
  const expiresAt = Number(row.expires_at);
  if (!(expiresAt > Date.now())) return oauthError("invalid_grant", "authorization code expired");
  let stored: StoredCode;
  try {
    stored = JSON.parse(String(row.value));
  } catch {
    return oauthError("invalid_grant", "invalid authorization code");
  }
  const query = stored.query ?? {};
  if (query.client_id !== clientId) {
    return oauthError("invalid_grant", "authorization code was issued to another client");
  }
  if (query.redirect_uri !== undefined && form.get("redirect_uri") !== query.redirect_uri) {
    return oauthError("invalid_grant", "redirect_uri does not match the authorization request");
  }
  const verifier = form.get("code_verifier");
  if (query.code_challenge) {
    if (verifier === null) return oauthError("invalid_grant", "code_verifier is required (PKCE)");
    if (!CODE_VERIFIER.test(verifier)) {
      return oauthError("invalid_grant", "code_verifier must be 43-128 characters of [A-Za-z0-9-._~]");
    }
    if (query.code_challenge_method !== "S256" || await sha256Base64Url(verifier) !== query.code_challenge) {
      return oauthError("invalid_grant", "code_verifier does not match the code_challenge");
    }
  } else if (verifier !== null) {
    return oauthError("invalid_grant", "code_verifier sent but the authorization request had no challenge");
  }
  const grantId = newGrantId();
  await sweepExpiredClaims(deps.client);
  const won = await claimOnce(deps.client, {
    key: claimKey,
    grantId,
    clientId,
    expiresAt: expiresAt + CODE_CLAIM_GRACE_MS,
  });
  if (!won) {
    // Another request redeemed the code first: this one is a replay of it.
    await afterWinner(claimKey);
    const claim = await claimOf(deps.client, claimKey);
    if (claim) {
      await revokeGrant(deps.client, claim.grantId, "token_replay");
      deps.logoutQueued?.();
    }
    await deps.audit?.({ action: "token_replay", outcome: "refused", clientId, reason: "code_replay" });
    return oauthError("invalid_grant", "authorization code already used; tokens issued from it are revoked");
  }
  return await asWinner(
    claimKey,
    async () => await finish(await withSid(await forwardForm(), stored.sessionId, deps), grantId, deps),
  );
}

async function refreshTokenGrant(
  form: URLSearchParams,
  clientId: string,
  presented: { token: string; hash: string },
  context: RefreshContext,
  deps: ShimDeps,
): Promise<Response> {
  const { token, hash: tokenHash } = presented;
  const row = context.token;
  if (!row) return oauthError("invalid_grant", "invalid or revoked refresh token");
  if (row.clientId !== clientId) {
    return oauthError("invalid_grant", "refresh token was issued to another client");
  }
  const grantId = row.grantId ?? `untracked:${tokenHash}`;
  const replayed = async () => {
    // Within AUTH_REFRESH_REUSE_SECONDS of its rotation, the same token gets the rotation's answer.
    if (deps.refreshReuseSeconds) {
      const reused = await reusedResponse(deps.client, token, tokenHash);
      if (reused) return reused;
    }
    // RFC 9700 §4.14.2: the token was used before, by the client or by a thief; end the whole grant.
    await revokeGrant(deps.client, grantId, "token_replay");
    deps.logoutQueued?.();
    await deps.audit?.({
      action: "token_replay",
      outcome: "refused",
      userId: row.userId,
      clientId,
      reason: "refresh_replay",
    });
    return oauthError("invalid_grant", "refresh token already used; its grant is revoked");
  };
  if (row.revoked) return await replayed();
  if (!(row.expiresAt > Date.now())) return oauthError("invalid_grant", "refresh token expired");
  const answer = await refreshGrant(
    {
      client: deps.client,
      issuer: deps.issuer,
      sign: deps.signJwt,
      writes: deps.writes,
      reuseSeconds: deps.refreshReuseSeconds,
      gate: deps.gate,
    },
    row,
    grantId,
    form.get("scope"),
    context,
    presented,
  );
  return answer === "replayed" ? await replayed() : answer;
}

/**
 * Every ID token carries `sid` (OIDC Back-Channel Logout 1.0 §2.1, the session the logout token names later):
 * 1.6.23 adds it only for clients with end-session enabled, so a token without it is signed again, with the
 * same claims plus the code's session id, by the service's key.
 */
async function withSid(response: Response, sessionId: string | undefined, deps: ShimDeps): Promise<Response> {
  if (!response.ok || !sessionId) return response;
  const body = await response.clone().json().catch(() => undefined) as Record<string, unknown> | undefined;
  if (!body || typeof body.id_token !== "string") return response;
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(body.id_token);
  } catch {
    return response;
  }
  if (claims.sid !== undefined) return response;
  const idToken = await deps.signJwt({ ...claims, sid: sessionId });
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...body, id_token: idToken }), { status: response.status, headers });
}

/** Records a successful answer's tokens under the grant; maps a failure to RFC 6749's codes. */
async function finish(response: Response, grantId: string, deps: ShimDeps): Promise<Response> {
  const body = await response.clone().json().catch(() => undefined) as Record<string, unknown> | undefined;
  if (response.ok && body) {
    await recordGrantTokens(deps.client, grantId, {
      accessHash: typeof body.access_token === "string" ? storedTokenHash(body.access_token) : undefined,
      refreshHash: typeof body.refresh_token === "string" ? storedTokenHash(body.refresh_token) : undefined,
    });
    return noStore(response);
  }
  if (response.status >= 500) return noStore(response);
  const error = typeof body?.error === "string" ? body.error : "invalid_grant";
  const description = typeof body?.error_description === "string"
    ? body.error_description
    : "the grant was refused";
  if (error === "invalid_client") return invalidClientResponse(CLIENT_AUTH_FAILED, false);
  if (error === "invalid_scope") return oauthError("invalid_scope", description);
  return oauthError("invalid_grant", description);
}
