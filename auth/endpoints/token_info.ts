/**
 * Userinfo (OIDC Core §5.3) and introspection (RFC 7662) answered from the token tables, as 1.6.23 answers
 * them for the opaque access tokens this service issues (it never issues JWT access tokens: `resource` is
 * refused). The library's handlers cost about a millisecond each (router, context, a JWT verification
 * attempt before the table lookup); these are one indexed read each (the token joined with what it needs).
 */
import type { Client } from "@libsql/client";
import { storedTokenHash } from "../grants/token_storage.ts";
import { ACCESS_COLUMNS, accessJoin, accessRecordOf } from "../membership/access.ts";

function parseList(value: unknown): string[] {
  try {
    const list = JSON.parse(String(value));
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/** The `audience` of a client's metadata (`oauth:register --audience`): resource servers of its tokens. */
function audienceOf(metadata: unknown): string[] {
  try {
    const audience = metadata === null || metadata === undefined ? [] : JSON.parse(String(metadata)).audience;
    return Array.isArray(audience) ? audience.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * The standard claims of a user for `scopes` (`profile`, `email`), as 1.6.23 derives them, and with the
 * `groups` scope the user's memberships among the allowed organisations and teams.
 */
export function userClaims(
  user: Record<string, unknown>,
  scopes: string[],
  groups: string[] = [],
): Record<string, unknown> {
  const claims: Record<string, unknown> = { sub: String(user.id) };
  if (scopes.includes("profile")) {
    const parts = String(user.name ?? "").split(" ").filter(Boolean);
    claims.name = user.name ?? undefined;
    claims.picture = user.image ?? undefined;
    if (parts.length > 1) {
      claims.given_name = parts.slice(0, -1).join(" ");
      claims.family_name = parts.at(-1);
    }
  }
  if (scopes.includes("email")) {
    claims.email = user.email ?? undefined;
    claims.email_verified = Number(user.email_verified ?? 0) === 1;
  }
  if (scopes.includes("groups")) claims.groups = groups;
  return claims;
}

/** Userinfo claims for a bearer token, or why it is refused (one read: token joined with its user). */
export async function userinfoFor(
  client: Client,
  token: string,
): Promise<
  { claims: Record<string, unknown> } | {
    error: { code: "invalid_token" | "insufficient_scope"; description: string };
  }
> {
  const result = await client.execute({
    sql: `SELECT a.scopes, u.id, u.name, u.email, u.email_verified, u.image, ${ACCESS_COLUMNS} ` +
      `FROM oauth_access_token a LEFT JOIN user u ON u.id = a.user_id ${accessJoin("a.user_id")} ` +
      "WHERE a.token = ? AND a.expires_at > ?",
    args: [storedTokenHash(token), Date.now()],
  });
  const row = result.rows[0];
  if (!row) return { error: { code: "invalid_token", description: "invalid or expired access token" } };
  const scopes = parseList(row.scopes);
  if (!scopes.includes("openid")) {
    return {
      error: { code: "insufficient_scope", description: "the access token was not granted the openid scope" },
    };
  }
  if (row.id === null) {
    return { error: { code: "invalid_token", description: "the token's user no longer exists" } };
  }
  return { claims: userClaims(row, scopes, accessRecordOf(row).groups) };
}

/**
 * RFC 7662 answer for `token` as seen by client `clientId` (another client's token, or a disabled client's,
 * is inactive). One read per token table: the token joined with its client and its session (`sid` only
 * while the session lives).
 */
export async function introspectionFor(
  client: Client,
  token: string,
  clientId: string,
  issuer: string,
): Promise<Record<string, unknown>> {
  const now = Date.now();
  const hash = storedTokenHash(token);
  const columns =
    "t.client_id, t.user_id, t.scopes, t.expires_at, t.created_at, c.metadata AS client_metadata, " +
    "COALESCE(c.disabled, 0) AS disabled, CASE WHEN s.expires_at > ? THEN t.session_id END AS live_session, " +
    ACCESS_COLUMNS;
  const joins =
    "LEFT JOIN oauth_client c ON c.client_id = t.client_id LEFT JOIN session s ON s.id = t.session_id " +
    accessJoin("t.user_id");
  const access = await client.execute({
    sql: `SELECT ${columns} FROM oauth_access_token t ${joins} WHERE t.token = ? AND t.expires_at > ?`,
    args: [now, hash, now],
  });
  const refresh = access.rows[0] ? undefined : await client.execute({
    sql: `SELECT ${columns} FROM oauth_refresh_token t ${joins} ` +
      "WHERE t.token = ? AND t.revoked IS NULL AND t.expires_at > ?",
    args: [now, hash, now],
  });
  const row = access.rows[0] ?? refresh?.rows[0];
  if (!row || Number(row.disabled) === 1) return { active: false };
  // Another client's token is inactive unless that client names the asking one as an audience.
  const audience = audienceOf(row.client_metadata);
  if (String(row.client_id) !== clientId && !audience.includes(clientId)) return { active: false };
  const scopes = parseList(row.scopes);
  return {
    active: true,
    iss: issuer,
    client_id: String(row.client_id),
    ...(audience.length ? { aud: audience } : {}),
    sub: row.user_id === null ? undefined : String(row.user_id),
    sid: row.live_session === null ? undefined : String(row.live_session),
    exp: Math.floor(Number(row.expires_at) / 1000),
    iat: Math.floor(Number(row.created_at) / 1000),
    scope: scopes.join(" "),
    ...(scopes.includes("groups") ? { groups: accessRecordOf(row).groups } : {}),
    ...(access.rows[0] ? { token_type: "Bearer" } : {}),
  };
}
