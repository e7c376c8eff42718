/**
 * Deployment state shared through one Redis (Debian's redis-server on loopback): two pools — and two gateway
 * instances — each with its own connection and in-process state, so only Redis can make one skip what the
 * other cooled down or see the other's attempts in flight. Then Redis goes away: each falls back to its own
 * state without waiting, keeps the cooldowns it read, and shares again once Redis answers. Last, two real
 * gateway processes (`gateway/main.ts`) on one redis-server.
 */
import assert from "node:assert/strict";
import { DeploymentPool, type GroupSpec } from "../../gateway/upstream/deployments.ts";
import { RedisDeploymentState } from "../../gateway/upstream/shared_deployments.ts";
import { RedisConnection } from "../../gateway/limits/redis_connection.ts";
import { startRedis } from "./redis_server.ts";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";
import { spawnGateway } from "./gateway_process.ts";
import { startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

function pools(url: string, groups: Record<string, GroupSpec>) {
  const changes: boolean[] = [];
  const make = () => {
    const connection = new RedisConnection({ url, timeoutMs: 300 });
    const pool = new DeploymentPool(groups, Math.random, Date.now, {
      state: new RedisDeploymentState(connection),
      onChange: (up) => changes.push(up),
    });
    return { pool, connection };
  };
  return { a: make(), b: make(), changes };
}

Deno.test(
  "two pools on one Redis share cooldowns, in-flight counts, rpm and tpm counts and EWMAs",
  e2e,
  async () => {
    const redis = await startRedis();
    const two = [{ target: "a/m", rpm: 2 }, { target: "b/m" }];
    const { a, b } = pools(redis.url, {
      cool: { strategy: "round-robin", targets: two },
      busy: { strategy: "least-busy", targets: two },
      fast: { strategy: "latency", targets: two },
      capped: { strategy: "round-robin", targets: two },
    });
    try {
      // A cooldown recorded by a is honoured by b, which never saw the 429.
      const ticket = a.pool.started("cool", "a/m", 0);
      await a.pool.finished("cool", "a/m", 5, "rate_limit_error", 3, ticket);
      const seen = await b.pool.order("cool", 0);
      assert.deepEqual(seen.targets, ["b/m"]);
      assert.equal(seen.skipped[0].reason, "cooling_down");
      assert.ok(seen.skipped[0].retryInMs > 2_500 && seen.skipped[0].retryInMs <= 3_000);

      // Attempts in flight at a count at b: b's least-busy order puts the idle deployment first.
      for (let i = 0; i < 3; i++) a.pool.started("busy", "a/m", 0);
      await a.pool.order("busy", 0); // after a's writes on a's connection
      for (let i = 0; i < 4; i++) assert.equal((await b.pool.order("busy", 0)).targets[0], "b/m");
      assert.equal(b.pool.state("busy", "a/m")!.inFlight, 0, "b itself has nothing in flight");

      // The minute's request count is shared: a's two requests fill a/m's rpm 2 for b.
      a.pool.started("capped", "a/m", 0);
      a.pool.started("capped", "a/m", 0);
      await a.pool.order("capped", 0);
      const capped = await b.pool.order("capped", 0);
      assert.deepEqual(capped.targets, ["b/m"]);
      assert.equal(capped.skipped[0].reason, "rpm_cap");

      // A tpm count corrected to the reported usage at a is what b orders by.
      const wordy = [{ target: "a/m", tpm: 1_000 }, { target: "b/m" }];
      const tpm = pools(redis.url, { wordy: { strategy: "round-robin", targets: wordy } });
      try {
        const charge = tpm.a.pool.chargeFor("wordy", "a/m", 5)!;
        tpm.a.pool.started("wordy", "a/m", 5);
        await tpm.a.pool.order("wordy", 0);
        assert.equal((await tpm.b.pool.order("wordy", 10)).targets.length, 2, "5 + 10 fit under 1,000");
        charge.settle({
          input_tokens: 5,
          output_tokens: 990,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        });
        await tpm.a.pool.order("wordy", 0);
        const full = await tpm.b.pool.order("wordy", 10);
        assert.deepEqual(full.targets, ["b/m"], "995 + 10 do not");
        assert.equal(full.skipped[0].reason, "tpm_cap");
        // An attempt counted for 0 tokens at its start (no key for its minute yet) is corrected up all the same.
        const zero = tpm.a.pool.chargeFor("wordy", "b/m", 0);
        assert.equal(zero, undefined, "b/m has no tpm cap");
        const state = new RedisDeploymentState(tpm.a.connection);
        const minute = Math.floor(state.now() / 60_000);
        await state.addTokens("zero", "z/m", 700, minute);
        await state.addTokens("zero", "z/m", -900, minute);
        await state.addTokens("zero", "y/m", -5, minute);
        const [z, y] = await state.read("zero", ["z/m", "y/m"], minute);
        assert.equal(z.tokens, 0, "created by the increase, never below 0");
        assert.equal(y.tokens, 0);
        await state.addTokens("zero", "z/m", 40, minute);
        assert.equal((await state.read("zero", ["z/m"], minute))[0].tokens, 40);
      } finally {
        await Promise.all([tpm.a.connection.close(), tpm.b.connection.close()]);
      }

      // EWMAs measured at a order b's latency strategy.
      a.pool.finished("fast", "a/m", 200, undefined, undefined, a.pool.started("fast", "a/m", 0));
      a.pool.finished("fast", "b/m", 20, undefined, undefined, a.pool.started("fast", "b/m", 0));
      await a.pool.order("fast", 0);
      assert.equal((await b.pool.order("fast", 0)).targets[0], "b/m");

      // A health check failing at a takes the deployment out at b too, until a's check passes again.
      a.pool.setHealth("b/m", false, 5_000);
      await a.pool.order("cool", 0);
      const down = await b.pool.order("fast", 0);
      assert.deepEqual(down.targets, ["a/m"]);
      assert.equal(down.skipped[0].reason, "unhealthy");
      a.pool.setHealth("b/m", true, 0);
      await a.pool.order("cool", 0);
      assert.equal((await b.pool.order("fast", 0)).targets.length, 2);
    } finally {
      await Promise.all([a.connection.close(), b.connection.close()]);
      await redis.close();
    }
  },
);

Deno.test(
  "with Redis gone the pools fall back to their own state without waiting, then share again",
  e2e,
  async () => {
    let redis = await startRedis();
    const port = Number(new URL(redis.url).port);
    const { a, b, changes } = pools(redis.url, {
      g: { strategy: "round-robin", cooldown_ms: 60_000, targets: [{ target: "a/m" }, { target: "b/m" }] },
    });
    try {
      await a.pool.finished("g", "a/m", 5, "overloaded_error", undefined, a.pool.started("g", "a/m", 0));
      assert.deepEqual((await b.pool.order("g", 0)).targets, ["b/m"]);
      await redis.close();
      // The first order meets the outage (within the 300 ms timeout) and still answers from local state.
      const first = await b.pool.order("g", 0);
      assert.deepEqual(first.targets, ["b/m"], "the cooldown b read from Redis still holds");
      assert.deepEqual(changes, [false]);
      // Then no wait at all: the order is computed at once, not a promise.
      const next = b.pool.order("g", 0);
      assert.ok(!(next instanceof Promise), "no Redis round trip while it is down");
      assert.deepEqual(next.targets, ["b/m"]);
      // a's own cooldown is in its own state too.
      const own = a.pool.order("g", 0);
      assert.deepEqual((own instanceof Promise ? await own : own).targets, ["b/m"]);

      redis = await startRedis(port);
      const deadline = Date.now() + 8_000;
      while (!changes.includes(true) && Date.now() < deadline) {
        b.pool.order("g", 0); // probes once a second
        await sleep(100);
      }
      assert.ok(changes.includes(true), "sharing resumed once Redis answered");
      assert.ok(b.pool.order("g", 0) instanceof Promise, "orders read Redis again");
    } finally {
      await Promise.all([a.connection.close(), b.connection.close()]);
      await redis.close();
    }
  },
);

function answer(model: unknown): Response {
  return Response.json({
    id: "c",
    object: "chat.completion",
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
}

Deno.test(
  "two gateway instances on one Redis: no request to a deployment the other cooled down; least-busy sees both",
  e2e,
  async () => {
    const redis = await startRedis();
    const gates: Array<() => void> = [];
    const limited = await startFaultyUpstream((r) =>
      r.body.model === "cool"
        ? Response.json({ error: { message: "slow down" } }, {
          status: 429,
          headers: { "retry-after": "30" },
        })
        : answer(r.body.model)
    );
    const fast = await startFaultyUpstream((r) => answer(r.body.model));
    // Holds each request until released: attempts stay in flight.
    const held = await startFaultyUpstream(async (r) => {
      await new Promise<void>((resolve) => gates.push(resolve));
      return answer(r.body.model);
    });
    const config = `providers:
  limited: { type: openai-compatible, base_url: "${limited.url}/v1", api_key_env: UP_KEY }
  fast: { type: openai-compatible, base_url: "${fast.url}/v1", api_key_env: UP_KEY }
  held: { type: openai-compatible, base_url: "${held.url}/v1", api_key_env: UP_KEY }
deployments:
  team-cool:
    strategy: round-robin
    targets: [{ target: limited/cool }, { target: fast/cool }]
  team-busy:
    strategy: least-busy
    targets: [{ target: held/one }, { target: held/two }]
`;
    const env = { UP_KEY: "shared-deployments-key", GATEWAY_REDIS_URL: redis.url };
    const gwA = await startFaultyGateway(env, config);
    const gwB = await startFaultyGateway(env, config);
    const ask = (model: string) => ({ model, max_tokens: 16, messages: [{ role: "user", content: "Hi" }] });
    try {
      // a's first request meets the 429 (round-robin starts at limited) and falls through to fast.
      const first = await gwA.post(ask("team-cool"));
      assert.equal(first.status, 200, await first.text());
      assert.equal(first.headers.get("gw-upstream"), "fast/cool");
      assert.equal(limited.requests.length, 1);
      // b never saw the 429; its round-robin would start at limited — Redis says it is cooling down.
      for (let i = 0; i < 10; i++) {
        const r = await (i % 2 ? gwA : gwB).post(ask("team-cool"));
        assert.equal(r.status, 200, await r.text());
        assert.equal(r.headers.get("gw-upstream"), "fast/cool");
      }
      assert.equal(limited.requests.length, 1, "no instance sent to the cooled-down deployment");

      // One request held at a (its least-busy order starts at held/one), then b's goes to the idle held/two.
      const pending = [gwA.post(ask("team-busy"))];
      while (held.requests.length < 1) await sleep(10);
      await sleep(20);
      pending.push(gwB.post(ask("team-busy")));
      while (held.requests.length < 2) await sleep(10);
      await sleep(20);
      // Two more, one through each: each goes to a deployment with one in flight, never to a third on one.
      pending.push(gwA.post(ask("team-busy")));
      while (held.requests.length < 3) await sleep(10);
      await sleep(20);
      pending.push(gwB.post(ask("team-busy")));
      while (held.requests.length < 4) await sleep(10);
      const models = held.requests.map((r) => r.body.model);
      assert.deepEqual(models.slice(0, 2).sort(), ["one", "two"], `b saw a's attempt in flight: ${models}`);
      assert.deepEqual(
        [models.filter((m) => m === "one").length, models.filter((m) => m === "two").length],
        [2, 2],
        `in-flight counts of both instances spread the load: ${models}`,
      );
      gates.forEach((release) => release());
      for (const r of await Promise.all(pending)) assert.equal(r.status, 200, await r.text());
    } finally {
      gates.forEach((release) => release());
      await Promise.all([gwA.close(), gwB.close()]);
      await Promise.all([limited.close(), fast.close(), held.close()]);
      await redis.close();
    }
  },
);

Deno.test(
  "two gateway processes on one redis-server: a 429 seen by one keeps the other away",
  e2e,
  async () => {
    const redis = await startRedis();
    // round-robin starts each process's order at the always-429 deployment.
    const h = await startHarness(
      {},
      "deployments:\n  team-cool:\n    strategy: round-robin\n" +
        "    targets: [{ target: openai/fx-429 }, { target: mistral/fx-text }]\n",
    );
    const env = { ...h.env, GATEWAY_REDIS_URL: redis.url, GATEWAY_REDIS_TIMEOUT_MS: "2000" };
    const [a, b] = await Promise.all([spawnGateway(env), spawnGateway(env)]);
    const limited = () => h.openai.requests.filter((r) => r.body.model === "fx-429").length;
    const post = (url: string) =>
      fetch(`${url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": h.key },
        body: JSON.stringify({
          model: "team-cool",
          max_tokens: 16,
          messages: [{ role: "user", content: "Hi" }],
        }),
      });
    try {
      const first = await post(a.url);
      assert.equal(first.status, 200, await first.text());
      assert.equal(first.headers.get("gw-upstream"), "mistral/fx-text");
      assert.equal(limited(), 1, "process a met the 429 and moved on");
      for (let i = 0; i < 6; i++) {
        const r = await post(i % 2 ? a.url : b.url);
        assert.equal(r.status, 200, await r.text());
        assert.equal(r.headers.get("gw-upstream"), "mistral/fx-text");
      }
      assert.equal(limited(), 1, "process b never sent to the deployment a cooled down (retry-after 7 s)");
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await h.close();
      await redis.close();
    }
  },
);
