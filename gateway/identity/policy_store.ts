/**
 * Policies of signed-in people, stored in the gateway database (`gateway_principal_policies`) and read by the
 * request path from an in-memory snapshot refreshed like the key cache (in the background once older than
 * the TTL, before answering once older than twice it). A subject is `user:<sub>`, `group:<org>`,
 * `group:<org/team>` or `default:user`; the most specific one matching a person applies: their own, then a
 * team they are in, then an organisation, then the default. None matching: the person is refused (deny by
 * default).
 */
import type { Kysely } from "kysely";
import type { KeySettings } from "../keys/store.ts";
import { type KeyLimits, policyOfRow, type PolicyRow } from "../limits/policy.ts";

/** Database schema of the policies table. */
export interface PoliciesDatabase {
  gateway_principal_policies: {
    subject: string;
    rpm: number | null;
    tpm: number | null;
    max_concurrency: number | null;
    budget_usd: number | null;
    budget_period: string | null;
    models: string | null;
    updated_at: number;
  };
}

/** The subject every signed-in person falls back to. */
export const DEFAULT_USER_SUBJECT = "default:user";

/** What a matching policy grants. */
export interface GrantedPolicy {
  /** The subject of the row that matched. */
  subject: string;
  limits?: Readonly<KeyLimits>;
  models?: readonly string[];
}

/** A stored policy as listed. */
export interface PolicyInfo extends GrantedPolicy {
  updatedAt: string;
}

/** Reads and writes the policies table. */
export class PolicyStore {
  #db: Kysely<PoliciesDatabase>;

  /** Wraps a database whose gateway migrations are applied. */
  constructor(db: Kysely<PoliciesDatabase>) {
    this.#db = db;
  }

  /** Creates or replaces the policy of `subject`. */
  async set(subject: string, settings: KeySettings, now = Date.now()): Promise<void> {
    const row = {
      subject,
      rpm: settings.rpm ?? null,
      tpm: settings.tpm ?? null,
      max_concurrency: settings.maxConcurrency ?? null,
      budget_usd: settings.budgetUsd ?? null,
      budget_period: settings.budgetUsd != null ? settings.budgetPeriod ?? null : null,
      models: settings.models ? JSON.stringify(settings.models) : null,
      updated_at: now,
    };
    const { subject: _, ...columns } = row;
    await this.#db.insertInto("gateway_principal_policies").values(row)
      .onConflict((c) => c.column("subject").doUpdateSet(columns)).execute();
  }

  /** Removes the policy of `subject`; false when there was none. */
  async remove(subject: string): Promise<boolean> {
    const result = await this.#db.deleteFrom("gateway_principal_policies").where("subject", "=", subject)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Every policy, by subject. */
  async list(): Promise<PolicyInfo[]> {
    const rows = await this.#db.selectFrom("gateway_principal_policies").selectAll().orderBy("subject")
      .execute();
    return rows.map((r) => ({
      ...grantedOfRow({ ...r, id: r.subject }),
      updatedAt: new Date(Number(r.updated_at)).toISOString(),
    }));
  }
}

/** The grant of one stored row. */
function grantedOfRow(row: PolicyRow & { subject: string }): GrantedPolicy {
  const policy = policyOfRow({ ...row, id: row.subject });
  const granted: GrantedPolicy = { subject: row.subject };
  if (policy.limits) granted.limits = policy.limits;
  if (policy.models) granted.models = policy.models;
  return Object.freeze(granted);
}

/**
 * The policy that applies to user `sub` in `groups`: their own, else the most specific group (a team before
 * its organisation; among equals the first by name), else the default; undefined: none applies.
 */
export function applicablePolicy(
  policies: ReadonlyMap<string, GrantedPolicy>,
  sub: string,
  groups: readonly string[],
): GrantedPolicy | undefined {
  const own = policies.get(`user:${sub}`);
  if (own) return own;
  const matching = groups.map((g) => policies.get(`group:${g.toLowerCase()}`)).filter((p) => p !== undefined);
  if (matching.length) {
    const depth = (p: GrantedPolicy) => p.subject.split("/").length;
    matching.sort((a, b) => depth(b) - depth(a) || (a.subject < b.subject ? -1 : 1));
    return matching[0];
  }
  return policies.get(DEFAULT_USER_SUBJECT);
}

/** Loads every stored policy (the snapshot's source). */
export type PoliciesLoader = () => Promise<Array<PolicyRow & { subject: string }>>;

/** The loader reading `store`'s database. */
export function policiesLoader(db: () => Promise<Kysely<PoliciesDatabase>>): PoliciesLoader {
  return async () =>
    (await (await db()).selectFrom("gateway_principal_policies").selectAll().execute()).map((r) => ({
      ...r,
      id: r.subject,
    }));
}

/** The cached snapshot of the policies table. */
export class PolicySnapshot {
  #load: PoliciesLoader;
  #ttl: number;
  #now: () => number;
  #policies: ReadonlyMap<string, GrantedPolicy> = new Map();
  #loadedAt = -Infinity;
  #inflight: Promise<void> | null = null;

  /** Refreshes from `load` once older than `ttlMs`. */
  constructor(load: PoliciesLoader, ttlMs: number, now: () => number = Date.now) {
    this.#load = load;
    this.#ttl = ttlMs;
    this.#now = now;
  }

  /** Reloads now (single flight). */
  refresh(): Promise<void> {
    if (this.#inflight) return this.#inflight;
    const started = this.#now();
    this.#inflight = this.#load().then((rows) => {
      this.#policies = new Map(rows.map((r) => [r.subject, grantedOfRow(r)]));
      this.#loadedAt = started;
    }).finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  /** The current policies, refreshed as the TTL says. */
  async current(): Promise<ReadonlyMap<string, GrantedPolicy>> {
    const age = this.#now() - this.#loadedAt;
    if (age >= 2 * this.#ttl || age < 0) await this.refresh();
    else if (age >= this.#ttl) this.refresh().catch(() => {});
    return this.#policies;
  }
}
