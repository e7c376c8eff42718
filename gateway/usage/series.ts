/**
 * Aggregates over the usage ledger computed by SQLite itself (GROUP BY over the `at` indexes), for the admin
 * console and its exports: time buckets (hour or UTC day), breakdowns by key, model or provider, per-key
 * request counts, per-provider error rates, and the latest rows. report.ts reads every matching row to get
 * exact percentiles (fine for a CLI); pages must render in milliseconds over 100k rows, so they use this.
 */
import { type Kysely, sql } from "kysely";
import type { UsageDatabase, UsageRow } from "./ledger.ts";

/** Bucket widths. */
export const STEPS = { hour: 3_600_000, day: 86_400_000 } as const;

/** The groupings of a breakdown. */
export const BREAKDOWNS = ["key", "model", "provider"] as const;

/** Which rows an aggregate covers. */
export interface SeriesFilters {
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive. */
  until: number;
  /** One key id, or all. */
  key?: string;
}

/** Sums over a set of rows. */
export interface Aggregate {
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** Mean latency (ms), null without rows. */
  avg_latency_ms: number | null;
  max_latency_ms: number | null;
}

const AGGREGATE = sql<Aggregate>`count(*) AS requests,
  coalesce(sum(CASE WHEN status >= 400 THEN 1 ELSE 0 END), 0) AS errors,
  coalesce(sum(input_tokens), 0) AS input_tokens,
  coalesce(sum(output_tokens), 0) AS output_tokens,
  coalesce(sum(cost_usd), 0) AS cost_usd,
  avg(latency_ms) AS avg_latency_ms,
  max(latency_ms) AS max_latency_ms`;

function whereOf(filters: SeriesFilters) {
  return filters.key
    ? sql`WHERE key_id = ${filters.key} AND at >= ${filters.since} AND at < ${filters.until}`
    : sql`WHERE at >= ${filters.since} AND at < ${filters.until}`;
}

function numbers<T extends Aggregate>(row: T): T {
  return {
    ...row,
    requests: Number(row.requests),
    errors: Number(row.errors),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cost_usd: Math.round(Number(row.cost_usd) * 1e6) / 1e6,
    avg_latency_ms: row.avg_latency_ms === null ? null : Math.round(Number(row.avg_latency_ms) * 10) / 10,
    max_latency_ms: row.max_latency_ms === null ? null : Number(row.max_latency_ms),
  };
}

/** Totals per key, model or provider, busiest first. */
export async function aggregateBy(
  db: Kysely<UsageDatabase>,
  filters: SeriesFilters,
  by: typeof BREAKDOWNS[number],
): Promise<Array<{ group: string } & Aggregate>> {
  const column = sql.ref(by === "key" ? "key_id" : by);
  const result = await sql<{ group: string | null } & Aggregate>`SELECT ${column} AS "group", ${AGGREGATE}
    FROM gateway_usage ${whereOf(filters)} GROUP BY ${column} ORDER BY requests DESC LIMIT 200`.execute(db);
  return result.rows.map((r) => ({ ...numbers(r), group: r.group ?? "(none)" }));
}

interface Cell {
  bucket: number;
  group: string | null;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_sum: number;
  max_latency_ms: number | null;
}

/** Where {@link aggregateUsage} sums: the rollups of migration 0005, or the ledger rows themselves. */
export type UsageSource = "rollup" | "ledger";

/**
 * The cells of one GROUP BY bucket and group. From the rollups when the range falls on their buckets (the
 * console's ranges are whole UTC days): the daily rows for days, the hourly rows for hours, a few thousand
 * rows at most. Otherwise, or with `source: "ledger"` (the reference of bench:admin and the tests), from the
 * ledger's covering index of migration 0004, which reads every row of the range.
 */
async function usageCells(
  db: Kysely<UsageDatabase>,
  filters: SeriesFilters,
  width: number,
  column: "key_id" | "model" | "provider",
  source: UsageSource,
): Promise<Cell[]> {
  const rollup = source === "rollup" &&
    [STEPS.day, STEPS.hour].find((w) => w <= width && filters.since % w === 0 && filters.until % w === 0);
  if (rollup) {
    const group = column === "provider" ? sql`nullif(provider, '')` : sql.ref(column);
    const key = filters.key ? sql`AND key_id = ${filters.key}` : sql``;
    const result = await sql<Cell>`SELECT CAST(start / ${width} AS INTEGER) AS bucket, ${group} AS "group",
        sum(requests) AS requests, sum(errors) AS errors, sum(input_tokens) AS input_tokens,
        sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd, sum(latency_sum) AS latency_sum,
        max(max_latency_ms) AS max_latency_ms
      FROM gateway_usage_rollup
      WHERE width = ${rollup} AND start >= ${filters.since} AND start < ${filters.until} ${key}
      GROUP BY bucket, "group"`.execute(db);
    return result.rows;
  }
  const result = await sql<
    Cell
  >`SELECT CAST(at / ${width} AS INTEGER) AS bucket, ${sql.ref(column)} AS "group", count(*) AS requests,
      sum(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors, sum(input_tokens) AS input_tokens,
      sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd, sum(latency_ms) AS latency_sum,
      max(latency_ms) AS max_latency_ms
    FROM gateway_usage ${whereOf(filters)} GROUP BY bucket, "group"`.execute(db);
  return result.rows;
}

