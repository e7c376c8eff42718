/**
 * The ledger's hourly and daily rollups (migrations 0005/0006), written with each batch: the batch's rows are
 * summed per bucket, key, model and provider, and each sum is added to its rollup row in the same transaction
 * as the rows themselves, so the Usage page's sums always equal the ledger's. A batch of 200 rows from a few
 * keys and models costs a handful of upserts, where a per-row trigger cost 400.
 */
import { type Kysely, sql } from "kysely";
import type { UsageDatabase, UsageRow } from "./row.ts";

/** Bucket widths kept: an hour and a UTC day, in ms. */
export const ROLLUP_WIDTHS = [3_600_000, 86_400_000] as const;

/** One rollup row's increments. */
export type RollupIncrement = {
  width: number;
  start: number;
  key_id: string;
  model: string;
  provider: string;
  requests: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  latency_sum: number;
  max_latency_ms: number;
};

/** The rows summed per bucket (hour and day), key, model and provider. */
export function rollupIncrements(rows: readonly UsageRow[]): RollupIncrement[] {
  const sums = new Map<string, RollupIncrement>();
  for (const row of rows) {
    for (const width of ROLLUP_WIDTHS) {
      const start = row.at - row.at % width;
      const provider = row.provider ?? "";
      const key = `${width}\0${start}\0${row.key_id}\0${row.model}\0${provider}`;
      let sum = sums.get(key);
      if (!sum) {
        sum = {
          width,
          start,
          key_id: row.key_id,
          model: row.model,
          provider,
          requests: 0,
          errors: 0,
          input_tokens: 0,
          output_tokens: 0,
          cost_usd: 0,
          latency_sum: 0,
          max_latency_ms: -Infinity,
        };
        sums.set(key, sum);
      }
      sum.requests++;
      if (row.status >= 400) sum.errors++;
      sum.input_tokens += row.input_tokens;
      sum.output_tokens += row.output_tokens;
      sum.cost_usd += row.cost_usd;
      sum.latency_sum += row.latency_ms;
      sum.max_latency_ms = Math.max(sum.max_latency_ms, row.latency_ms);
    }
  }
  return [...sums.values()];
}

/** The rollup table as Kysely sees it. */
export type RollupDatabase = { gateway_usage_rollup: RollupIncrement };

/** Inserts a batch of ledger rows and adds them to the rollups, in one transaction (two statements). */
export async function writeUsageBatch(db: Kysely<UsageDatabase>, rows: UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  const increments = rollupIncrements(rows);
  await db.transaction().execute(async (tx) => {
    await tx.insertInto("gateway_usage").values(rows).execute();
    await tx.withTables<RollupDatabase>().insertInto("gateway_usage_rollup").values(increments)
      .onConflict((conflict) =>
        conflict.columns(["width", "start", "key_id", "model", "provider"]).doUpdateSet((eb) => ({
          requests: eb("requests", "+", eb.ref("excluded.requests")),
          errors: eb("errors", "+", eb.ref("excluded.errors")),
          input_tokens: eb("input_tokens", "+", eb.ref("excluded.input_tokens")),
          output_tokens: eb("output_tokens", "+", eb.ref("excluded.output_tokens")),
          cost_usd: eb("cost_usd", "+", eb.ref("excluded.cost_usd")),
          latency_sum: eb("latency_sum", "+", eb.ref("excluded.latency_sum")),
          max_latency_ms: sql<number>`max(max_latency_ms, excluded.max_latency_ms)`,
        }))
      )
      .execute();
  });
}
