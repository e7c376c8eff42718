/**
 * The membership gate and its re-validation (issue 25), over `svc_user_access`
 * (migrations/0003_audit_membership.sql):
 * - at sign-in, {@link MembershipGate.admitSignIn} runs inside Better Auth's GitHub `getUserInfo`, before any
 *   user, account or session row is written, and {@link MembershipGate.onSessionCreate} records the result
 *   once the user exists (and refuses a disabled user or a session that skipped the gate);
 * - on refresh-token use, session extension and `get-session`, {@link MembershipGate.decide} trusts the
 *   stored check for `AUTH_MEMBERSHIP_TTL`, then asks GitHub again with the token stored on the account
 *   (encrypted at rest). GitHub unreachable: access is kept for `AUTH_MEMBERSHIP_GRACE` after the last
 *   successful check, then refused. A refusal ends every session and grant of the user through
 *   `revokeUserSessions` (auth/operations/sessions.ts), the one revocation path.
 */
import type { Client } from "@libsql/client";
import { symmetricDecrypt } from "better-auth/crypto";
import { type AuditEvent, recordAudit } from "../audit/mod.ts";
import { revokeUserSessions } from "../operations/sessions.ts";
import { checkMembership, type GitHubApi, type MembershipResult } from "./github_membership.ts";
import { type AccessPolicy, needsOrgData } from "./policy.ts";
import type { DenialReason } from "./denials.ts";

/** The `svc_user_access` columns a caller joins (as `x`) onto its own user query. */
export const ACCESS_COLUMNS = "x.github_login AS x_login, x.checked_at AS x_checked_at, " +
  "x.check_status AS x_status, x.check_reason AS x_reason, x.ok_at AS x_ok_at, x.groups AS x_groups, " +
  "x.disabled_at AS x_disabled_at";

/** The join that goes with {@link ACCESS_COLUMNS}, for a query whose user id column is `userIdColumn`. */
export const accessJoin = (userIdColumn: string) =>
  `LEFT JOIN svc_user_access x ON x.user_id = ${userIdColumn}`;

/** A user's stored access record, as read through {@link ACCESS_COLUMNS}. */
export interface AccessRecord {
  login: string | null;
  checkedAt: number | null;
  status: "member" | "denied" | "unavailable" | null;
  reason: string | null;
  okAt: number | null;
  groups: string[];
  disabledAt: number | null;
}

/** Reads an {@link AccessRecord} from a row selected with {@link ACCESS_COLUMNS}. */
export function accessRecordOf(row: Record<string, unknown>): AccessRecord {
  const num = (v: unknown) => v === null || v === undefined ? null : Number(v);
  let groups: string[] = [];
  try {
    const parsed = JSON.parse(String(row.x_groups ?? "[]"));
    if (Array.isArray(parsed)) groups = parsed.map(String);
  } catch {
    groups = [];
  }
  const status = row.x_status;
  return {
    login: row.x_login === null || row.x_login === undefined ? null : String(row.x_login),
    checkedAt: num(row.x_checked_at),
    status: status === "member" || status === "denied" || status === "unavailable" ? status : null,
    reason: row.x_reason === null || row.x_reason === undefined ? null : String(row.x_reason),
    okAt: num(row.x_ok_at),
    groups,
    disabledAt: num(row.x_disabled_at),
  };
}

/** The stored groups of a user (the `groups` claim), from one read. */
export async function groupsOf(client: Client, userId: string): Promise<string[]> {
  const result = await client.execute({
    sql: "SELECT groups FROM svc_user_access WHERE user_id = ?",
    args: [userId],
  });
  return result.rows[0] ? accessRecordOf({ x_groups: result.rows[0].groups }).groups : [];
}

/** The outcome of a gate decision. */
export type AccessDecision = { ok: true; groups: string[] } | { ok: false; reason: DenialReason };

/** What the gate needs. */
export interface MembershipGateDeps {
  /** Raw libSQL client of the auth database. */
  client: Client;
  /** The allowlist; undefined in local mode (no gate). */
  policy: AccessPolicy | undefined;
  /** How GitHub is reached. */
  api: GitHubApi;
  /** The secret Better Auth encrypts OAuth tokens with. */
  secret: string;
  /** Records an audit row (defaults to a plain {@link recordAudit}). */
  audit?: (event: AuditEvent) => Promise<void>;
  /** Reports a failure of a side effect (audit write, revocation) that must not change the answer. */
  onError?: (message: string, error: unknown) => void;
  /** Clock (ms). */
  now?: () => number;
}

/** How long a sign-in's admitted result waits for its session to be created (same request). */
const PENDING_MS = 60_000;

