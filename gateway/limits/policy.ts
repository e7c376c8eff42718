/**
 * What a key may do: its limits and budget (absent: unlimited), the models it may use, its expiry, and
 * whether it is an admin key. Read from the key table once per key-cache refresh, never per request.
 */

/** The budget period of a key: spend resets at 00:00 UTC each day or on the 1st of each month. */
export type BudgetPeriod = "day" | "month";

/** The limits of one key; every field is optional (absent: no limit of that kind). */
export interface KeyLimits {
  /** Requests per minute. */
  rpm?: number;
  /** Tokens (input + output, as the upstream reports them) per minute. */
  tpm?: number;
  /** Requests in flight at once. */
  maxConcurrency?: number;
  /** Spend per period in USD. */
  budgetUsd?: number;
  /** The budget's period (required with `budgetUsd`). */
  budgetPeriod?: BudgetPeriod;
}

/** A verified key and what it may do. */
export interface KeyPolicy {
  /** The key's id. */
  id: string;
  /** Its limits; undefined when it has none (the request path then skips the counters entirely). */
  limits?: Readonly<KeyLimits>;
  /** Models (names asked for, aliases or `provider/model`) the key may use; undefined: all. */
  models?: readonly string[];
  /** Epoch ms after which the key is refused. */
  expiresAt?: number;
  /** An admin key: the admin API only. */
  admin: boolean;
}

/** The row fields a policy is read from. */
export interface PolicyRow {
  id: string;
  rpm?: number | null;
  tpm?: number | null;
  max_concurrency?: number | null;
  budget_usd?: number | null;
  budget_period?: string | null;
  models?: string | null;
  expires_at?: number | null;
  admin?: number;
}

/** The policy of a key row. */
export function policyOfRow(row: PolicyRow): KeyPolicy {
  const limits: KeyLimits = {};
  if (row.rpm != null) limits.rpm = Number(row.rpm);
  if (row.tpm != null) limits.tpm = Number(row.tpm);
  if (row.max_concurrency != null) limits.maxConcurrency = Number(row.max_concurrency);
  if (row.budget_usd != null && row.budget_period != null) {
    limits.budgetUsd = Number(row.budget_usd);
    limits.budgetPeriod = row.budget_period === "day" ? "day" : "month";
  }
  const policy: KeyPolicy = { id: row.id, admin: Number(row.admin) === 1 };
  if (Object.keys(limits).length) policy.limits = Object.freeze(limits);
  if (row.models != null) policy.models = Object.freeze(JSON.parse(row.models) as string[]);
  if (row.expires_at != null) policy.expiresAt = Number(row.expires_at);
  return Object.freeze(policy);
}

/** The start (inclusive) and end (exclusive) of the budget period holding `now`, in epoch ms (UTC). */
export function periodBounds(period: BudgetPeriod, now: number): { start: number; end: number } {
  const d = new Date(now);
  if (period === "day") {
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { start, end: start + 86_400_000 };
  }
  return {
    start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}
