/**
 * Grant tracking over the `svc_grant_*` tables (migrations/0002_grants.sql): which tokens an authorization
 * produced, who redeemed a code or rotated a refresh token first, and which grants were revoked. Revoking a
 * grant removes exactly its tokens; the browser session and the user's other grants are untouched. A code
 * exchange records its access and refresh tokens; a rotation (refresh_grant.ts) records only its refresh
 * token, and its access token belongs to the grant through `oauth_access_token.refresh_id`.
 */
import type { Client } from "@libsql/client";
import { type LogoutReason, queueGrantLogouts } from "../logout/fan_out.ts";

/** A new grant id (one per redeemed authorization code). */
export function newGrantId(): string {
  return crypto.randomUUID();
}

/**
 * Claims `key` (a code or a refresh token, by hash) for `grantId`. Exactly one caller wins, across
 * instances sharing the database: a conditional insert is atomic in SQLite and libSQL.
 */
export async function claimOnce(
  client: Client,
  claim: { key: string; grantId: string; clientId: string; expiresAt: number },
): Promise<boolean> {
  const result = await client.execute({
    sql: "INSERT INTO svc_grant_claim (claim_key, grant_id, client_id, expires_at) VALUES (?, ?, ?, ?) " +
      "ON CONFLICT (claim_key) DO NOTHING",
    args: [claim.key, claim.grantId, claim.clientId, claim.expiresAt],
  });
  return result.rowsAffected === 1;
}

/** The claim recorded for `key`, if any (a replay finds the grant to revoke here). */
export async function claimOf(
  client: Client,
  key: string,
): Promise<{ grantId: string; clientId: string } | undefined> {
  const result = await client.execute({
    sql: "SELECT grant_id, client_id FROM svc_grant_claim WHERE claim_key = ?",
    args: [key],
  });
  const row = result.rows[0];
  return row ? { grantId: String(row.grant_id), clientId: String(row.client_id) } : undefined;
}

/** The grant a stored (hashed) token belongs to. */
export async function grantOfToken(client: Client, tokenHash: string): Promise<string | undefined> {
  const result = await client.execute({
    sql: "SELECT grant_id FROM svc_grant_token WHERE token_hash = ?",
    args: [tokenHash],
  });
  return result.rows[0] ? String(result.rows[0].grant_id) : undefined;
}

/**
 * Records the tokens a successful token response issued under `grantId`. When the grant was revoked while
 * the request ran (a concurrent replay), the new tokens are revoked too: a replay always wins.
 */
export async function recordGrantTokens(
  client: Client,
  grantId: string,
  tokens: { accessHash?: string; refreshHash?: string },
): Promise<void> {
  const now = Date.now();
  const statements = [];
  if (tokens.accessHash) {
    statements.push({
      sql:
        "INSERT OR IGNORE INTO svc_grant_token (token_hash, kind, grant_id, created_at) VALUES (?, 'access', ?, ?)",
      args: [tokens.accessHash, grantId, now],
    });
  }
  if (tokens.refreshHash) {
    statements.push({
      sql:
        "INSERT OR IGNORE INTO svc_grant_token (token_hash, kind, grant_id, created_at) VALUES (?, 'refresh', ?, ?)",
      args: [tokens.refreshHash, grantId, now],
    });
  }
  if (statements.length) await client.batch(statements, "write");
  const revoked = await client.execute({
    sql: "SELECT 1 FROM svc_grant_revoked WHERE grant_id = ?",
    args: [grantId],
  });
  if (revoked.rows.length) await revokeGrant(client, grantId);
}

/**
 * Revokes a grant: marks it, deletes its access tokens (also those of its refresh rows) and its refresh
 * tokens, in one write transaction. Access tokens go first: they reference refresh rows. With `logout`, the
 * same transaction first queues a back-channel logout to the grant's relying party (auth/logout/).
 */
export async function revokeGrant(client: Client, grantId: string, logout?: LogoutReason): Promise<void> {
  const refreshOfGrant = "SELECT token_hash FROM svc_grant_token WHERE grant_id = ? AND kind = 'refresh'";
  await client.batch([
    ...(logout ? [queueGrantLogouts(grantId, logout)] : []),
    {
      sql: "INSERT OR IGNORE INTO svc_grant_revoked (grant_id, revoked_at) VALUES (?, ?)",
      args: [grantId, Date.now()],
    },
    {
      sql: "DELETE FROM oauth_access_token WHERE token IN " +
        "(SELECT token_hash FROM svc_grant_token WHERE grant_id = ? AND kind = 'access')",
      args: [grantId],
    },
    {
      sql:
        `DELETE FROM oauth_access_token WHERE refresh_id IN (SELECT id FROM oauth_refresh_token WHERE token IN (${refreshOfGrant}))`,
      args: [grantId],
    },
    { sql: `DELETE FROM oauth_refresh_token WHERE token IN (${refreshOfGrant})`, args: [grantId] },
  ], "write");
}

/** Drops claims whose code or refresh token can no longer be presented anyway. */
export async function sweepExpiredClaims(client: Client, now = Date.now()): Promise<void> {
  await client.execute({ sql: "DELETE FROM svc_grant_claim WHERE expires_at < ?", args: [now] });
}
