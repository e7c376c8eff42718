/**
 * The refresh-token grant, answered by the service (RFC 6749 §6, rotation per RFC 9700 §4.14.2). Better
 * Auth 1.6.23's handler takes ~4 ms of CPU per refresh (a router and context per call, several adapter
 * round trips, the signing key decrypted and imported per token); this one does the same work in one
 * write transaction: the presented token is marked used (only if still unused), its successor and a new
 * opaque access token are inserted (the successor recorded under the grant, the access token linked to it by
 * `refresh_id`), and an ID token is signed with the
 * cached key. Response, storage and claims are those of 1.6.23 (tests/auth/ check them with oauth4webapi
 * and openid-client), but for the tokens' form (auth/grants/token_storage.ts: 40 letters, time first, stored
 * as the time and the base64url SHA-256): access tokens for an hour,
 * refresh tokens for 30 days, ID tokens for 10 hours with `auth_time`, `acr`, and `sid` (the browser session,
 * for every client: back-channel logout names it).
 */
import type { Client, InStatement } from "@libsql/client";
import { issueOpaqueToken, sortableId, storedTokenHash } from "./token_storage.ts";
import type { StoredClientSecret } from "../endpoints/client_auth.ts";
import { oauthError } from "../oauth_error.ts";
import type { JwtSigner } from "../signing/id_token_signer.ts";
import { userClaims } from "../endpoints/token_info.ts";
import type { GroupCommit } from "@switchyard/lib/group_commit.ts";
import { executeNowOf, queryNamed } from "@switchyard/lib/serialized_client.ts";
import { keepForReuse } from "./refresh_reuse.ts";
import { ACCESS_COLUMNS, accessJoin, accessRecordOf, type MembershipGate } from "../membership/access.ts";

const ACCESS_TOKEN_SECONDS = 3600;
const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
const ID_TOKEN_SECONDS = 10 * 3600;
/** The fixed `acr` 1.6.23 puts in every ID token. */
const ACR = "urn:mace:incommon:iap:bronze";

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

export { randomToken, sortableId } from "./token_storage.ts";