/** The sign-in gate and re-validation of one service instance. */
export class MembershipGate {
  readonly #deps: MembershipGateDeps;
  readonly #now: () => number;
  /** Admitted GitHub sign-ins (by GitHub account id) waiting for their session row. */
  readonly #pending = new Map<string, { login: string; groups: string[]; at: number }>();
  /** Re-validations running, by user id: parallel refreshes share one GitHub round. */
  readonly #running = new Map<string, Promise<AccessDecision>>();

  constructor(deps: MembershipGateDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** The allowlist, when the gate is on. */
  get policy(): AccessPolicy | undefined {
    return this.#deps.policy;
  }

  #audit(event: AuditEvent): Promise<void> {
    if (this.#deps.audit) return this.#deps.audit(event);
    return recordAudit(this.#deps.client, event, (e) => this.#deps.onError?.("audit write failed", e));
  }

  /**
   * Decides a GitHub sign-in before Better Auth writes anything: a disabled user, or a membership GitHub
   * does not confirm, is refused (and audited).
   */
  async admitSignIn(input: { token: string; login: string; githubId: string }): Promise<AccessDecision> {
    const subject = `github:${input.login}`;
    const known = await this.#deps.client.execute({
      sql:
        "SELECT a.user_id, x.disabled_at FROM account a LEFT JOIN svc_user_access x ON x.user_id = a.user_id " +
        "WHERE a.provider_id = 'github' AND a.account_id = ?",
      args: [input.githubId],
    });
    const userId = known.rows[0] ? String(known.rows[0].user_id) : null;
    let decision: AccessDecision;
    if (known.rows[0] && known.rows[0].disabled_at !== null) {
      decision = { ok: false, reason: "user_disabled" };
    } else if (!this.#deps.policy) decision = { ok: true, groups: [] };
    else {decision = toDecision(
        await checkMembership(this.#deps.api, input.token, input.login, this.#deps.policy),
      );}
    if (!decision.ok) {
      await this.#audit({
        action: "sign_in",
        outcome: "denied",
        userId,
        subject,
        actor: "user",
        reason: decision.reason,
      });
      return decision;
    }
    const now = this.#now();
    for (const [id, entry] of this.#pending) if (now - entry.at > PENDING_MS) this.#pending.delete(id);
    this.#pending.set(input.githubId, { login: input.login, groups: decision.groups, at: now });
    return decision;
  }

  /**
   * Runs before Better Auth creates a session: refuses a disabled user, or (with a policy) a GitHub user whose
   * sign-in did not pass {@link admitSignIn}; records the admitted check and audits the sign-in.
   */
  async onSessionCreate(userId: string): Promise<DenialReason | undefined> {
    const { client, policy } = this.#deps;
    const found = await client.execute({
      sql:
        "SELECT x.disabled_at, (SELECT account_id FROM account WHERE user_id = ? AND provider_id = 'github') " +
        "AS github_id FROM user u LEFT JOIN svc_user_access x ON x.user_id = u.id WHERE u.id = ?",
      args: [userId, userId],
    });
    const row = found.rows[0];
    const githubId = row?.github_id === null || row?.github_id === undefined
      ? undefined
      : String(row.github_id);
    const pending = githubId ? this.#pending.get(githubId) : undefined;
    if (githubId) this.#pending.delete(githubId);
    let reason: DenialReason | undefined;
    if (row && row.disabled_at !== null) reason = "user_disabled";
    else if (policy && !pending) reason = "not_a_member";
    if (reason) {
      await this.#audit({ action: "sign_in", outcome: "denied", userId, actor: "user", reason });
      return reason;
    }
    if (pending) {
      const now = this.#now();
      await client.execute({
        sql:
          "INSERT INTO svc_user_access (user_id, github_login, checked_at, check_status, check_reason, ok_at, " +
          "groups) VALUES (?, ?, ?, 'member', NULL, ?, ?) ON CONFLICT (user_id) DO UPDATE SET " +
          "github_login = excluded.github_login, checked_at = excluded.checked_at, check_status = 'member', " +
          "check_reason = NULL, ok_at = excluded.ok_at, groups = excluded.groups",
        args: [userId, pending.login, now, now, JSON.stringify(pending.groups)],
      });
    }
    await this.#audit({
      action: "sign_in",
      outcome: "admitted",
      userId,
      subject: pending ? `github:${pending.login}` : null,
      actor: "user",
    });
    return undefined;
  }

  /**
   * Whether `userId` keeps access, from its stored record (read by the caller through
   * {@link ACCESS_COLUMNS}): the cached check within the TTL costs nothing; a stale one asks GitHub once
   * (parallel callers share it). A refusal is not acted on here: see {@link endAccess}.
   */
  decide(userId: string, record: AccessRecord): Promise<AccessDecision> | AccessDecision {
    const policy = this.#deps.policy;
    if (record.disabledAt !== null) return { ok: false, reason: "user_disabled" };
    if (!policy) return { ok: true, groups: record.groups };
    if (!needsOrgData(policy)) {
      const login = record.login?.toLowerCase();
      return policy.allowAny || (login !== undefined && policy.users.includes(login))
        ? { ok: true, groups: [] }
        : { ok: false, reason: "not_a_member" };
    }
    const now = this.#now();
    if (record.checkedAt !== null && now - record.checkedAt < policy.ttlMs) return this.#cached(record, now);
    const running = this.#running.get(userId);
    if (running) return running;
    const fresh = this.#recheck(userId, record).finally(() => this.#running.delete(userId));
    this.#running.set(userId, fresh);
    return fresh;
  }

  #cached(record: AccessRecord, now: number): AccessDecision {
    if (record.status === "member") return { ok: true, groups: record.groups };
    if (
      record.status === "unavailable" && record.okAt !== null &&
      now - record.okAt <= this.#deps.policy!.graceMs
    ) {
      return { ok: true, groups: record.groups };
    }
    const reason = record.status === "denied" && record.reason ? record.reason : "github_unavailable";
    return { ok: false, reason: reason as DenialReason };
  }

  async #recheck(userId: string, record: AccessRecord): Promise<AccessDecision> {
    const { client } = this.#deps;
    const policy = this.#deps.policy!;
    const now = this.#now();
    const account = await client.execute({
      sql: "SELECT access_token FROM account WHERE user_id = ? AND provider_id = 'github'",
      args: [userId],
    });
    let token: string | undefined;
    try {
      const stored = account.rows[0]?.access_token;
      token = stored === null || stored === undefined ? undefined : await symmetricDecrypt({
        key: this.#deps.secret,
        data: String(stored),
      });
    } catch {
      token = undefined;
    }
    const result: MembershipResult = token && record.login
      ? await checkMembership(this.#deps.api, token, record.login, policy)
      : { kind: "denied", reason: "github_authorization_revoked" };
    const status = result.kind;
    const okAt = status === "member" ? now : record.okAt;
    await client.execute({
      sql:
        "INSERT INTO svc_user_access (user_id, github_login, checked_at, check_status, check_reason, ok_at, groups) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET checked_at = excluded.checked_at, " +
        "check_status = excluded.check_status, check_reason = excluded.check_reason, ok_at = excluded.ok_at, " +
        "groups = excluded.groups",
      args: [
        userId,
        record.login,
        now,
        status,
        result.kind === "denied" ? result.reason : null,
        okAt,
        JSON.stringify(result.kind === "member" ? result.groups : record.groups),
      ],
    });
    return this.#cached(
      {
        ...record,
        checkedAt: now,
        status,
        reason: result.kind === "denied" ? result.reason : null,
        okAt,
        groups: result.kind === "member" ? result.groups : record.groups,
      },
      now,
    );
  }

  /** The user's stored groups (the `groups` claim). */
  groups(userId: string): Promise<string[]> {
    return groupsOf(this.#deps.client, userId);
  }

  /**
   * Re-validates the user of a browser session (by its token, as Better Auth extends it, or by user id for
   * `get-session`); on refusal ends the user's access. Returns the decision.
   */
  async revalidateUser(userId: string): Promise<AccessDecision> {
    const found = await this.#deps.client.execute({
      sql: `SELECT ${ACCESS_COLUMNS} FROM user u ${accessJoin("u.id")} WHERE u.id = ?`,
      args: [userId],
    });
    const decision = await this.decide(userId, accessRecordOf(found.rows[0] ?? {}));
    if (!decision.ok) await this.endAccess(userId, decision.reason);
    return decision;
  }

  /** {@link revalidateUser} for the session whose token is `token`; true when access holds. */
  async revalidateSessionToken(token: string): Promise<boolean> {
    const found = await this.#deps.client.execute({
      sql: "SELECT user_id FROM session WHERE token = ?",
      args: [token],
    });
    if (!found.rows[0]) return true; // Better Auth answers an unknown session itself
    return (await this.revalidateUser(String(found.rows[0].user_id))).ok;
  }

  /** Ends every session and grant of a user who lost access (the one revocation path), and audits it. */
  async endAccess(userId: string, reason: DenialReason, clientId?: string | null): Promise<void> {
    try {
      await revokeUserSessions(this.#deps.client, userId);
    } catch (error) {
      this.#deps.onError?.("revocation after lost membership failed", error);
    }
    await this.#audit({ action: "membership_revalidation", outcome: "denied", userId, clientId, reason });
  }
}

function toDecision(result: MembershipResult): AccessDecision {
  if (result.kind === "member") return { ok: true, groups: result.groups };
  if (result.kind === "denied") return { ok: false, reason: result.reason };
  return { ok: false, reason: "github_unavailable" };
}
