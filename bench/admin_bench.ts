/**
 * `deno task bench:admin`: server time of each admin console page over a ledger of 100k rows (30 days, 20
 * keys, 4 models, 3 providers, 5 % errors), in process on a local libSQL file, against the 50 ms target and,
 * as the in-run references, the Usage page's sums read from the ledger rows instead of the rollups of
 * migration 0005 (what the page did before them) and the report.ts path (`GET /admin/api/usage`), which reads
 * every row; then what the rollup trigger costs a ledger write (batches of 200 rows, with and without it).
 */
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { createConsole } from "../gateway/console/app.ts";
import type { ConsoleDatabase } from "../gateway/console/session_store.ts";
import type { KeysDatabase } from "../gateway/keys/store.ts";
import type { UsageDatabase } from "../gateway/usage/ledger.ts";
import { parseAdmins } from "../gateway/console/settings.ts";
import { sha256Hex } from "@switchyard/lib/crypto.ts";
import { ApiKeyStore } from "../gateway/keys/store.ts";
import { MemoryCounters } from "../gateway/limits/counters.ts";
import { CircuitBreakers } from "../gateway/upstream/circuit_breaker.ts";
import { usageReport } from "../gateway/usage/report.ts";
import { aggregateUsage } from "../gateway/usage/series.ts";
import { kyselyLedgerStore } from "../gateway/usage/ledger_store.ts";
import type { UsageRow } from "../gateway/usage/ledger.ts";

const ROWS = 100_000;
const TARGET_MS = 50;
const RUNS = 15;
const DAY = 86_400_000;

const dir = await Deno.makeTempDir({ prefix: "bench-admin-" });
const { client, db } = await openDatabase<KeysDatabase & UsageDatabase & ConsoleDatabase>({
  url: `file:${dir}/gateway.db`,
});
await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
const store = new ApiKeyStore(db);
const keyIds: string[] = [];
for (let i = 0; i < 20; i++) keyIds.push((await store.create(`key ${i}`, i % 2 ? { rpm: 60 } : {})).id);
const now = Date.now();
await client.execute({
  sql:
    `INSERT INTO gateway_usage (at, key_id, model, provider, served_model, attempts, input_tokens, output_tokens,
      cache_read_tokens, cache_write_tokens, cost_usd, status, error_type, latency_ms, ttft_ms, stream, trace_id,
      request_id, warning)
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    SELECT CAST(? AS INTEGER) - CAST(i * 30 * 86400000 / CAST(? AS INTEGER) AS INTEGER), json_extract(?, '$[' || (i % 20) || ']'),
      'model-' || (i % 4), 'provider-' || (i % 3), 'served-' || (i % 4), 1 + (i % 7 = 0), 100 + i % 900, 20 + i % 300,
      0, 0, (i % 100) / 10000.0, CASE WHEN i % 20 = 0 THEN 429 ELSE 200 END,
      CASE WHEN i % 20 = 0 THEN 'rate_limit_error' END, 50 + (i * 37) % 2000, NULL, i % 2,
      printf('%032x', i), 'req_' || i, NULL FROM n`,
  args: [ROWS, now, ROWS, JSON.stringify(keyIds)],
});
const sessionId = "bench-session";
await db.insertInto("gateway_console_sessions").values({
  id_hash: sha256Hex(sessionId),
  user_id: "bench",
  email: null,
  name: "Bench",
  csrf: "x",
  id_token: "unused",
  created_at: now,
  expires_at: now + DAY,
}).execute();
const handle = createConsole({
  settings: {
    issuer: "http://127.0.0.1:9/api/auth",
    origin: "http://127.0.0.1:37961",
    clientId: "bench",
    clientSecret: "bench",
    admins: parseAdmins("bench"),
    sessionMs: DAY,
    secure: false,
  },
  db: () => Promise.resolve(db),
  counters: new MemoryCounters(),
  breakers: new CircuitBreakers({ failures: 5, cooldownMs: 30_000 }),
  providers: [],
  keysChanged: () => {},
  logger: createLogger({ level: "silent" }),
});

