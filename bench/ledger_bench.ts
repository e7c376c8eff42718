/**
 * `deno task bench:ledger [--rows 20000] [--rounds 3] [--batch 1000] [--old-batch 200]`: the usage
 * ledger's write side, the way it was (Kysely's query builder building each multi-row INSERT, row objects
 * posted to the writer thread, batches of 200: bench/ledger_kysely_writer.ts) against the way it is
 * (gateway/usage/rollup.ts: SQL texts kept per row count, a batch posted as one flat array, the ledger's
 * default batch size), in the same run on two temp libSQL files migrated alike.
 * Two lanes, alternating old/new each round: `in-thread` (the batch writer called on this thread, as the
 * remote Kysely store does) and `worker store` (through the writer thread a local file uses, as under
 * `deno task start`). Prints CPU µs per row of the whole process (all threads, getrusage) and of the main
 * thread alone, and the new/old ratio; then checks that both files hold the same rows and rollups.
 * `--server [--baseline <dir>]`: the ledger's cost in the bench server instead, thread by thread
 * (bench/ledger_threads.ts).
 */
import process from "node:process";
import type { Kysely } from "kysely";
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { USAGE_COLUMNS, type UsageDatabase, type UsageRow } from "../gateway/usage/row.ts";
import { writeUsageBatch } from "../gateway/usage/rollup.ts";
import { type LedgerStore, workerLedgerStore } from "../gateway/usage/ledger_store.ts";
import { DEFAULT_BATCH_SIZE } from "../gateway/usage/ledger.ts";
import { writeUsageBatchWithBuilder } from "./ledger_kysely_writer.ts";

const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};
if (Deno.args.includes("--server")) {
  // The ledger's cost in the bench server, thread by thread (bench/ledger_threads.ts).
  const { runLedgerThreads } = await import("./ledger_threads.ts");
  const baseline = Deno.args.indexOf("--baseline");
  await runLedgerThreads({
    baseline: baseline >= 0 ? Deno.args[baseline + 1].replace(/\/$/, "") : undefined,
    rounds: arg("rounds", 5),
    seconds: arg("seconds", 3),
  });
  Deno.exit(0);
}
const ROWS = arg("rows", 20_000);
const ROUNDS = arg("rounds", 3);
const BATCH = arg("batch", DEFAULT_BATCH_SIZE);
const OLD_BATCH = arg("old-batch", 200);

/** CPU µs of the whole process (every thread) so far. */
const processCpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
/** CPU µs of the calling thread so far (Linux: /proc/thread-self/schedstat, in ns). */
const threadCpu = () => Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[0]) / 1000;

const dir = await Deno.makeTempDir({ prefix: "ledger-bench-" });
const migrations = DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir;
const open = async (name: string) => {
  const url = `file:${dir}/${name}.db`;
  const { client, db } = await openDatabase<UsageDatabase>({ url });
  await migrateDirectory(client, migrations);
  return { url, client, db };
};
const old = await open("old");
const now = await open("new");

let serial = 0;
/** Rows shaped like the gateway's: a few keys and models, some nulls and errors, spread over three hours. */
function makeRows(count: number): UsageRow[] {
  const start = Date.UTC(2026, 10, 28, 5);
  return Array.from({ length: count }, (_, i) => {
    const n = serial++;
    const failed = n % 50 === 0;
    return {
      at: start + Math.floor((n * 10_800_000) / (ROWS * ROUNDS)) % 10_800_000,
      key_id: `key_${n % 4}`,
      model: ["claude-sonnet-4-5", "openai/gpt-4.1", "claude-haiku-4-5-20251001"][n % 3],
      provider: failed ? null : ["anthropic", "openai"][n % 2],
      served_model: failed ? null : "claude-sonnet-4-5-20250929",
      attempts: failed ? 0 : 1 + (n % 7 === 0 ? 1 : 0),
      input_tokens: 1000 + (n % 997),
      output_tokens: 50 + (n % 301),
      cache_read_tokens: n % 5 === 0 ? 12_000 : 0,
      cache_write_tokens: n % 11 === 0 ? 2_048 : 0,
      cost_usd: ((n % 997) + 1) * 0.0000031,
      status: failed ? 429 : 200,
      error_type: failed ? "rate_limit_error" : null,
      latency_ms: 100 + (n % 1000) / 100,
      ttft_ms: n % 2 ? null : 40 + (n % 100) / 100,
      stream: n % 2 ? 0 : 1,
      trace_id: `trace-${n.toString(16).padStart(16, "0")}`,
      request_id: `req_${n.toString(36).padStart(24, "0")}`,
      warning: n % 97 === 0 ? `no price for x/${n % 3}; cost counted as 0` : null,
      ingress: i % 13 === 0 ? "openai-chat" : "anthropic",
    };
  });
}

/** The 462c234 worker store: row objects posted as they are to bench/ledger_kysely_worker.ts. */
function builderWorkerStore(url: string): LedgerStore {
  const worker = new Worker(new URL("./ledger_kysely_worker.ts", import.meta.url), { type: "module" });
  let nextId = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  worker.onmessage = (event: MessageEvent<{ id: number; error?: string }>) => {
    const done = waiting.get(event.data.id)!;
    waiting.delete(event.data.id);
    if (event.data.error === undefined) done.resolve();
    else done.reject(new Error(event.data.error));
  };
  return {
    insert: (rows) => {
      const id = nextId++;
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, url, rows });
      return promise;
    },
    prune: () => Promise.reject(new Error("not benched")),
    close: () => worker.terminate(),
  };
}

