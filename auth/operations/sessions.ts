/**
 * A user's browser sessions and OAuth grants, for the `auth:sessions` command: listing them (never a token
 * or its hash) and revoking them — every browser session, token, consent and unredeemed authorization code
 * of the user, or only what one client holds — in one write batch.
 */
import type { Client, InStatement } from "@libsql/client";
import { commandError } from "../service_errors.ts";
import { revokeTokensWhere } from "./clients.ts";
import { type LogoutReason, queueLogouts } from "../logout/fan_out.ts";

/** One browser session (no token). */
export interface SessionInfo {
  /** Session id (what the ID token's `sid` names). */
  id: string;
  /** ISO times. */
  created_at: string;
  /** When it ends unless refreshed. */
  expires_at: string;
  /** Recorded client address, if any. */
  ip_address: string | null;
  /** Recorded user agent, if any. */
  user_agent: string | null;
}

/** What one client holds for the user. */
export interface GrantInfo {
  /** The client. */
  client_id: string;
  /** Its name, when it still exists. */
  client_name: string | null;
  /** Scopes the user consented to (empty without a consent record, e.g. a first-party client). */
  consented_scopes: string[];
  /** Unrevoked, unexpired refresh tokens. */
  active_refresh_tokens: number;
  /** Unexpired access tokens. */
  active_access_tokens: number;
}

/** A user's sessions and grants. */
export interface UserSessions {
  /** The user. */
  user_id: string;
  /** Active browser sessions, newest first. */
  sessions: SessionInfo[];
  /** Clients holding tokens or a consent, by client id. */
  grants: GrantInfo[];
}

const iso = (value: unknown) => new Date(Number(value)).toISOString();

async function assertUser(client: Client, userId: string): Promise<void> {
  const found = await client.execute({ sql: "SELECT 1 FROM user WHERE id = ?", args: [userId] });
  if (!found.rows.length) throw commandError("NOT_FOUND", `no user with id ${JSON.stringify(userId)}`);
}

function scopesOf(value: unknown): string[] {
  try {
    const parsed = JSON.parse(String(value));
    return Array.isArray(parsed) ? parsed.map(String) : String(value).split(" ");
  } catch {
    return String(value).split(" ").filter(Boolean);
  }
}

/** The user's active sessions and grants; AppError NOT_FOUND for an unknown user. */
export async function listUserSessions(
  client: Client,
  userId: string,
  now = Date.now(),
): Promise<UserSessions> {
  await assertUser(client, userId);
  const sessions = await client.execute({
    sql: "SELECT id, created_at, expires_at, ip_address, user_agent FROM session " +
      "WHERE user_id = ? AND expires_at > ? ORDER BY created_at DESC",
    args: [userId, now],
  });
  const grants = await client.execute({
    sql: `SELECT ids.client_id, c.name,
        (SELECT scopes FROM oauth_consent WHERE user_id = ? AND client_id = ids.client_id
          ORDER BY updated_at DESC LIMIT 1) AS consented,
        (SELECT count(*) FROM oauth_refresh_token WHERE user_id = ? AND client_id = ids.client_id
          AND revoked IS NULL AND expires_at > ?) AS refresh,
        (SELECT count(*) FROM oauth_access_token WHERE user_id = ? AND client_id = ids.client_id
          AND expires_at > ?) AS access
      FROM (SELECT client_id FROM oauth_consent WHERE user_id = ?
        UNION SELECT client_id FROM oauth_refresh_token WHERE user_id = ? AND revoked IS NULL AND expires_at > ?
        UNION SELECT client_id FROM oauth_access_token WHERE user_id = ? AND expires_at > ?) AS ids
      LEFT JOIN oauth_client c ON c.client_id = ids.client_id ORDER BY ids.client_id`,
    args: [userId, userId, now, userId, now, userId, userId, now, userId, now],
  });
  return {
    user_id: userId,
    sessions: sessions.rows.map((row) => ({
      id: String(row.id),
      created_at: iso(row.created_at),
      expires_at: iso(row.expires_at),
      ip_address: row.ip_address === null ? null : String(row.ip_address),
      user_agent: row.user_agent === null ? null : String(row.user_agent),
    })),
    grants: grants.rows.map((row) => ({
      client_id: String(row.client_id),
      client_name: row.name === null ? null : String(row.name),
      consented_scopes: row.consented === null ? [] : scopesOf(row.consented),
      active_refresh_tokens: Number(row.refresh),
      active_access_tokens: Number(row.access),
    })),
  };
}

