/**
 * What per-key limits add to a request, in-process (no sockets, the instant upstream of
 * gateway_inprocess.ts): the same pass-through request with an unlimited key and with a key that has rpm,
 * tpm, concurrency and a budget (none binding), interleaved request by request so drift hits both alike.
 * Once with in-process counters, once with Redis (Debian's redis-server on loopback). Added p50/p99 is
 * the median over rounds of (limited − unlimited).
 */
import { createGatewayApp } from "../gateway/app.ts";
import { readGatewayConfig } from "../gateway/config/mod.ts";
import type { KeyPolicy } from "../gateway/limits/policy.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { startRedis } from "../tests/gateway/redis_server.ts";
import { instantFetch } from "./gateway_inprocess.ts";

const FREE: KeyPolicy = { id: "key_free", admin: false };
const LIMITED: KeyPolicy = {
  id: "key_limited",
  admin: false,
  limits: { rpm: 1e9, tpm: 1e12, maxConcurrency: 10_000, budgetUsd: 1e9, budgetPeriod: "month" },
};

/** Added p50/p99 (ms) of a limited key over an unlimited one, and the unlimited key's own p50. */
export interface LimitsCost {
  freeP50: number;
  added: [number, number];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const at = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function measure(
  env: Record<string, string>,
  body: string,
  n: number,
  rounds: number,
): Promise<LimitsCost> {
  const config = readGatewayConfig({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", ...env });
  const app = createGatewayApp(config, {
    logger: createLogger({ level: "warn" }),
    keys: { verify: (key) => Promise.resolve(key === "limited" ? LIMITED : FREE) },
    fetch: instantFetch,
  });
  const once = async (key: string) => {
    const t0 = performance.now();
    const response = await app.fetch(
      new Request("http://gateway/v1/messages", { method: "POST", headers: { "x-api-key": key }, body }),
    );
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`bench request answered ${response.status}`);
    return performance.now() - t0;
  };
  const added: Array<[number, number]> = [];
  const free50: number[] = [];
  const per = Math.ceil(n / rounds);
  try {
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < 300; i++) await once(i % 2 ? "limited" : "free");
      const free: number[] = [];
      const limited: number[] = [];
      for (let i = 0; i < per; i++) {
        free.push(await once("free"));
        limited.push(await once("limited"));
      }
      free.sort((a, b) => a - b);
      limited.sort((a, b) => a - b);
      added.push([at(limited, 0.5) - at(free, 0.5), at(limited, 0.99) - at(free, 0.99)]);
      free50.push(at(free, 0.5));
    }
  } finally {
    await app.close();
  }
  return { freeP50: median(free50), added: [median(added.map((a) => a[0])), median(added.map((a) => a[1]))] };
}

/** The limited-key cost with in-process counters and with Redis on loopback. */
export async function measureLimits(
  body: string,
  n: number,
  rounds: number,
): Promise<{ memory: LimitsCost; redis: LimitsCost }> {
  const memory = await measure({}, body, n, rounds);
  const redis = await startRedis();
  try {
    return { memory, redis: await measure({ GATEWAY_REDIS_URL: redis.url }, body, n, rounds) };
  } finally {
    await redis.close();
  }
}
