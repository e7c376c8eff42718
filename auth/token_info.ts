/**
 * Userinfo (OIDC Core §5.3) and introspection (RFC 7662) answered from the token tables, as 1.6.23 answers
 * them for the opaque access tokens this service issues (it never issues JWT access tokens: `resource` is
 * refused). The library's handlers cost about a millisecond each (router, context, a JWT verification
 * attempt before the table lookup); these are two indexed reads.
 */
import type { Client } from "@libsql/client";
import { sha256Base64Url } from "./oauth_client_auth.ts";

function parseList(value: unknown): string[] {
  try {
    const list = JSON.parse(String(value));
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/** A live access token's row, or undefined. */
export async function liveAccessToken(client: Client, token: string) {
  const result = await client.execute({
    sql: "SELECT client_id, user_id, session_id, scopes, expires_at, created_at FROM oauth_access_token " +
      "WHERE token = ? AND expires_at > ?",
    args: [await sha256Base64Url(token), Date.now()],
  });
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    clientId: String(row.client_id),
    userId: row.user_id === null ? undefined : String(row.user_id),
    sessionId: row.session_id === null ? undefined : String(row.session_id),
    scopes: parseList(row.scopes),
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
  };
}

/** The standard claims of a user for `scopes` (`profile`, `email`), as 1.6.23 derives them. */
export function userClaims(user: Record<string, unknown>, scopes: string[]): Record<string, unknown> {
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
  return claims;
}

/** Userinfo claims for a bearer token, or why it is refused. */
export async function userinfoFor(
  client: Client,
  token: string,
): Promise<
  { claims: Record<string, unknown> } | { error: "invalid_token" | "insufficient_scope"; description: string }
> {
  const access = await liveAccessToken(client, token);
  if (!access || !access.userId) {
    return { error: "invalid_token", description: "invalid or expired access token" };
  }
  if (!access.scopes.includes("openid")) {
    return { error: "insufficient_scope", description: "the access token was not granted the openid scope" };
  }
  const result = await client.execute({
    sql: "SELECT id, name, email, email_verified, image FROM user WHERE id = ?",
    args: [access.userId],
  });
  const user = result.rows[0];
  if (!user) return { error: "invalid_token", description: "the token's user no longer exists" };
  return { claims: userClaims(user, access.scopes) };
}

/** RFC 7662 answer for `token` as seen by client `clientId` (another client's token is inactive). */
export async function introspectionFor(
  client: Client,
  token: string,
  clientId: string,
  issuer: string,
): Promise<Record<string, unknown>> {
  const live = async (sessionId: string | undefined) => {
    if (!sessionId) return undefined;
    const session = await client.execute({
      sql: "SELECT 1 FROM session WHERE id = ? AND expires_at > ?",
      args: [sessionId, Date.now()],
    });
    return session.rows.length ? sessionId : undefined;
  };
  const access = await liveAccessToken(client, token);
  if (access) {
    if (access.clientId !== clientId) return { active: false };
    const enabled = await clientEnabled(client, access.clientId);
    if (!enabled) return { active: false };
    return {
      active: true,
      iss: issuer,
      client_id: access.clientId,
      sub: access.userId,
      sid: await live(access.sessionId),
      exp: Math.floor(access.expiresAt / 1000),
      iat: Math.floor(access.createdAt / 1000),
      scope: access.scopes.join(" "),
      token_type: "Bearer",
    };
  }
  const result = await client.execute({
    sql: "SELECT client_id, user_id, session_id, scopes, expires_at, created_at FROM oauth_refresh_token " +
      "WHERE token = ? AND revoked IS NULL AND expires_at > ?",
    args: [await sha256Base64Url(token), Date.now()],
  });
  const row = result.rows[0];
  if (!row || String(row.client_id) !== clientId) return { active: false };
  return {
    active: true,
    iss: issuer,
    client_id: clientId,
    sub: String(row.user_id),
    sid: await live(row.session_id === null ? undefined : String(row.session_id)),
    exp: Math.floor(Number(row.expires_at) / 1000),
    iat: Math.floor(Number(row.created_at) / 1000),
    scope: parseList(row.scopes).join(" "),
  };
}

async function clientEnabled(client: Client, clientId: string): Promise<boolean> {
  const result = await client.execute({
    sql: "SELECT disabled FROM oauth_client WHERE client_id = ?",
    args: [clientId],
  });
  return Boolean(result.rows[0]) && Number(result.rows[0].disabled ?? 0) !== 1;
}
