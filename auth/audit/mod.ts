/**
 * The auth service's audit log (`svc_audit`, migrations/0003_audit_membership.sql): an append-only record of
 * sign-ins (admitted or denied, and why), consents, token-endpoint refusals that matter (a code or refresh
 * token replayed), logouts, membership losses and every operator command. Callers pass typed facts only:
 * an action, an outcome, ids and a short reason; this module never accepts a token or a secret, and caps
 * every free-text field so that nothing long (a token pasted by mistake) can be stored whole.
 *
 * Other modules record rows with {@link recordAudit}; `deno task auth:audit` reads them with
 * {@link listAudit}; {@link pruneAudit} applies the retention (`AUTH_AUDIT_RETENTION_DAYS`), in bounded
 * batches.
 */
import type { Client } from "@libsql/client";

/** What happened. New actions are added here, so the log's vocabulary stays one list. */
export const AUDIT_ACTIONS = [
  "sign_in",
  "consent",
  "token_replay",
  "logout",
  "membership_revalidation",
  "backchannel_logout",
  "client_register",
  "client_update",
  "client_rotate_secret",
  "client_disable",
  "client_enable",
  "client_delete",
  "sessions_revoke",
  "key_rotate",
  "key_revoke",
  "user_disable",
  "user_enable",
] as const;

/** One of {@link AUDIT_ACTIONS}. */
export type AuditAction = typeof AUDIT_ACTIONS[number];

/** How it ended. */
export type AuditOutcome = "admitted" | "denied" | "success" | "failure" | "refused";

/** One audit fact, as a caller records it (never a token, a secret or a hash of either). */
export interface AuditEvent {
  /** What happened. */
  action: AuditAction;
  /** How it ended. */
  outcome: AuditOutcome;
  /** The service's user id, when known. */
  userId?: string | null;
  /** The OAuth client concerned, when any. */
  clientId?: string | null;
  /** Another identifier (e.g. `github:octocat` for a refused sign-in, or a key id); never a secret. */
  subject?: string | null;
  /** Who acted: `user`, `service`, or `operator` for the CLIs. */
  actor?: "user" | "service" | "operator";
  /** A short machine-readable reason (`not_a_member`, `refresh_replay`, …). */
  reason?: string | null;
  /** When, in epoch ms (defaults to now). */
  at?: number;
}

/** A stored audit row. */
export interface AuditRow {
  /** Sequence number. */
  id: number;
  /** ISO time. */
  at: string;
  /** What happened. */
  action: string;
  /** How it ended. */
  outcome: string;
  /** User id, when known. */
  user_id: string | null;
  /** Client id, when any. */
  client_id: string | null;
  /** Other identifier, when any. */
  subject: string | null;
  /** Who acted. */
  actor: string;
  /** Short reason, when any. */
  reason: string | null;
}

/** Longest identifier or reason stored; longer values are cut (a 32-letter token cannot fit a reason). */
const MAX_FIELD = 120;
/** Rows removed per pruning statement, so a prune never holds the write lock for long. */
const PRUNE_BATCH = 500;
/** Statements per prune call at most (bounded work per call). */
const PRUNE_MAX_BATCHES = 20;

const field = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value === "" ? null : String(value).slice(0, MAX_FIELD);

/**
 * Appends one audit row. Never throws: an audit failure is reported to `onError` (the service logs it) and
 * the caller's action goes on. Exported for other modules (e.g. back-channel logout deliveries record
 * `{action: "backchannel_logout", outcome: "success" | "failure", userId, clientId, reason}`).
 */
export async function recordAudit(
  client: Client,
  event: AuditEvent,
  onError?: (error: unknown) => void,
): Promise<void> {
  try {
    await client.execute({
      sql: "INSERT INTO svc_audit (at, action, outcome, user_id, client_id, subject, actor, reason) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      args: [
        event.at ?? Date.now(),
        event.action,
        event.outcome,
        field(event.userId),
        field(event.clientId),
        field(event.subject),
        event.actor ?? "service",
        field(event.reason),
      ],
    });
  } catch (error) {
    onError?.(error);
  }
}

/** Filters of {@link listAudit}. */
export interface AuditQuery {
  /** Only rows at or after this time (epoch ms). */
  since?: number;
  /** Only this user's rows. */
  userId?: string;
  /** Only this action. */
  action?: string;
  /** At most this many rows, newest first (default 1000). */
  limit?: number;
}

/** Audit rows matching `query`, newest first. */
export async function listAudit(client: Client, query: AuditQuery = {}): Promise<AuditRow[]> {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (query.since !== undefined) {
    where.push("at >= ?");
    args.push(query.since);
  }
  if (query.userId !== undefined) {
    where.push("user_id = ?");
    args.push(query.userId);
  }
  if (query.action !== undefined) {
    where.push("action = ?");
    args.push(query.action);
  }
  args.push(query.limit ?? 1000);
  const result = await client.execute({
    sql: "SELECT id, at, action, outcome, user_id, client_id, subject, actor, reason FROM svc_audit " +
      `${where.length ? `WHERE ${where.join(" AND ")} ` : ""}ORDER BY at DESC, id DESC LIMIT ?`,
    args,
  });
  const text = (value: unknown) => value === null ? null : String(value);
  return result.rows.map((row) => ({
    id: Number(row.id),
    at: new Date(Number(row.at)).toISOString(),
    action: String(row.action),
    outcome: String(row.outcome),
    user_id: text(row.user_id),
    client_id: text(row.client_id),
    subject: text(row.subject),
    actor: String(row.actor),
    reason: text(row.reason),
  }));
}

/**
 * Deletes rows older than `retentionDays`, at most {@link PRUNE_BATCH} × {@link PRUNE_MAX_BATCHES} per call
 * (the rest goes on the next call); returns how many were removed.
 */
export async function pruneAudit(client: Client, retentionDays: number, now = Date.now()): Promise<number> {
  const cutoff = now - retentionDays * 86_400_000;
  let removed = 0;
  for (let i = 0; i < PRUNE_MAX_BATCHES; i++) {
    const result = await client.execute({
      sql: "DELETE FROM svc_audit WHERE id IN (SELECT id FROM svc_audit WHERE at < ? ORDER BY id LIMIT ?)",
      args: [cutoff, PRUNE_BATCH],
    });
    removed += result.rowsAffected;
    if (result.rowsAffected < PRUNE_BATCH) break;
  }
  return removed;
}
