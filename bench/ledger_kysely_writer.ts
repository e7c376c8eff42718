/**
 * The ledger's batch write as it was before bench:ledger (commit 462c234): the rows handed to Kysely's query
 * builder (`insertInto(...).values(rows)`, a 200-row INSERT built as operation nodes and compiled per batch)
 * and the rollup upsert likewise. Kept only as the "before" side of bench/ledger_bench.ts and as the
 * reference the write-path tests compare gateway/usage/rollup.ts against; the gateway no longer calls it.
 */
import { type Kysely, sql } from "kysely";
import type { UsageDatabase, UsageRow } from "../gateway/usage/row.ts";
import { ROLLUP_WIDTHS } from "../gateway/usage/rollup.ts";

/** One rollup row's increments. */
type RollupIncrement = {
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

/** The rows summed per bucket (hour and day), key, model and provider, as objects. */
function rollupIncrementObjects(rows: readonly UsageRow[]): RollupIncrement[] {
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

/** Inserts a batch through Kysely's query builder and adds it to the rollups, in one transaction. */
export async function writeUsageBatchWithBuilder(db: Kysely<UsageDatabase>, rows: UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  const increments = rollupIncrementObjects(rows);
  await db.transaction().execute(async (tx) => {
    await tx.insertInto("gateway_usage").values(rows).execute();
    await tx.withTables<{ gateway_usage_rollup: RollupIncrement }>().insertInto("gateway_usage_rollup")
      .values(increments)
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
