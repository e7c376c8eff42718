/**
 * The Usage page's rollups (migration 0005) sum to exactly what the ledger rows do, for every step, breakdown
 * and key filter, after rows written before the migration (its backfill), after more batches (written with their
 * rollup increments) and
 * after a prune.
 */
import assert from "node:assert/strict";
import { openDatabase } from "@switchyard/lib/db.ts";
import { applyMigrations, readMigrationFiles } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import type { UsageDatabase, UsageRow } from "./ledger.ts";
import { kyselyLedgerStore, pruneLedger } from "./ledger_store.ts";
import { aggregateUsage, BREAKDOWNS, type SeriesFilters, STEPS } from "./series.ts";

const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 1);

function rows(count: number, seed: number): UsageRow[] {
  let state = seed;
  const next = (n: number) => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) % n;
  return Array.from({ length: count }, (_, i) => ({
    at: START + next(10 * DAY),
    key_id: `key_${next(3)}`,
    model: `model-${next(3)}`,
    provider: next(4) === 0 ? null : `provider-${next(2)}`,
    served_model: null,
    attempts: 1,
    input_tokens: next(1000),
    output_tokens: next(300),
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: next(1000) / 10_000,
    status: next(10) === 0 ? 529 : 200,
    error_type: null,
    latency_ms: next(5000) / 7,
    ttft_ms: null,
    stream: 0,
    trace_id: `t${seed}-${i}`,
    request_id: `r${seed}-${i}`,
    warning: null,
  }));
}

Deno.test("the usage rollups sum to the ledger rows through backfill, batch writes and prune", async () => {
  const dir = await Deno.makeTempDir({ prefix: "usage-rollup-" });
  const { client, db } = await openDatabase<UsageDatabase>({ url: `file:${dir}/gateway.db` });
  try {
    const files = await readMigrationFiles(
      DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir,
    );
    const rollupAt = files.findIndex((f) => f.name.startsWith("0005_"));
    assert.ok(rollupAt > 0, "migration 0005 exists");
    await applyMigrations(client, files.slice(0, rollupAt));
    const store = kyselyLedgerStore(() => Promise.resolve(db));
    // Rows an older gateway wrote before the rollups existed: the migration's backfill sums them.
    await db.insertInto("gateway_usage").values(rows(400, 1)).execute();
    await applyMigrations(client, files);
    await store.insert(rows(250, 2)); // after: each batch adds itself to the rollups
    await store.insert(rows(150, 3));

    const ranges: SeriesFilters[] = [
      { since: START, until: START + 10 * DAY },
      { since: START + 2 * DAY, until: START + 5 * DAY, key: "key_1" },
      { since: START + 3 * STEPS.hour, until: START + 2 * DAY + 5 * STEPS.hour }, // hours only
      { since: START + 1234, until: START + 8 * DAY }, // neither: read from the ledger
    ];
    const compare = async (label: string) => {
      for (const filters of ranges) {
        for (const step of Object.keys(STEPS) as Array<keyof typeof STEPS>) {
          for (const by of BREAKDOWNS) {
            const rollup = await aggregateUsage(db, filters, step, by, "rollup");
            const ledger = await aggregateUsage(db, filters, step, by, "ledger");
            assert.deepEqual(rollup, ledger, `${label}: ${JSON.stringify(filters)} ${step} by ${by}`);
          }
        }
      }
    };
    await compare("backfill and batch writes");
    const all = await aggregateUsage(db, ranges[0], "day", "provider");
    assert.equal(all.totals.requests, 800);
    assert.ok(all.groups.some((g) => g.group === "(none)"), "rows without a provider are their own group");

    await pruneLedger(db, START + 4 * DAY);
    await compare("after a prune");
    const left = await aggregateUsage(db, ranges[0], "day", "key");
    assert.ok(left.totals.requests > 0 && left.totals.requests < 800);
    await assert.rejects(pruneLedger(db, START + 4 * DAY + 1), /UTC day boundary/);

    // The aligned ranges really are read from the rollups: emptied, they sum to nothing.
    await client.execute("DELETE FROM gateway_usage_rollup");
    assert.equal((await aggregateUsage(db, ranges[0], "day", "key")).totals.requests, 0);
    assert.equal((await aggregateUsage(db, ranges[2], "hour", "key")).totals.requests, 0);
    assert.ok((await aggregateUsage(db, ranges[3], "day", "key")).totals.requests > 0);
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
});
