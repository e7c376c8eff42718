/**
 * Limits shared by two gateway instances through one Redis (Debian's redis-server on loopback): each
 * instance has its own Redis connection and in-process state, so only Redis can make them hold one limit
 * together. Then Redis goes away: rate limits fail open, budgets fail closed, and the outage is logged once.
 */
import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { startServer } from "@switchyard/lib/serve.ts";
import { createGatewayApp } from "../../gateway/app.ts";
import { KeyVerifier } from "../../gateway/keys/verifier.ts";
import { RedisCounters } from "../../gateway/limits/redis_counters.ts";
import { LimitEnforcer, periodOf } from "../../gateway/limits/enforcer.ts";
import type { KeyPolicy } from "../../gateway/limits/policy.ts";
import { GatewayError } from "../../gateway/errors.ts";
import { PriceTable } from "../../gateway/pricing.ts";
import { type Harness, startHarness } from "./harness.ts";
import { freePort, startRedis } from "./redis_server.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = (model: string) => ({ model, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });

/** A second gateway instance on the harness's database and configuration (hence the same Redis). */
async function secondInstance(h: Harness, logs: string[] = []) {
  const keys = new KeyVerifier(() => h.store.activeHashes(), { ttlMs: h.config.GATEWAY_KEY_CACHE_TTL_MS });
  const app = createGatewayApp(h.config, {
    logger: createLogger({ level: "info", sink: (line) => logs.push(line) }),
    keys,
  });
  const server = await startServer(app.fetch, { port: 0 });
  return {
    url: server.url,
    async close() {
      await server.shutdown();
      await app.close();
    },
  };
}

function post(url: string, key: string, body: unknown) {
  return fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify(body),
  });
}

Deno.test(
  "two gateway instances sharing one Redis hold one requests-per-minute limit together",
  e2e,
  async () => {
    const redis = await startRedis();
    const h = await startHarness({ GATEWAY_REDIS_URL: redis.url });
    const b = await secondInstance(h);
    try {
      const rpm = 20;
      const { id, key } = await h.store.create("shared", { rpm, tpm: 1_000_000 });
      // Half the limit through each instance in turn: all admitted.
      for (let i = 0; i < rpm; i++) {
        const r = await post(i % 2 ? b.url : h.url, key, ask("openai/fx-text"));
        assert.equal(r.status, 200);
        assert.equal(r.headers.get("anthropic-ratelimit-requests-remaining"), String(rpm - i - 1));
        await r.body?.cancel();
      }
      // Then 2 × the limit at once, alternating: the window is full for both.
      const responses = await Promise.all(
        Array.from({ length: 2 * rpm }, (_, i) => post(i % 2 ? b.url : h.url, key, ask("openai/fx-text"))),
      );
      const statuses = await Promise.all(responses.map(async (r) => (await r.body?.cancel(), r.status)));
      const admitted = rpm + statuses.filter((s) => s === 200).length;
      assert.ok(Math.abs(admitted - rpm) <= 1, `admitted ${admitted} of ${3 * rpm} for a limit of ${rpm}`);
      assert.equal(statuses.filter((s) => s === 429).length, 3 * rpm - admitted);

      // Settled tokens are the upstream's real usage (fx-text: 125 tokens each), summed over both instances.
      const counters = new RedisCounters({ url: redis.url, timeoutMs: 2_000 });
      try {
        await new Promise((r) => setTimeout(r, 100));
        const seen = await counters.snapshot(id, periodOf("month", Date.now()).name);
        assert.equal(seen.requests.used, admitted);
        assert.equal(seen.tokens.used, admitted * 125);
        assert.equal(seen.inFlight, 0);
        assert.ok(seen.requests.resetMs > 0 && seen.requests.resetMs <= 60_000, "a TTL'd window");
      } finally {
        await counters.close();
      }
    } finally {
      await b.close();
      await h.close();
      await redis.close();
    }
  },
);

Deno.test(
  "two instances sharing Redis cannot together overspend a budget by more than what is in flight",
  e2e,
  async () => {
    const redis = await startRedis();
    // fx-text costs 1300 micro-USD at these prices; its worst-case reservation (20 input + 64 output tokens
    // estimated) is smaller, so the overspend is bounded by the requests in flight.
    const h = await startHarness(
      { GATEWAY_REDIS_URL: redis.url },
      `pricing:\n  openai/fx-text: { input: 10, output: 20 }\n`,
    );
    const b = await secondInstance(h);
    try {
      const { key } = await h.store.create("budget", { budgetUsd: 0.01, budgetPeriod: "day" });
      const statuses: number[] = [];
      for (let round = 0; round < 5; round++) {
        const batch = await Promise.all(
          [h.url, b.url, h.url, b.url].map((url) => post(url, key, ask("openai/fx-text"))),
        );
        for (const r of batch) statuses.push((await r.body?.cancel(), r.status));
      }
      const admitted = statuses.filter((s) => s === 200).length;
      // $0.01 / $0.0013 = 7.7: the 8th request starts under budget; at most one batch (4) in flight past it.
      assert.ok(admitted >= 8 && admitted <= 8 + 3, `admitted ${admitted}`);
      assert.ok(statuses.includes(402));
    } finally {
      await b.close();
      await h.close();
      await redis.close();
    }
  },
);