/** Unredeemed authorization codes matching a JSON condition on Better Auth's verification value. */
function deleteCodes(condition: string, args: string[]): InStatement {
  return {
    sql: "DELETE FROM verification WHERE CASE WHEN json_valid(value) THEN " +
      `json_extract(value, '$.type') = 'authorization_code' AND ${condition} ELSE 0 END`,
    args,
  };
}

/** What a revocation removed. */
export interface RevocationResult {
  /** Browser sessions ended. */
  sessions: number;
  /** Live access tokens revoked. */
  access_tokens: number;
  /** Live refresh tokens revoked. */
  refresh_tokens: number;
  /** Consents removed. */
  consents: number;
}

/**
 * Revokes a user's grants in one write batch: with `clientId`, only that client's tokens, consent and
 * pending codes (browser sessions stay); without, also every browser session of the user. The same batch
 * queues a back-channel logout for every relying party that held a live token (auth/logout/), sent by the
 * running service; `reason` says why (default: `grant_revoked` with a client, else `sessions_revoked`).
 */
export async function revokeUserSessions(
  client: Client,
  userId: string,
  clientId?: string,
  reason?: LogoutReason,
): Promise<RevocationResult> {
  await assertUser(client, userId);
  if (clientId !== undefined) {
    const known = await client.execute({
      sql: "SELECT 1 FROM oauth_client WHERE client_id = ? UNION " +
        "SELECT 1 FROM oauth_refresh_token WHERE client_id = ? AND user_id = ?",
      args: [clientId, clientId, userId],
    });
    if (!known.rows.length) {
      throw commandError("NOT_FOUND", `no OAuth client with id ${JSON.stringify(clientId)}`);
    }
  }
  const where = clientId === undefined ? "user_id = ?" : "user_id = ? AND client_id = ?";
  const args = clientId === undefined ? [userId] : [userId, clientId];
  const codeCondition = clientId === undefined
    ? "json_extract(value, '$.userId') = ?"
    : "json_extract(value, '$.userId') = ? AND json_extract(value, '$.query.client_id') = ?";
  const now = Date.now();
  const statements: InStatement[] = [
    // What is live before the writes, counted in the same transaction (rotated-out rows are not counted).
    {
      sql: `SELECT
        (SELECT count(*) FROM oauth_access_token WHERE ${where} AND expires_at > ?) AS access,
        (SELECT count(*) FROM oauth_refresh_token WHERE ${where} AND revoked IS NULL AND expires_at > ?) AS refresh,
        (SELECT count(*) FROM oauth_consent WHERE ${where}) AS consents,
        (SELECT count(*) FROM session WHERE user_id = ? AND expires_at > ?) AS sessions`,
      args: [...args, now, ...args, now, ...args, userId, now],
    },
    queueLogouts(where, args, reason ?? (clientId === undefined ? "sessions_revoked" : "grant_revoked"), now),
    ...revokeTokensWhere(where, args),
    { sql: `DELETE FROM oauth_consent WHERE ${where}`, args },
    deleteCodes(codeCondition, args),
    ...(clientId === undefined ? [{ sql: "DELETE FROM session WHERE user_id = ?", args: [userId] }] : []),
  ];
  const counts = (await client.batch(statements, "write"))[0].rows[0];
  return {
    access_tokens: Number(counts.access),
    refresh_tokens: Number(counts.refresh),
    consents: Number(counts.consents),
    sessions: clientId === undefined ? Number(counts.sessions) : 0,
  };
}
