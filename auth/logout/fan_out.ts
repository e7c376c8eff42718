/**
 * Who hears of a logout: each relying party with a back-channel logout URI that holds a live token (an
 * unrevoked, unexpired refresh token or an unexpired access token) matching a condition — a user, a user
 * and client, a session, a grant. The outbox rows are written by the same write batch that ends the session
 * or revokes the tokens, before the tokens (and, through `ON DELETE SET NULL`, their session ids) are gone,
 * so a crash can never end access silently. auth/logout/delivery.ts sends them.
 */
import type { InStatement } from "@libsql/client";

/** Why a logout went out (logged and passed to the audit hook). */
export type LogoutReason =
  | "sign_out"
  | "sessions_revoked"
  | "grant_revoked"
  | "token_replay"
  | "user_disabled"
  | "membership_lost";

/**
 * The statement queueing one logout per relying party and session (or per user when the tokens name no
 * session) for the live tokens matching `condition` (SQL over the token tables' `client_id`, `user_id`,
 * `session_id`, `token` columns, with `args`). Put it before the statements that delete those tokens.
 */
export function queueLogouts(
  condition: string,
  args: (string | number)[],
  reason: LogoutReason,
  now = Date.now(),
  notBefore = now,
  /** The condition on `oauth_access_token` when it differs from `condition` (with its own args). */
  access: { condition: string; args: (string | number)[] } = { condition, args },
): InStatement {
  return {
    sql: "INSERT INTO svc_backchannel_outbox (id, client_id, logout_uri, user_id, session_id, reason, " +
      "created_at, next_attempt_at) " +
      "SELECT lower(hex(randomblob(16))), t.client_id, b.logout_uri, t.user_id, t.session_id, ?, ?, ? FROM (" +
      `SELECT client_id, user_id, session_id FROM oauth_refresh_token WHERE (${condition}) ` +
      "AND revoked IS NULL AND expires_at > ? UNION " +
      `SELECT client_id, user_id, session_id FROM oauth_access_token WHERE (${access.condition}) ` +
      "AND user_id IS NOT NULL AND expires_at > ?) AS t " +
      "JOIN svc_backchannel_client b ON b.client_id = t.client_id",
    args: [reason, now, notBefore, ...args, now, ...access.args, now],
  };
}

/** {@link queueLogouts} for one browser session (sign-out). */
export function queueSessionLogouts(sessionId: string, reason: LogoutReason = "sign_out"): InStatement {
  return queueLogouts("session_id = ?", [sessionId], reason);
}

/** `next_attempt_at` of logouts queued before a sign-out that has not happened yet. */
const HELD = Number.MAX_SAFE_INTEGER;

/**
 * Queues a session's logouts on hold, before Better Auth deletes the session (which clears the tokens'
 * `session_id`); {@link settleHeldLogouts} releases them once the sign-out succeeded, or drops them.
 */
export function holdSessionLogouts(sessionId: string): InStatement {
  return queueLogouts("session_id = ?", [sessionId], "sign_out", Date.now(), HELD);
}

/** Releases (`signedOut`) or drops the logouts {@link holdSessionLogouts} queued for `sessionId`. */
export function settleHeldLogouts(sessionId: string, signedOut: boolean): InStatement {
  return signedOut
    ? {
      sql:
        "UPDATE svc_backchannel_outbox SET next_attempt_at = ? WHERE session_id = ? AND next_attempt_at = ?",
      args: [Date.now(), sessionId, HELD],
    }
    : {
      sql: "DELETE FROM svc_backchannel_outbox WHERE session_id = ? AND next_attempt_at = ?",
      args: [sessionId, HELD],
    };
}

/**
 * {@link queueLogouts} for the tokens of one grant (auth/grants/): those recorded under it, and the access
 * tokens of its refresh tokens (a rotation records only its refresh token; its access token names it by
 * `refresh_id`).
 */
export function queueGrantLogouts(grantId: string, reason: LogoutReason): InStatement {
  const recorded = "token IN (SELECT token_hash FROM svc_grant_token WHERE grant_id = ?)";
  const now = Date.now();
  return queueLogouts(recorded, [grantId], reason, now, now, {
    condition: `${recorded} OR refresh_id IN (SELECT r.id FROM oauth_refresh_token r ` +
      "JOIN svc_grant_token g ON g.token_hash = r.token WHERE g.grant_id = ? AND g.kind = 'refresh')",
    args: [grantId, grantId],
  });
}