async function timed(run: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], max: times[times.length - 1] };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const pages = [
  "/admin/keys",
  "/admin/usage",
  `/admin/usage?since=${day(now - 30 * DAY)}&until=${day(now)}&by=model`,
  `/admin/usage?since=${day(now - 7 * DAY)}&until=${day(now)}&step=hour&by=provider`,
  "/admin/requests",
  "/admin/requests?status=429",
  `/admin/requests?model=model-2&key=${keyIds[3]}`,
  "/admin/providers",
];
console.log(`admin console over ${ROWS} ledger rows (${RUNS} runs each; target ${TARGET_MS} ms server time)`);
console.log("| page | p50 ms | max ms | vs target |");
console.log("| --- | ---: | ---: | --- |");
for (const path of pages) {
  const result = await timed(async () => {
    const response = await handle(
      new Request(`http://127.0.0.1:37961${path}`, { headers: { cookie: `gw_console=${sessionId}` } }),
    );
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    await response.text();
  });
  const verdict = result.p50 < TARGET_MS ? "under" : "OVER";
  console.log(`| ${path} | ${result.p50.toFixed(1)} | ${result.max.toFixed(1)} | ${verdict} |`);
}
const reference = await timed(() => usageReport(db, { since: now - 30 * DAY, until: now + 1, by: "model" }));
console.log(
  `| reference: report.ts usageReport (30 days by model, reads every row) | ${reference.p50.toFixed(1)} | ${
    reference.max.toFixed(1)
  } | ${reference.p50 < TARGET_MS ? "under" : "OVER"} |`,
);
const sinceMonth = Date.parse(`${day(now - 30 * DAY)}T00:00:00Z`);
const untilToday = Date.parse(`${day(now)}T00:00:00Z`) + DAY;
for (
  const [label, step, by, since] of [
    ["usage (30 days by model)", "day", "model", sinceMonth],
    ["usage (7 days hourly by provider)", "hour", "provider", untilToday - 7 * DAY],
  ] as const
) {
  for (const source of ["rollup", "ledger"] as const) {
    const result = await timed(() => aggregateUsage(db, { since, until: untilToday }, step, by, source));
    console.log(
      `| ${label}: sums from the ${source === "rollup" ? "rollups" : "ledger rows"} | ${
        result.p50.toFixed(1)
      } | ${result.max.toFixed(1)} | ${result.p50 < TARGET_MS ? "under" : "OVER"} |`,
    );
  }
}

// The write side: a batch of 200 rows as the ledger writes it, with the rollup trigger and without.
const ledgerStore = kyselyLedgerStore(() => Promise.resolve(db));
let batchNumber = 0;
const batch = (): UsageRow[] =>
  Array.from({ length: 200 }, (_, i) => ({
    at: now - i * 1000,
    key_id: keyIds[i % 20],
    model: `model-${i % 4}`,
    provider: `provider-${i % 3}`,
    served_model: null,
    attempts: 1,
    input_tokens: 100,
    output_tokens: 20,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0.001,
    status: 200,
    error_type: null,
    latency_ms: 100 + i,
    ttft_ms: null,
    stream: 0,
    trace_id: `bench-${batchNumber}-${i}`,
    request_id: `bench-${batchNumber++}-${i}`,
    warning: null,
  }));
const withTrigger = await timed(() => ledgerStore.insert(batch()));
await client.execute("DROP TRIGGER gateway_usage_rollup_insert");
const withoutTrigger = await timed(() => ledgerStore.insert(batch()));
console.log(
  `| ledger write of 200 rows, with / without the rollup trigger | ${withTrigger.p50.toFixed(1)} / ${
    withoutTrigger.p50.toFixed(1)
  } | ${withTrigger.max.toFixed(1)} / ${withoutTrigger.max.toFixed(1)} | (off the request path) |`,
);
client.close();
await Deno.remove(dir, { recursive: true });
