/**
 * Scenario 4, Redis goes away: two `deno serve gateway/main.ts` processes share one redis-server, which is
 * SIGKILLed under load and restarted empty on the same port. While it is down, keys with only rate limits
 * are admitted uncounted (GATEWAY_REDIS_RATE_LIMITS_ON_FAILURE=open) and keys with a budget are refused with
 * a retryable 503 (GATEWAY_REDIS_BUDGETS_ON_FAILURE=closed), none waiting beyond GATEWAY_REDIS_TIMEOUT_MS
 * plus its own latency; once it is back, both processes count together again without a restart, and a
 * budget spent before the outage is still spent (rebuilt from the ledger). Time to recover counts from the
 * restart of redis-server until both processes count again (each reconnects on a backoff of at most 2 s).
 */
import { startHarness } from "../gateway/harness.ts";
import { GATEWAY_ENTRY, type GatewayOutcome, sendMessages } from "./gateway_load.ts";
import {
  freePort,
  type RedisProcess,
  type ServiceProcess,
  sleep,
  spawnRedis,
  spawnServe,
} from "./processes.ts";
import { check, emptyResult, type ScenarioResult } from "./report.ts";

/** Options of {@link runRedisOutage}. */
export interface RedisOutageOptions {
  /** Outages to inject. */
  outages: number;
  /** How long each lasts (ms). */
  outageMs: number;
  /** Concurrent clients. */
  clients: number;
  /** GATEWAY_REDIS_TIMEOUT_MS of the gateways. */
  timeoutMs: number;
}

const PRICING = `pricing:\n  openai/fx-text: { input: 10, output: 20 }\n`;
const MODEL = "openai/fx-text";

interface Timed extends GatewayOutcome {
  key: "rpm" | "budget" | "spent";
  startedAt: number;
}