Deno.test(
  "with Redis unreachable, rate limits fail open and budgets fail closed, logged once",
  e2e,
  async () => {
    const h = await startHarness({
      GATEWAY_REDIS_URL: `redis://127.0.0.1:${freePort()}`,
      GATEWAY_REDIS_TIMEOUT_MS: "200",
    });
    const logs: string[] = [];
    const b = await secondInstance(h, logs);
    try {
      const limited = await h.store.create("rpm", { rpm: 1 });
      const budgeted = await h.store.create("budget", { budgetUsd: 5, budgetPeriod: "month" });
      for (let i = 0; i < 3; i++) {
        const r = await post(b.url, limited.key, ask("openai/fx-text"));
        assert.equal(r.status, 200, "rate limits fail open");
        await r.body?.cancel();
      }
      const refused = await post(b.url, budgeted.key, ask("openai/fx-text"));
      assert.equal(refused.status, 503, "budgets fail closed");
      const error = (await refused.json()).error;
      assert.equal(error.type, "api_error");
      assert.match(error.message, /cannot be checked/);
      const outage = logs.filter((l) => l.includes("limit counters unreachable"));
      assert.equal(outage.length, 1, "logged once per outage");
    } finally {
      await b.close();
      await h.close();
    }
  },
);

Deno.test("a concurrent burst across two instances admits the limit ± 1 in one window", e2e, async () => {
  const redis = await startRedis();
  const h = await startHarness({ GATEWAY_REDIS_URL: redis.url });
  const b = await secondInstance(h);
  try {
    const rpm = 25;
    const { key } = await h.store.create("burst", { rpm });
    const responses = await Promise.all(
      Array.from({ length: 3 * rpm }, (_, i) => post(i % 2 ? b.url : h.url, key, ask("openai/fx-text"))),
    );
    const statuses = await Promise.all(responses.map(async (r) => (await r.body?.cancel(), r.status)));
    const admitted = statuses.filter((s) => s === 200).length;
    assert.ok(Math.abs(admitted - rpm) <= 1, `admitted ${admitted} of ${3 * rpm} for a limit of ${rpm}`);
    assert.equal(statuses.filter((s) => s === 429).length, 3 * rpm - admitted);
  } finally {
    await b.close();
    await h.close();
    await redis.close();
  }
});

Deno.test(
  "a Redis that lost a budget's counter starts it from the seed, and never overwrites one it holds",
  e2e,
  async () => {
    const redis = await startRedis();
    const counters = new RedisCounters({ url: redis.url, timeoutMs: 2_000 });
    try {
      const period = periodOf("day", Date.now());
      await counters.seedSpend("key_seed", period.name, 1_500_000, period.ttlMs);
      assert.equal((await counters.snapshot("key_seed", period.name)).spentMicros, 1_500_000);
      await counters.seedSpend("key_seed", period.name, 42, period.ttlMs);
      assert.equal((await counters.snapshot("key_seed", period.name)).spentMicros, 1_500_000);
    } finally {
      await counters.close();
      await redis.close();
    }
  },
);

Deno.test(
  "instances whose clocks disagree by a day still share one daily budget, named by Redis's clock",
  e2e,
  async () => {
    const redis = await startRedis();
    const logger = createLogger({ level: "silent" });
    const prices = new PriceTable({ "p/m": { input: 10, output: 20 } });
    const failure = { rateLimits: "open", budgets: "closed" } as const;
    const a = new RedisCounters({ url: redis.url, timeoutMs: 2_000 });
    const skewed = () => Date.now() + 86_400_000; // instance b's machine is a day ahead
    const b = new RedisCounters({
      url: redis.url,
      timeoutMs: 2_000,
      localNow: skewed,
    });
    try {
      for (const counters of [a, b]) await counters.snapshot("warm", "day:warm"); // connect: clocks measured
      const [onA, onB] = [
        new LimitEnforcer(a, prices, logger, failure),
        new LimitEnforcer(b, prices, logger, failure, { now: skewed }),
      ];
      // 300 micro-USD reserved and spent per request; a 500 micro-USD daily budget.
      const policy: KeyPolicy = {
        id: "key_skew",
        admin: false,
        limits: { budgetUsd: 0.0005, budgetPeriod: "day" },
      };
      const request = { inputTokens: 10, maxTokens: 10, target: "p/m" };
      const usage = {
        input_tokens: 10,
        output_tokens: 10,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      };
      (await onA.admit(policy, request)).settle(usage, "p/m");
      (await onB.admit(policy, request)).settle(usage, "p/m");
      await new Promise((r) => setTimeout(r, 50)); // settlements are written in the background
      const refused = await onA.admit(policy, request).then(() => undefined, (e) => e);
      assert.ok(refused instanceof GatewayError && refused.type === "billing_error", `got ${refused}`);
    } finally {
      await a.close();
      await b.close();
      await redis.close();
    }
  },
);