/** Totals, the time series and the breakdown from one GROUP BY bucket and group, combined here. */
export async function aggregateUsage(
  db: Kysely<UsageDatabase>,
  filters: SeriesFilters,
  step: keyof typeof STEPS,
  by: typeof BREAKDOWNS[number],
  source: UsageSource = "rollup",
): Promise<{
  totals: Aggregate;
  series: Array<{ start: number } & Aggregate>;
  groups: Array<{ group: string } & Aggregate>;
}> {
  const width = STEPS[step];
  const cells = await usageCells(db, filters, width, by === "key" ? "key_id" : by, source);
  type Sum = Omit<Aggregate, "avg_latency_ms"> & { latency_sum: number };
  const zero = (): Sum => ({
    requests: 0,
    errors: 0,
    input_tokens: 0,
    output_tokens: 0,
    cost_usd: 0,
    latency_sum: 0,
    max_latency_ms: null,
  });
  const add = (into: Sum, cell: Cell) => {
    into.requests += Number(cell.requests);
    into.errors += Number(cell.errors);
    into.input_tokens += Number(cell.input_tokens);
    into.output_tokens += Number(cell.output_tokens);
    into.cost_usd += Number(cell.cost_usd);
    into.latency_sum += Number(cell.latency_sum);
    const max = cell.max_latency_ms === null ? null : Number(cell.max_latency_ms);
    if (max !== null && (into.max_latency_ms === null || max > into.max_latency_ms)) {
      into.max_latency_ms = max;
    }
  };
  const finish = ({ latency_sum, ...sum }: Sum): Aggregate =>
    numbers({ ...sum, avg_latency_ms: sum.requests ? latency_sum / sum.requests : null });
  const total = zero();
  const buckets = new Map<number, Sum>();
  const groups = new Map<string, Sum>();
  for (const cell of cells) {
    add(total, cell);
    const bucket = Number(cell.bucket);
    if (!buckets.has(bucket)) buckets.set(bucket, zero());
    add(buckets.get(bucket)!, cell);
    const group = cell.group ?? "(none)";
    if (!groups.has(group)) groups.set(group, zero());
    add(groups.get(group)!, cell);
  }
  const series: Array<{ start: number } & Aggregate> = [];
  for (let b = Math.floor(filters.since / width); b * width < filters.until; b++) {
    series.push({ start: b * width, ...finish(buckets.get(b) ?? zero()) });
  }
  return {
    totals: finish(total),
    series,
    groups: [...groups].map(([group, sum]) => ({ group, ...finish(sum) }))
      .sort((a, b) => b.requests - a.requests),
  };
}

/** Filters of the requests list. */
export interface RequestFilters {
  key?: string;
  model?: string;
  /** `ok` (< 400), `error` (>= 400), or one status code. */
  status?: "ok" | "error" | number;
  /** Only rows with a smaller id (the next page). */
  before?: number;
}

/** A ledger row as listed (everything the ledger has; it never holds prompt or completion text). */
export type ListedRow = UsageRow & { id: number };

/** The latest `limit` rows matching `filters`, newest first. */
export async function latestRequests(
  db: Kysely<UsageDatabase>,
  filters: RequestFilters,
  limit = 50,
): Promise<ListedRow[]> {
  let query = db.selectFrom("gateway_usage").selectAll();
  if (filters.key) query = query.where("key_id", "=", filters.key);
  if (filters.model) query = query.where("model", "=", filters.model);
  if (filters.status === "ok") query = query.where("status", "<", 400);
  else if (filters.status === "error") query = query.where("status", ">=", 400);
  else if (typeof filters.status === "number") query = query.where("status", "=", filters.status);
  if (filters.before !== undefined) query = query.where("id", "<", filters.before);
  const rows = await query.orderBy("id", "desc").limit(limit).execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }) as ListedRow);
}

/** Requests and errors per key since `since`. */
export async function requestsPerKey(
  db: Kysely<UsageDatabase>,
  since: number,
): Promise<Map<string, { requests: number; errors: number; cost_usd: number }>> {
  const result = await sql<{ key_id: string; requests: number; errors: number; cost_usd: number }>`
    SELECT key_id, count(*) AS requests, sum(CASE WHEN status >= 400 THEN 1 ELSE 0 END) AS errors,
      coalesce(sum(cost_usd), 0) AS cost_usd
    FROM gateway_usage WHERE at >= ${since} GROUP BY key_id`.execute(db);
  return new Map(
    result.rows.map((r) => [r.key_id, {
      requests: Number(r.requests),
      errors: Number(r.errors),
      cost_usd: Number(r.cost_usd),
    }]),
  );
}
