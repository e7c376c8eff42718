/**
 * The refresh-token grant, answered by the service (RFC 6749 §6, rotation per RFC 9700 §4.14.2). Better
 * Auth 1.6.23's handler takes ~4 ms of CPU per refresh (a router and context per call, several adapter
 * round trips, the signing key decrypted and imported per token); this one does the same work in one
 * write transaction: the presented token is marked used (only if still unused), its successor and a new
 * opaque access token are inserted and recorded under the grant, and an ID token is signed with the
 * cached key. Response, storage and claims are those of 1.6.23 (tests/auth/ check them with oauth4webapi
 * and openid-client): 32-letter opaque tokens stored as base64url SHA-256, access tokens for an hour,
 * refresh tokens for 30 days, ID tokens for 10 hours with `auth_time`, `acr`, and `sid` (the browser session,
 * for every client: back-channel logout names it).
 */
import type { Client } from "@libsql/client";
import { sha256Base64Url } from "../endpoints/client_auth.ts";
import { oauthError } from "../oauth_error.ts";
import type { JwtSigner } from "../signing/id_token_signer.ts";
import { userClaims } from "../endpoints/token_info.ts";
import type { GroupCommit } from "@switchyard/lib/group_commit.ts";
import { keepForReuse } from "./refresh_reuse.ts";
import { ACCESS_COLUMNS, accessJoin, accessRecordOf, type MembershipGate } from "../membership/access.ts";

const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
const ID_TOKEN_SECONDS = 10 * 3600;
/** The fixed `acr` 1.6.23 puts in every ID token. */
const ACR = "urn:mace:incommon:iap:bronze";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The stored refresh token being rotated. */
export interface RefreshRow {
  id: string;
  clientId: string;
  sessionId: string | null;
  userId: string;
  referenceId: string | null;
  authTime: number | null;
  scopes: string[];
}

/** What the grant needs. */
export interface RefreshGrantDeps {
  client: Client;
  /** Shared write transactions (lib/group_commit.ts). */
  writes: GroupCommit;
  issuer: string;
  sign: JwtSigner;
  /** `AUTH_REFRESH_REUSE_SECONDS` (0: strict rotation, nothing kept). */
  reuseSeconds?: number;
  /** Membership re-validation (auth/membership/access.ts); its cached record comes with the user's row. */
  gate?: MembershipGate;
}

/** A random token of 32 letters, as 1.6.23 makes them (unbiased: 256 is not a multiple of 52). */
export function randomToken(length = 32): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 208 && out.length < length) out += LETTERS[byte % 52];
    }
  }
  return out;
}