function parseScopes(value: unknown): string[] {
  try {
    const list = JSON.parse(String(value));
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/** The stored refresh token with its state and grant. */
export type StoredRefreshToken = RefreshRow & { revoked: boolean; expiresAt: number; grantId: string | null };

/** The presenting client's row: its secret (client authentication) and what the grant checks. */
export type RefreshClientRow = StoredClientSecret & { grant_types: unknown; client_scopes: unknown };

/** What one refresh reads, all in one statement (see {@link loadRefreshContext}). */
export interface RefreshContext {
  /** The presenting client's row; undefined when no client has that id. */
  client: RefreshClientRow | undefined;
  /** The presented token; undefined when unknown. */
  token: StoredRefreshToken | undefined;
  /** The token's user with the access record's columns; undefined when the token or the user is gone. */
  user: Record<string, unknown> | undefined;
}

/**
 * Reads what a refresh needs in one statement: the presenting client (by `clientId`; client authentication
 * is checked on it by the caller), the refresh token by its stored hash with its grant, and the token's user
 * joined with the user's access record (a cached membership check costs no round trip).
 */
export async function loadRefreshContext(
  client: Client,
  clientId: string,
  tokenHash: string,
): Promise<RefreshContext> {
  // Plain rows by name: a local file builds this 28-column row for a tenth of @libsql/client's row shape.
  const rows = await queryNamed(client, {
    sql: "SELECT c.client_secret, c.disabled, c.grant_types, c.scopes AS client_scopes, r.id AS r_id, " +
      "r.client_id AS r_client_id, r.session_id AS r_session_id, r.user_id AS r_user_id, " +
      "r.reference_id AS r_reference_id, r.auth_time AS r_auth_time, r.scopes AS r_scopes, r.revoked AS r_revoked, " +
      "r.expires_at AS r_expires_at, g.grant_id, u.id, u.name, u.email, u.email_verified, u.image, " +
      `${ACCESS_COLUMNS} FROM oauth_client c LEFT JOIN oauth_refresh_token r ON r.token = ? ` +
      "LEFT JOIN svc_grant_token g ON g.token_hash = r.token LEFT JOIN user u ON u.id = r.user_id " +
      `${accessJoin("u.id")} WHERE c.client_id = ?`,
    args: [tokenHash, clientId],
  }, { firstOnly: true });
  const row = rows[0];
  if (!row) return { client: undefined, token: undefined, user: undefined };
  const token: StoredRefreshToken | undefined = row.r_id === null ? undefined : {
    id: String(row.r_id),
    clientId: String(row.r_client_id),
    sessionId: row.r_session_id === null ? null : String(row.r_session_id),
    userId: String(row.r_user_id),
    referenceId: row.r_reference_id === null ? null : String(row.r_reference_id),
    authTime: row.r_auth_time === null ? null : Number(row.r_auth_time),
    scopes: parseScopes(row.r_scopes),
    revoked: row.r_revoked !== null,
    expiresAt: Number(row.r_expires_at),
    grantId: row.grant_id === null ? null : String(row.grant_id),
  };
  return {
    client: row as unknown as RefreshClientRow,
    token,
    user: token && row.id !== null ? row : undefined,
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
  /** The client's and the user's rows as {@link loadRefreshContext} read them. */
  loaded: { client: RefreshClientRow | undefined; user: Record<string, unknown> | undefined },
  presented?: { token: string; hash: string },
): Promise<Response | "replayed"> {
  const scopes = requestedScope === null ? row.scopes : requestedScope.split(" ").filter(Boolean);
  const missing = scopes.find((s) => !row.scopes.includes(s));
  if (missing) return oauthError("invalid_scope", `unable to issue scope ${missing}`);
  const { client: clientRow, user } = loaded;
  if (!clientRow || Number(clientRow.disabled ?? 0) === 1) {
    return oauthError("invalid_grant", "the client of this refresh token is disabled");
  }
  const grantTypes = clientRow.grant_types === null
    ? ["authorization_code"]
    : parseScopes(clientRow.grant_types);
  if (!grantTypes.includes("refresh_token")) {
    return oauthError("unauthorized_client", "the client may not use the refresh_token grant");
  }
  const clientScopes = clientRow.client_scopes === null ? undefined : parseScopes(clientRow.client_scopes);
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
  // Time-ordered tokens (token_storage.ts): their stored forms join the token indexes at the right edge.
  const accessToken = issueOpaqueToken();
  const refreshToken = issueOpaqueToken();
  const accessHash = storedTokenHash(accessToken);
  const refreshHash = storedTokenHash(refreshToken);
  const refreshId = sortableId();
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
    // A local file's transaction runs each statement before returning (no promise per statement).
    const now = executeNowOf(tx);
    const execute = now ?? ((stmt: InStatement) => tx.execute(stmt));
    const used = await execute({
      sql: "UPDATE oauth_refresh_token SET revoked = ? WHERE id = ? AND revoked IS NULL",
      args: [iat * 1000, row.id],
    });
    if (used.rowsAffected !== 1) return false;
    await execute({
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
    await execute({
      sql: "INSERT INTO oauth_access_token (id, token, client_id, session_id, user_id, reference_id, " +
        "refresh_id, expires_at, created_at, scopes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      args: [
        sortableId(),
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
    // One grant row per rotation: the access token is reached through its `refresh_id` (revokeGrant,
    // queueGrantLogouts, revokeTokensWhere), so its own row would only dirty one more random index page.
    await execute({
      sql: "INSERT INTO svc_grant_token (token_hash, kind, grant_id, created_at) VALUES (?, 'refresh', ?, ?)",
      args: [refreshHash, grantId, Date.now()],
    });
    for (const statement of reuse) await execute(statement);
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
