/**
 * The gateway as the benchmark runs it: its own process (so its RSS is its own), the real app and key
 * verifier over a temp libSQL file, upstreams pointed at the bench mock, served as self-hosted (behind the
 * connection guard; `--guard off`: Deno.serve alone). An `https://` upstream is trusted through DENO_CERT (the
 * bench's test CA). Prints `{"url","key"}` on stdout.
 *
 * GATEWAY_BENCH_TIMELINE=<file> (bench only; `bench:gateway --timeline` sets it): the per-request timeline of
 * gateway/bench_timeline.ts is recorded for requests carrying `x-bench-timeline` (sent one at a time) and
 * written to that file as JSON on SIGTERM.
 */
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { createGatewayApp } from "../gateway/app.ts";
import { readGatewayConfig } from "../gateway/config/mod.ts";
import { startGatewayServer } from "../gateway/serve.ts";
import { ApiKeyStore, type KeysDatabase } from "../gateway/keys/store.ts";
import { KeyVerifier } from "../gateway/keys/verifier.ts";
import { createBatchedSink } from "../gateway/log_sink.ts";
import { type UsageDatabase, UsageLedger } from "../gateway/usage/ledger.ts";
import { workerLedgerStore } from "../gateway/usage/ledger_store.ts";
import { setTimelineMark, TIMELINE_POINTS } from "../gateway/bench_timeline.ts";

const upstream = Deno.args[0];
const dir = await Deno.makeTempDir({ prefix: "gateway-bench-" });
// A second OpenAI-compatible provider on the same mock, the fallback of the "fallback after a 503" lane.
await Deno.writeTextFile(
  `${dir}/gateway.yaml`,
  `providers:\n  backup: { type: openai-compatible, base_url: "${upstream}/v1", api_key_env: OPENAI_API_KEY }\n` +
    `fallbacks:\n  openai/gpt-503: [backup/gpt-bench]\n` +
    // A name routed to the same Anthropic model: the gateway re-serializes request and answer (no byte relay).
    `aliases:\n  claude-bench-alias: anthropic/claude-bench\n  "claude-bench-glob-*": anthropic/claude-bench\n` +
    // Three deployments behind one name on the same mock, per strategy (the routing rows).
    "deployments:\n" +
    ["least-busy", "latency"].map((strategy) =>
      `  claude-bench-${strategy}:\n    strategy: ${strategy}\n    targets:\n` +
      ["claude-bench", "claude-bench-2", "claude-bench-3"].map((m) => `      - { target: anthropic/${m} }\n`)
        .join("")
    ).join(""),
);
const config = readGatewayConfig({
  GATEWAY_CONFIG: `${dir}/gateway.yaml`,
  OPENAI_API_KEY: "sk-bench",
  OPENAI_BASE_URL: `${upstream}/v1`,
  ANTHROPIC_API_KEY: "sk-ant-bench",
  ANTHROPIC_BASE_URL: upstream,
  GATEWAY_DATABASE_URL: `file:${dir}/gateway.db`,
  // `--tracing`: the messages route's OpenTelemetry spans (the process runs with OTEL_DENO=true).
  ...(Deno.args.includes("--tracing") ? { OTEL_DENO: "true" } : {}),
  // `--guard off` serves on Deno.serve alone, to measure the connection guard's cost in the same run.
  GATEWAY_CONNECTION_GUARD: Deno.args.includes("--guard")
    ? Deno.args[Deno.args.indexOf("--guard") + 1]
    : "on",
  // `--client builtin|fetch`: GATEWAY_UPSTREAM_CLIENT (the HTTPS lanes run one gateway of each).
  ...(Deno.args.includes("--client")
    ? { GATEWAY_UPSTREAM_CLIENT: Deno.args[Deno.args.indexOf("--client") + 1] }
    : {}),
});
const { client, db } = await openDatabase<KeysDatabase & UsageDatabase>({ url: config.GATEWAY_DATABASE_URL });
await migrateDirectory(client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
const store = new ApiKeyStore(db);
// `--limits`: the bench key has limits (never reached), so every request goes through the limit enforcer.
const { key } = await store.create(
  "bench",
  Deno.args.includes("--limits") ? { rpm: 1e9, tpm: 1e12, maxConcurrency: 10_000 } : {},
);
const keys = new KeyVerifier(() => store.activeHashes(), { ttlMs: config.GATEWAY_KEY_CACHE_TTL_MS });
// Access logs off by default; `--access-log <file>` turns them on, as JSON lines appended to that file
// through the same batched sink as gateway/main.ts (a file, so no reader competes with the bench client).
const logIndex = Deno.args.indexOf("--access-log");
const accessLog = logIndex > 0;
const sink = accessLog
  ? createBatchedSink(Deno.openSync(Deno.args[logIndex + 1], { write: true, create: true, append: true }))
  : createBatchedSink();
const logger = createLogger({ level: accessLog ? "info" : "warn", base: { service: "gateway" }, sink });
// `--ledger`: the usage ledger on (one row per request, batched into the temp libSQL file, as in main.ts).
const usage = Deno.args.includes("--ledger")
  ? {
    ledger: new UsageLedger({
      db: () => Promise.resolve(db),
      store: workerLedgerStore(config.GATEWAY_DATABASE_URL),
      logger,
      retentionDays: 90,
    }),
    db: () => Promise.resolve(db),
  }
  : undefined;
const app = createGatewayApp(config, { logger, keys, usage });
const timelineFile = Deno.env.get("GATEWAY_BENCH_TIMELINE");
const timeline = timelineFile ? recordTimeline(app.fetch) : undefined;
const server = await startGatewayServer(timeline?.fetch ?? app.fetch, config, { port: 0 });
console.log(JSON.stringify({ url: server.url, key }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
// Exit cleanly on SIGTERM (the bench's `child.kill()`) so unload handlers and --cpu-prof output run.
Deno.addSignalListener("SIGTERM", () => {
  if (timeline) Deno.writeTextFileSync(timelineFile!, JSON.stringify(timeline.dump()));
  Deno.exit(0);
});

/** Wraps `fetch` to mark each request's arrival and hand-back, around the gateway's own marks. */
function recordTimeline(fetch: (request: Request) => Response | Promise<Response>) {
  const records: number[][] = [];
  let current: number[] = [];
  setTimelineMark((point) => current[point] = performance.now());
  const keep = (request: Request, marks: number[], status: number) => {
    marks[TIMELINE_POINTS.length - 1] = performance.now();
    if (request.headers.has("x-bench-timeline")) records.push([status, ...marks]);
  };
  return {
    fetch: (request: Request) => {
      const marks: number[] = current = new Array(TIMELINE_POINTS.length).fill(NaN);
      marks[0] = performance.now();
      const response = fetch(request);
      if (response instanceof Response) {
        keep(request, marks, response.status);
        return response;
      }
      return response.then((r) => {
        keep(request, marks, r.status);
        return r;
      });
    },
    dump: () => ({ points: TIMELINE_POINTS, records }),
  };
}