/** Runs the scenario and returns its counts and invariants. */
export async function runRedisOutage(options: RedisOutageOptions): Promise<ScenarioResult> {
  const result = emptyResult("4 Redis killed and restarted empty");
  const h = await startHarness({}, PRICING);
  const redisPort = freePort();
  let redis: RedisProcess | undefined = await spawnRedis(redisPort);
  const gateways: ServiceProcess[] = [];
  try {
    const env = {
      ...h.env,
      LOG_LEVEL: "error",
      GATEWAY_REDIS_URL: redis.url,
      GATEWAY_REDIS_TIMEOUT_MS: String(options.timeoutMs),
      GATEWAY_USAGE_FLUSH_MS: "100",
    };
    const keys = {
      rpm: (await h.store.create("chaos-rpm", { rpm: 1_000_000 })).key,
      budget: (await h.store.create("chaos-budget", { budgetUsd: 1000, budgetPeriod: "day" })).key,
      // fx-text costs $0.0013 a request at these prices: this budget admits three.
      spent: (await h.store.create("chaos-spent", { budgetUsd: 0.0035, budgetPeriod: "day" })).key,
    };
    gateways.push(await spawnServe(GATEWAY_ENTRY, env), await spawnServe(GATEWAY_ENTRY, env));
    await sleep(400);
    const urls = gateways.map((g) => g.url);
    const outcomes: Timed[] = [];
    const send = async (key: Timed["key"], i: number) => {
      const startedAt = performance.now();
      const outcome = await sendMessages(urls[i % 2], keys[key], MODEL, i % 3 === 0);
      outcomes.push({ ...outcome, key, startedAt });
      return outcome;
    };
    // Spend the small budget through both processes, then let the ledger write it.
    let spentStatus = 0;
    for (let i = 0; i < 20 && spentStatus !== 402; i++) spentStatus = (await send("spent", i)).status;
    await sleep(500);

    let stopping = false;
    const client = async (c: number) => {
      for (let n = c; !stopping; n++) await send(n % 2 ? "budget" : "rpm", n);
    };
    const clients = Array.from({ length: options.clients }, (_, c) => client(c));
    await sleep(1000);
    const baseline = outcomes.filter((o) => o.key === "rpm").map((o) => o.ms).sort((a, b) => a - b);
    const baselineP99 = baseline[Math.floor(baseline.length * 0.99)] ?? 0;
    const windows: { from: number; to: number }[] = [];
    const rebuilt: number[] = [];
    const shared: string[] = [];
    for (let o = 0; o < options.outages; o++) {
      const killedAt = performance.now();
      await redis.stop("SIGKILL");
      redis = undefined;
      result.faults++;
      await sleep(options.outageMs);
      const restartAt = performance.now();
      windows.push({ from: killedAt + 50, to: restartAt });
      redis = await spawnRedis(redisPort);
      // Recovered: each process admits a budget key again (its counter needs Redis; each process reconnects
      // on its own backoff).
      for (const url of urls) {
        for (let i = 0; i < 400; i++) {
          if ((await sendMessages(url, keys.budget, MODEL, false)).status === 200) break;
          await sleep(25);
        }
      }
      result.recoverMs.push(performance.now() - restartAt);
      // The spent budget stays spent on both processes.
      for (const i of [0, 1]) rebuilt.push((await send("spent", i)).status);
      // Both processes count one rate limit together again.
      const { key } = await h.store.create(`chaos-shared-${o}`, { rpm: 20 });
      await sleep(400);
      const statuses = await Promise.all(
        Array.from(
          { length: 40 },
          (_, i) => sendMessages(urls[i % 2], key, MODEL, false).then((r) => r.status),
        ),
      );
      shared.push(`${statuses.filter((s) => s === 200).length}/20`);
      result.requests += 40;
      result.answered += statuses.filter((s) => s === 200 || s === 429).length;
      await sleep(500);
    }
    stopping = true;
    await Promise.all(clients);

    const during = (o: Timed) => windows.some((w) => o.startedAt >= w.from && o.startedAt + o.ms <= w.to);
    const unclean = outcomes.filter((o) => o.kind === "unclean");
    result.requests += outcomes.length;
    result.answered += outcomes.filter((o) => o.kind === "complete" || o.kind === "refused").length;
    result.failedCleanly += outcomes.filter((o) => o.kind === "clean").length;
    const rpmDuring = outcomes.filter((o) => o.key === "rpm" && during(o));
    const budgetDuring = outcomes.filter((o) => o.key === "budget" && during(o));
    const slowest = Math.max(0, ...outcomes.filter(during).map((o) => o.ms));
    result.lost = rebuilt.filter((s) => s === 200).length;
    check(
      result,
      "every client saw a complete answer or a clean error",
      unclean.length === 0,
      unclean.slice(0, 3).map((u) => `${u.status} ${u.detail}`).join("; "),
    );
    check(
      result,
      "rate-limited keys are admitted while Redis is down (open)",
      rpmDuring.length > 0 && rpmDuring.every((o) => o.status === 200),
      `${rpmDuring.filter((o) => o.status === 200).length}/${rpmDuring.length} admitted`,
    );
    check(
      result,
      "budget keys are refused with a retryable 503 while Redis is down (closed)",
      budgetDuring.length > 0 && budgetDuring.every((o) => o.status === 503),
      `${budgetDuring.filter((o) => o.status === 503).length}/${budgetDuring.length} refused`,
    );
    check(
      result,
      `no request waits beyond GATEWAY_REDIS_TIMEOUT_MS (${options.timeoutMs}) + its own latency`,
      slowest <= options.timeoutMs + baselineP99 + 500,
      `slowest ${Math.round(slowest)} ms during outages; p99 before ${
        Math.round(baselineP99)
      } ms; 500 ms slack`,
    );
    check(
      result,
      "a budget spent before the outage is still spent after it (rebuilt from the ledger)",
      result.lost === 0,
      `statuses ${rebuilt.join(",")}`,
    );
    check(
      result,
      "both processes hold one rate limit together again without a restart",
      shared.every((s) => Math.abs(Number(s.split("/")[0]) - 20) <= 1),
      `admitted ${shared.join(", ")}`,
    );
    return result;
  } finally {
    await Promise.all(gateways.map((g) => g.stop("SIGKILL")));
    await redis?.stop("SIGKILL");
    await h.close();
  }
}
