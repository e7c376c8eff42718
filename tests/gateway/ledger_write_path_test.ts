/**
 * The ledger's batch write (gateway/usage/rollup.ts: SQL texts kept per row count, flat positional values)
 * stores exactly what the Kysely query builder wrote before it (bench/ledger_kysely_writer.ts): every column
 * of every row, nulls included, and every rollup sum, through the in-thread Kysely store and the worker
 * store alike, for batches of several sizes that add to the same rollup rows again.
 */
import assert from "node:assert/strict";
import type { Client } from "@libsql/client";
import type { Kysely } from "kysely";
import { createClient } from "@libsql/client";
import { kyselyFor, openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { USAGE_COLUMNS, type UsageDatabase, type UsageRow, usageValues } from "../../gateway/usage/row.ts";
import { MAX_INSERT_ROWS, writeUsageBatch } from "../../gateway/usage/rollup.ts";
import { kyselyLedgerStore, workerLedgerStore } from "../../gateway/usage/ledger_store.ts";
import { writeUsageBatchWithBuilder } from "../../bench/ledger_kysely_writer.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 27, 22); // two hours before a UTC day boundary

/** Rows that differ in every column, with every nullable column null in some, over several hours and days. */
function sampleRows(count: number, offset: number): UsageRow[] {
  return Array.from({ length: count }, (_, j) => {
    const i = j + offset;
    const row: UsageRow = {
      at: START + ((i * 997_003) % (5 * HOUR)),
      // The last batch: enough keys for over MAX_INSERT_ROWS rollup sums.
      key_id: `key_${i < 439 ? i % 3 : i % 160}`,
      model: ["claude-sonnet-4-5", "openai/gpt-4.1", "gemini-2.5-pro"][i % 3 === 0 ? 0 : i % 2 + 1],
      provider: i % 5 === 0 ? null : ["anthropic", "openai", "gemini"][i % 3],
      served_model: i % 4 === 0 ? null : `served-${i % 4}`,
      attempts: i % 3,
      input_tokens: 1000 + i * 7,
      output_tokens: 10 + i * 3,
      cache_read_tokens: i * 11,
      cache_write_tokens: i * 13,
      cost_usd: i * 0.0000317 + 0.1 / (i + 3),
      status: [200, 200, 429, 500, 400][i % 5],
      error_type: i % 5 >= 2 ? ["rate_limit_error", "api_error", "invalid_request_error"][i % 5 - 2] : null,
      latency_ms: 100 + i / 7,
      ttft_ms: i % 2 ? null : 20 + i / 9,
      stream: i % 2,
      trace_id: `trace-${i}`,
      request_id: `req_${i}`,
      warning: i % 6 === 0 ? `no price for x/${i}; cost counted as 0` : null,
      ingress: ["anthropic", "openai-chat", "openai-responses"][i % 3],
    };
    if (i % 7 === 0) delete row.ingress; // an absent format is the default's
    return row;
  });
}

/** Every column of every row (id first) and every rollup row. */
async function dump(client: Client) {
  const rows = await client.execute("SELECT * FROM gateway_usage ORDER BY id");
  const rollups = await client.execute(
    "SELECT * FROM gateway_usage_rollup ORDER BY width, start, key_id, model, provider",
  );
  const plain = (r: Record<string, unknown>) => ({ ...r });
  return { rows: rows.rows.map(plain), rollups: rollups.rows.map(plain), columns: rows.columns };
}

async function openMigrated(dir: string, name: string) {
  const url = `file:${dir}/${name}.db`;
  const { client, db } = await openDatabase<UsageDatabase>({ url });
  await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
  return { url, client, db: db as Kysely<UsageDatabase> };
}

// Sizes that give different SQL texts, later batches that add to rollup rows earlier ones made, and a batch
// over MAX_INSERT_ROWS rows (and rollup sums), written as several statements.
const BATCHES = [[1, 0], [200, 1], [37, 201], [199, 238], [2, 437], [450, 439]] as const;

Deno.test("the ledger's batch write stores each column and rollup sum Kysely's builder did", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledger-write-" });
  const before = await openMigrated(dir, "builder");
  const direct = await openMigrated(dir, "direct");
  const viaWorker = await openMigrated(dir, "worker");
  const worker = workerLedgerStore(viaWorker.url);
  const store = kyselyLedgerStore(() => Promise.resolve(direct.db));
  // @libsql/client's own client behind Kysely: the Client interface and transactions a remote database has
  // (the suite's file client prepares and serializes on its own).
  const library = await openMigrated(dir, "library");
  library.client.close();
  const libraryClient = createClient({ url: library.url });
  const libraryStore = kyselyLedgerStore(() => Promise.resolve(kyselyFor<UsageDatabase>(libraryClient)));
  try {
    for (const [count, offset] of BATCHES) {
      await writeUsageBatchWithBuilder(
        before.db,
        sampleRows(count, offset).map((r) => ({
          ...r,
          ingress: r.ingress ?? "anthropic", // the ledger's record() filled it in before the builder saw it
        })),
      );
      await store.insert(sampleRows(count, offset));
      await worker.insert(sampleRows(count, offset));
      await libraryStore.insert(sampleRows(count, offset));
    }
    const expected = await dump(before.client);
    assert.equal(expected.rows.length, 889);
    const lastBatchOnly = expected.rollups.filter((r) =>
      !["key_0", "key_1", "key_2"].includes(r.key_id as string)
    );
    assert.ok(lastBatchOnly.length > MAX_INSERT_ROWS, "the last batch's rollup takes several statements");
    assert.ok(expected.rollups.length > 20, "several keys, models, providers, hours and days");
    assert.deepEqual(await dump(direct.client), expected, "the Kysely store (remote databases)");
    worker.close();
    assert.deepEqual(await dump(viaWorker.client), expected, "the worker store (local files)");
    assert.deepEqual(await dump(libraryClient), expected, "through @libsql/client's own client");

    // And against the rows themselves: each stored row is its input, column by column.
    const inputs = BATCHES.flatMap(([count, offset]) => sampleRows(count, offset));
    expected.rows.forEach((stored, i) => {
      for (const column of USAGE_COLUMNS) {
        const want = column === "ingress" ? inputs[i].ingress ?? "anthropic" : inputs[i][column];
        assert.equal(stored[column], want, `row ${i} column ${column}`);
      }
    });
  } finally {
    worker.close();
    for (const { client } of [before, direct, viaWorker]) client.close();
    libraryClient.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the rollups a batch write adds equal the ledger rows summed per hour and day", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledger-rollup-" });
  const { client, db } = await openMigrated(dir, "sums");
  try {
    for (const [count, offset] of BATCHES) await writeUsageBatch(db, sampleRows(count, offset));
    const summed = await client.execute(
      `SELECT w.width, at - at % w.width AS start, key_id, model, coalesce(provider, '') AS provider,
        count(*) AS requests, sum(status >= 400) AS errors, sum(input_tokens) AS input_tokens,
        sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd, sum(latency_ms) AS latency_sum,
        max(latency_ms) AS max_latency_ms
      FROM gateway_usage, (SELECT ${HOUR} AS width UNION ALL SELECT ${DAY}) AS w
      GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    );
    const { rollups } = await dump(client);
    assert.equal(rollups.length, summed.rows.length);
    assert.ok(rollups.some((r) => r.width === DAY && r.start === START - START % DAY + DAY), "the next day");
    rollups.forEach((rollup, i) => {
      const want = summed.rows[i] as unknown as Record<string, number | string>;
      for (const [column, value] of Object.entries(want)) {
        // Sums of reals in another order may differ in the last bits.
        if (column === "cost_usd" || column === "latency_sum") {
          assert.ok(Math.abs((rollup[column] as number) - (value as number)) < 1e-9, `${column} of ${i}`);
        } else assert.equal(rollup[column], value, `${column} of rollup ${i}`);
      }
    });
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a batch's flat values hold every column of the ledger table but its id, in order", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ledger-columns-" });
  const { client } = await openMigrated(dir, "columns");
  try {
    const info = await client.execute("PRAGMA table_info(gateway_usage)");
    const columns = info.rows.map((r) => r.name as string).filter((name) => name !== "id");
    assert.deepEqual([...USAGE_COLUMNS].sort(), columns.sort(), "a new column must be written by the ledger");
    const [row] = sampleRows(1, 1);
    assert.deepEqual(usageValues([row]), USAGE_COLUMNS.map((c) => row[c]));
    assert.deepEqual(usageValues([{ ...row, ingress: undefined }]).at(-1), "anthropic");
  } finally {
    client.close();
    await Deno.remove(dir, { recursive: true });
  }
});