function parseScopes(value: unknown): string[] {
  try {
    const list = JSON.parse(String(value));
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/** Loads the refresh token row by its stored hash, with the grant it belongs to (one statement). */
export async function findRefreshRow(
  client: Client,
  tokenHash: string,
): Promise<RefreshRow & { revoked: boolean; expiresAt: number; grantId: string | null } | undefined> {
  const result = await client.execute({
    sql:
      "SELECT r.id, r.client_id, r.session_id, r.user_id, r.reference_id, r.auth_time, r.scopes, r.revoked, " +
      "r.expires_at, g.grant_id FROM oauth_refresh_token r LEFT JOIN svc_grant_token g ON g.token_hash = r.token " +
      "WHERE r.token = ?",
    args: [tokenHash],
  });
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: String(row.id),
    clientId: String(row.client_id),
    sessionId: row.session_id === null ? null : String(row.session_id),
    userId: String(row.user_id),
    referenceId: row.reference_id === null ? null : String(row.reference_id),
    authTime: row.auth_time === null ? null : Number(row.auth_time),
    scopes: parseScopes(row.scopes),
    revoked: row.revoked !== null,
    expiresAt: Number(row.expires_at),
    grantId: row.grant_id === null ? null : String(row.grant_id),
  };
}

/**
 * Rotates `row` for its client and answers the token response, or `"replayed"` when another request used
 * the token first (the caller revokes the grant).
 */
export async function refreshGrant(
  deps: RefreshGrantDeps,
  row: RefreshRow,
  grantId: string,
  requestedScope: string | null,
  presented?: { token: string; hash: string },
): Promise<Response | "replayed"> {
  const scopes = requestedScope === null ? row.scopes : requestedScope.split(" ").filter(Boolean);
  const missing = scopes.find((s) => !row.scopes.includes(s));
  if (missing) return oauthError("invalid_scope", `unable to issue scope ${missing}`);
  // The client, the user and the user's access record in one statement: a cached membership check costs no
  // round trip.
  const found = await deps.client.execute({
    sql: "SELECT c.grant_types, c.scopes, c.disabled, u.id, u.name, u.email, u.email_verified, u.image, " +
      `${ACCESS_COLUMNS} FROM oauth_client c LEFT JOIN user u ON u.id = ? ${accessJoin("u.id")} ` +
      "WHERE c.client_id = ?",
    args: [row.userId, row.clientId],
  });
  const clientRow = found.rows[0];
  const user = clientRow && clientRow.id !== null ? clientRow : undefined;
  if (!clientRow || Number(clientRow.disabled ?? 0) === 1) {
    return oauthError("invalid_grant", "the client of this refresh token is disabled");
  }
  const grantTypes = clientRow.grant_types === null
    ? ["authorization_code"]
    : parseScopes(clientRow.grant_types);
  if (!grantTypes.includes("refresh_token")) {
    return oauthError("unauthorized_client", "the client may not use the refresh_token grant");
  }
  const clientScopes = clientRow.scopes === null ? undefined : parseScopes(clientRow.scopes);
  const notAllowed = clientScopes && scopes.find((s) => !clientScopes.includes(s));
  if (notAllowed) return oauthError("invalid_scope", `the client may not request ${notAllowed}`);
  if (!user) return oauthError("invalid_grant", "the user of this refresh token no longer exists");
  const record = accessRecordOf(user);
  let groups = record.groups;
  if (deps.gate) {
    const pending = deps.gate.decide(row.userId, record);
    const decision = pending instanceof Promise ? await pending : pending;
    if (!decision.ok) {
      // Membership lost (or the user disabled): every session and grant of the user ends, this refresh too.
      await deps.gate.endAccess(row.userId, decision.reason, row.clientId);
      return oauthError("invalid_grant", "the user no longer has access to this service");
    }
    groups = decision.groups;
  }

  const iat = Math.floor(Date.now() / 1000);
  const accessToken = randomToken();
  const refreshToken = randomToken();
  const [accessHash, refreshHash] = await Promise.all([
    sha256Base64Url(accessToken),
    sha256Base64Url(refreshToken),
  ]);
  const refreshId = randomToken();
  const scopesJson = JSON.stringify(scopes);
  const idToken = scopes.includes("openid")
    ? deps.sign(idTokenClaims(deps.issuer, user, scopes, row, iat, groups))
    : undefined;
  const body = async () =>
    JSON.stringify({
      access_token: accessToken,
      expires_in: ACCESS_TOKEN_SECONDS,
      expires_at: iat + ACCESS_TOKEN_SECONDS,
      token_type: "Bearer",
      refresh_token: refreshToken,
      scope: scopes.join(" "),
      ...(idToken ? { id_token: await idToken } : {}),
    });
  // With a reuse window the answer is kept in the rotation's own transaction, so a second presentation
  // finds it as soon as it finds the token used (auth/grants/refresh_reuse.ts).
  const reuse = deps.reuseSeconds && presented
    ? await keepForReuse({
      presentedToken: presented.token,
      presentedHash: presented.hash,
      successorHash: refreshHash,
      grantId,
      body: await body(),
      now: iat * 1000,
      windowSeconds: deps.reuseSeconds,
    })
    : [];
  // Signing runs while the rotation waits for its batch; a failed rotation discards the signature.
  const rotated = await deps.writes.run(async (tx) => {
    const used = await tx.execute({
      sql: "UPDATE oauth_refresh_token SET revoked = ? WHERE id = ? AND revoked IS NULL",
      args: [iat * 1000, row.id],
    });
    if (used.rowsAffected !== 1) return false;
    await tx.execute({
      sql: "INSERT INTO oauth_refresh_token (id, token, client_id, session_id, user_id, reference_id, " +
        "expires_at, created_at, revoked, auth_time, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
      args: [
        refreshId,
        refreshHash,
        row.clientId,
        row.sessionId,
        row.userId,
        row.referenceId,
        (iat + REFRESH_TOKEN_SECONDS) * 1000,
        iat * 1000,
        row.authTime,
        scopesJson,
      ],
    });
    await tx.execute({
      sql: "INSERT INTO oauth_access_token (id, token, client_id, session_id, user_id, reference_id, " +
        "refresh_id, expires_at, created_at, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      args: [
        randomToken(),
        accessHash,
        row.clientId,
        row.sessionId,
        row.userId,
        row.referenceId,
        refreshId,
        (iat + ACCESS_TOKEN_SECONDS) * 1000,
        iat * 1000,
        scopesJson,
      ],
    });
    await tx.execute({
      sql:
        "INSERT INTO svc_grant_token (token_hash, kind, grant_id, created_at) VALUES (?, 'access', ?, ?), " +
        "(?, 'refresh', ?, ?)",
      args: [accessHash, grantId, Date.now(), refreshHash, grantId, Date.now()],
    });
    for (const statement of reuse) await tx.execute(statement);
    return true;
  });
  if (!rotated) {
    await idToken?.catch(() => undefined);
    return "replayed";
  }
  return new Response(await body(), {
    headers: { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache" },
  });
}

/** The ID token claims 1.6.23 issues on a refresh (no nonce), with `sid` while the session lives. */
function idTokenClaims(
  issuer: string,
  user: Record<string, unknown>,
  scopes: string[],
  row: RefreshRow,
  iat: number,
  groups: string[],
): Record<string, unknown> {
  // The same profile, email and groups claims userinfo answers (auth/endpoints/token_info.ts).
  const claims = userClaims(user, scopes, groups);
  return {
    ...claims,
    ...(row.authTime !== null ? { auth_time: Math.floor(row.authTime / 1000) } : {}),
    acr: ACR,
    iss: issuer,
    aud: row.clientId,
    iat,
    exp: iat + ID_TOKEN_SECONDS,
    ...(row.sessionId ? { sid: row.sessionId } : {}),
  };
}