type Lane = {
  name: string;
  old: (rows: UsageRow[]) => Promise<void>;
  new: (rows: UsageRow[]) => Promise<void>;
};
const oldStore = builderWorkerStore(old.url);
const newStore = workerLedgerStore(now.url);
const lanes: Lane[] = [
  {
    name: "in-thread",
    old: (rows) => writeUsageBatchWithBuilder(old.db, rows),
    new: (rows) => writeUsageBatch(now.db as Kysely<UsageDatabase>, rows),
  },
  { name: "worker store", old: (rows) => oldStore.insert(rows), new: (rows) => newStore.insert(rows) },
];

/** Writes `rows` in batches, one at a time (as the ledger does); CPU µs per row: process and main thread. */
async function measure(write: (rows: UsageRow[]) => Promise<void>, rows: UsageRow[], size: number) {
  const batches = [];
  for (let i = 0; i < rows.length; i += size) batches.push(rows.slice(i, i + size));
  const [cpu0, main0, wall0] = [processCpu(), threadCpu(), performance.now()];
  for (const batch of batches) await write(batch);
  const [cpu1, main1, wall1] = [processCpu(), threadCpu(), performance.now()];
  return { cpu: (cpu1 - cpu0) / rows.length, main: (main1 - main0) / rows.length, wall: wall1 - wall0 };
}

// Warm-up: both paths' statements prepared, workers started, JIT warm.
for (const lane of lanes) {
  const rows = makeRows(2 * Math.max(BATCH, OLD_BATCH));
  await measure(lane.old, rows, OLD_BATCH);
  await measure(lane.new, rows, BATCH);
}

const results = new Map<string, { old: number[]; new: number[]; oldMain: number[]; newMain: number[] }>();
for (const lane of lanes) results.set(lane.name, { old: [], new: [], oldMain: [], newMain: [] });
for (let round = 0; round < ROUNDS; round++) {
  for (const lane of lanes) {
    const rows = makeRows(ROWS);
    const r = results.get(lane.name)!;
    for (const side of round % 2 ? ["new", "old"] as const : ["old", "new"] as const) {
      const m = await measure(lane[side], rows, side === "old" ? OLD_BATCH : BATCH);
      r[side].push(m.cpu);
      r[side === "old" ? "oldMain" : "newMain"].push(m.main);
      console.error(
        `round ${round + 1}/${ROUNDS} ${lane.name} ${side}: ${m.cpu.toFixed(2)} µs CPU per row ` +
          `(main thread ${m.main.toFixed(2)}), ${(m.wall / rows.length * 1000).toFixed(2)} µs wall per row`,
      );
    }
  }
}
oldStore.close();
newStore.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
console.log(
  `\nbench:ledger: ${ROWS} rows per side per round, ${ROUNDS} rounds; before in batches of ${OLD_BATCH}, ` +
    `after in batches of ${BATCH}\n`,
);
console.log(
  "| lane | CPU µs per row, before (range) | after (range) | main thread before / after | ratio, median |",
);
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, r] of results) {
  const ratio = median(r.new.map((x, i) => x / r.old[i]));
  console.log(
    `| ${name} | ${median(r.old).toFixed(1)} (${range(r.old)}) | ${median(r.new).toFixed(1)} (${
      range(r.new)
    }) | ` +
      `${median(r.oldMain).toFixed(1)} / ${median(r.newMain).toFixed(1)} | ${ratio.toFixed(2)} |`,
  );
}

// Both files were given the same rows: every column must match, and every rollup sum (the sums of reals to
// rounding when the two sides' batches differ: a batch's sum is added to the stored one in another order).
const dump = async (client: typeof old.client) => {
  const rows = await client.execute(
    `SELECT ${USAGE_COLUMNS.join(", ")} FROM gateway_usage ORDER BY request_id, id`,
  );
  const rollup = await client.execute(
    "SELECT * FROM gateway_usage_rollup ORDER BY width, start, key_id, model, provider",
  );
  return { rows: JSON.stringify(rows.rows), rollups: rollup.rows as unknown as Record<string, unknown>[] };
};
const [before, after] = [await dump(old.client), await dump(now.client)];
const close = (a: unknown, b: unknown) =>
  a === b || (typeof a === "number" && typeof b === "number" && Math.abs(a - b) <= 1e-9 * Math.abs(a));
const same = before.rows === after.rows && before.rollups.length === after.rollups.length &&
  before.rollups.every((r, i) =>
    Object.entries(r).every(([column, value]) =>
      BATCH === OLD_BATCH ? value === after.rollups[i][column] : close(value, after.rollups[i][column])
    )
  );
console.log(
  `\nboth files hold the same rows and rollups${BATCH === OLD_BATCH ? "" : " (sums of reals to 1e-9)"}: ` +
    (same ? "yes" : "NO"),
);
old.client.close();
now.client.close();
await Deno.remove(dir, { recursive: true });
if (!same) Deno.exit(1);
