/**
 * Usage totals over the ledger, for `deno task gateway:usage` and `GET /admin/api/usage`: requests,
 * tokens, cost, error rate and p50/p95 latency, overall and grouped by key, model, provider or UTC day, or by
 * principal: `user` (people signed in with the suite, `user:<sub>`) or `repo` (CI runs, `repo:<owner/name>`),
 * which cover only that kind of principal.
 */
import type { Kysely } from "kysely";
import type { UsageDatabase } from "./ledger.ts";

/** The groupings a report may use. */
export const GROUPINGS = ["key", "model", "provider", "day", "user", "repo"] as const;

/** What a report covers. */
export interface UsageFilters {
  key?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
  by?: typeof GROUPINGS[number];
}

/** Totals of a set of rows. */
export interface UsageTotals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  errors: number;
  error_rate: number;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
}

/** A report: totals, and per group when grouped. */
export interface UsageReport {
  filters: { key: string | null; since: string | null; until: string | null; by: string | null };
  total: UsageTotals;
  groups?: Array<{ group: string } & UsageTotals>;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/**
 * Filters from raw strings (flags or query parameters named `${prefix}key` ...); every bad value is reported
 * with its name.
 */
export function parseUsageFilters(
  raw: { key?: string; since?: string; until?: string; by?: string },
  prefix: string,
): { ok: true; filters: UsageFilters } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const filters: UsageFilters = {};
  if (raw.key !== undefined) {
    if (!raw.key.trim()) problems.push(`${prefix}key: expected a key id`);
    else filters.key = raw.key.trim();
  }
  for (const name of ["since", "until"] as const) {
    const value = raw[name];
    if (value === undefined) continue;
    const at = ISO.test(value) ? Date.parse(value) : NaN;
    if (Number.isNaN(at)) {
      problems.push(
        `${prefix}${name}: expected an ISO 8601 date or time such as 2026-01-31, got ${
          JSON.stringify(value)
        }`,
      );
    } else filters[name] = at;
  }
  if (raw.by !== undefined) {
    if (!(GROUPINGS as readonly string[]).includes(raw.by)) {
      problems.push(`${prefix}by: expected one of ${GROUPINGS.join(", ")}, got ${JSON.stringify(raw.by)}`);
    } else filters.by = raw.by as UsageFilters["by"];
  }
  return problems.length ? { ok: false, problems } : { ok: true, filters };
}

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Row {
  at: number;
  key_id: string;
  model: string;
  provider: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  status: number;
  latency_ms: number;
}

function totalsOf(rows: Row[]): UsageTotals {
  const sum = (f: (r: Row) => number) => rows.reduce((n, r) => n + Number(f(r)), 0);
  const latencies = rows.map((r) => Number(r.latency_ms)).sort((a, b) => a - b);
  const errors = rows.filter((r) => Number(r.status) >= 400).length;
  return {
    requests: rows.length,
    input_tokens: sum((r) => r.input_tokens),
    output_tokens: sum((r) => r.output_tokens),
    cache_read_tokens: sum((r) => r.cache_read_tokens),
    cache_write_tokens: sum((r) => r.cache_write_tokens),
    cost_usd: Math.round(sum((r) => r.cost_usd) * 1e6) / 1e6,
    errors,
    error_rate: rows.length ? Math.round((errors / rows.length) * 10_000) / 10_000 : 0,
    p50_latency_ms: percentile(latencies, 50),
    p95_latency_ms: percentile(latencies, 95),
  };
}

const GROUP_OF: Record<NonNullable<UsageFilters["by"]>, (r: Row) => string> = {
  key: (r) => r.key_id,
  model: (r) => r.model,
  provider: (r) => r.provider ?? "(none)",
  day: (r) => new Date(Number(r.at)).toISOString().slice(0, 10),
  user: (r) => r.key_id,
  repo: (r) => r.key_id,
};

/** The report of the rows matching `filters`. */
export async function usageReport(db: Kysely<UsageDatabase>, filters: UsageFilters): Promise<UsageReport> {
  let query = db.selectFrom("gateway_usage").select([
    "at",
    "key_id",
    "model",
    "provider",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cost_usd",
    "status",
    "latency_ms",
  ]);
  if (filters.key) query = query.where("key_id", "=", filters.key);
  if (filters.since !== undefined) query = query.where("at", ">=", filters.since);
  if (filters.until !== undefined) query = query.where("at", "<", filters.until);
  if (filters.by === "user" || filters.by === "repo") {
    query = query.where("key_id", "like", `${filters.by}:%`);
  }
  const rows = await query.execute() as Row[];
  const iso = (ms?: number) => ms === undefined ? null : new Date(ms).toISOString();
  const report: UsageReport = {
    filters: {
      key: filters.key ?? null,
      since: iso(filters.since),
      until: iso(filters.until),
      by: filters.by ?? null,
    },
    total: totalsOf(rows),
  };
  if (filters.by) {
    const groups = new Map<string, Row[]>();
    for (const row of rows) {
      const name = GROUP_OF[filters.by](row);
      let list = groups.get(name);
      if (!list) groups.set(name, list = []);
      list.push(row);
    }
    report.groups = [...groups].sort(([a], [b]) => a.localeCompare(b))
      .map(([group, list]) => ({ group, ...totalsOf(list) }));
  }
  return report;
}

/** USD the key spent from `since` (epoch ms) on, by the ledger: where a budget's counter starts. */
export async function spentSince(db: Kysely<UsageDatabase>, keyId: string, since: number): Promise<number> {
  const row = await db.selectFrom("gateway_usage")
    .select((eb) => eb.fn.sum<number | null>("cost_usd").as("usd"))
    .where("key_id", "=", keyId)
    .where("at", ">=", since)
    .executeTakeFirst();
  return Number(row?.usd ?? 0);
}

/** A key's recent use as the ledger records it (finished requests only). */
export interface LedgerUsage {
  /** Requests that ended in the last minute. */
  requestsLastMinute: number;
  /** Their tokens (input, output and cache, as rate limits count them). */
  tokensLastMinute: number;
  /** USD spent since `periodStart`. */
  spentUsd: number;
}

/**
 * A key's use from the ledger: what `gateway:keys list` shows without Redis, when the in-process counters of
 * a running gateway are out of reach. Rows are written in batches, so the last second or so may be missing.
 */
export async function ledgerUsage(
  db: Kysely<UsageDatabase>,
  keyId: string,
  now: number,
  periodStart: number,
): Promise<LedgerUsage> {
  const recent = await db.selectFrom("gateway_usage")
    .select((eb) => [
      eb.fn.countAll<number>().as("requests"),
      eb.fn.sum<number | null>(
        eb(
          eb(eb("input_tokens", "+", eb.ref("output_tokens")), "+", eb.ref("cache_read_tokens")),
          "+",
          eb.ref("cache_write_tokens"),
        ),
      ).as("tokens"),
    ])
    .where("key_id", "=", keyId)
    .where("at", ">", now - 60_000)
    .executeTakeFirst();
  return {
    requestsLastMinute: Number(recent?.requests ?? 0),
    tokensLastMinute: Number(recent?.tokens ?? 0),
    spentUsd: await spentSince(db, keyId, periodStart),
  };
}
