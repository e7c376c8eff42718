/**
 * The gateway's real entry as separate processes: two of them share nothing but one Redis (Debian's
 * redis-server on loopback) and the database, and hold one limit together; a SIGTERM writes every queued
 * ledger row before the process exits.
 */
import assert from "node:assert/strict";
import { spawnGateway } from "./gateway_process.ts";
import { startHarness } from "./harness.ts";
import { startRedis } from "./redis_server.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = JSON.stringify({
  model: "openai/fx-text",
  max_tokens: 64,
  messages: [{ role: "user", content: "Hi" }],
});

function post(url: string, key: string): Promise<Response> {
  return fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: ask,
  });
}

Deno.test(
  "two gateway processes sharing one redis-server admit the requests-per-minute limit ± 1 in one window",
  e2e,
  async () => {
    const redis = await startRedis();
    const h = await startHarness();
    const rpm = 30;
    const { key } = await h.store.create("two-processes", { rpm });
    const env = { ...h.env, GATEWAY_REDIS_URL: redis.url, GATEWAY_REDIS_TIMEOUT_MS: "2000" };
    const [a, b] = await Promise.all([spawnGateway(env), spawnGateway(env)]);
    try {
      // Warm both (module load, Redis connection, key cache) with one admitted request each.
      for (const p of [a, b]) {
        const r = await post(p.url, key);
        assert.equal(r.status, 200);
        await r.body?.cancel();
      }
      // Then three times what is left, concurrently and alternately through both processes.
      const responses = await Promise.all(
        Array.from({ length: 3 * rpm }, (_, i) => post(i % 2 ? b.url : a.url, key)),
      );
      const statuses = await Promise.all(responses.map(async (r) => (await r.body?.cancel(), r.status)));
      const admitted = 2 + statuses.filter((s) => s === 200).length;
      assert.ok(Math.abs(admitted - rpm) <= 1, `admitted ${admitted} for a limit of ${rpm}`);
      assert.equal(statuses.filter((s) => s !== 200 && s !== 429).length, 0, `statuses ${statuses}`);
      // Both processes refused some: the limit is one, not one per process.
      const refusedBy = (i: number) => statuses.filter((s, j) => j % 2 === i && s === 429).length;
      assert.ok(refusedBy(0) > 0 && refusedBy(1) > 0, "both processes refuse once the shared window is full");
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await h.close();
      await redis.close();
    }
  },
);

Deno.test("a SIGTERM writes every queued usage row before the gateway process exits", e2e, async () => {
  const h = await startHarness();
  // A ledger that would wait a minute before writing: only the SIGTERM flush can put the rows in the table.
  const gateway = await spawnGateway({ ...h.env, GATEWAY_USAGE_FLUSH_MS: "60000" });
  try {
    const { id, key } = await h.store.create("sigterm");
    await new Promise((r) => setTimeout(r, 400)); // past the key cache's refresh gap for new keys
    const n = 25;
    const statuses = await Promise.all(
      Array.from(
        { length: n },
        () => post(gateway.url, key).then(async (r) => (await r.body?.cancel(), r.status)),
      ),
    );
    assert.deepEqual(statuses, Array(n).fill(200));
    const before = await h.db.selectFrom("gateway_usage").select("id").where("key_id", "=", id).execute();
    assert.equal(before.length, 0, "rows are still queued in the process");
    assert.equal(await gateway.stop("SIGTERM"), 143);
    const rows = await h.db.selectFrom("gateway_usage").selectAll().where("key_id", "=", id).execute();
    assert.equal(rows.length, n, gateway.lines.join("\n"));
    assert.ok(rows.every((r) => r.status === 200 && r.output_tokens === 5));
  } finally {
    await gateway.stop("SIGKILL");
    await h.close();
  }
});

Deno.test(
  "a SIGTERM lets the request under way finish and records it, and refuses new ones with a retryable 503",
  e2e,
  async () => {
    const h = await startHarness();
    const gateway = await spawnGateway({ ...h.env, GATEWAY_USAGE_FLUSH_MS: "60000" });
    try {
      const { id, key } = await h.store.create("drain");
      await new Promise((r) => setTimeout(r, 400)); // past the key cache's refresh gap for new keys
      // fx-slow-headers answers after 300 ms: the SIGTERM arrives while it is under way.
      const slow = fetch(`${gateway.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({
          model: "openai/fx-slow-headers",
          max_tokens: 64,
          messages: [{ role: "user", content: "Hi" }],
        }),
      });
      await new Promise((r) => setTimeout(r, 100));
      const exited = gateway.stop("SIGTERM");
      await new Promise((r) => setTimeout(r, 50));
      const late = await post(gateway.url, key).catch((error) => error as Error);
      if (late instanceof Response) {
        assert.equal(late.status, 503);
        assert.equal((await late.json()).error.type, "overloaded_error");
      } // else: the process had already exited, which refuses the connection — also not served.
      const answered = await slow;
      assert.equal(answered.status, 200);
      assert.match((await answered.json()).content[0].text, /very late/);
      assert.equal(await exited, 143);
      const rows = await h.db.selectFrom("gateway_usage").selectAll().where("key_id", "=", id).execute();
      assert.equal(rows.length, 1, "the request under way is in the ledger");
      assert.equal(rows[0].status, 200);
    } finally {
      await gateway.stop("SIGKILL");
      await h.close();
    }
  },
);

Deno.test("a key's spent budget stays spent when the gateway process restarts", e2e, async () => {
  // fx-text costs $0.0013 a request at these prices; a $0.002 daily budget admits two.
  const h = await startHarness({}, `pricing:\n  openai/fx-text: { input: 10, output: 20 }\n`);
  const { key } = await h.store.create("budget", { budgetUsd: 0.002, budgetPeriod: "day" });
  const statusOf = async (url: string) => {
    const r = await post(url, key);
    await r.body?.cancel();
    return r.status;
  };
  let gateway = await spawnGateway(h.env);
  try {
    assert.deepEqual([await statusOf(gateway.url), await statusOf(gateway.url)], [200, 200]);
    assert.equal(await statusOf(gateway.url), 402);
    assert.equal(await gateway.stop("SIGTERM"), 143);
    gateway = await spawnGateway(h.env);
    assert.equal(await statusOf(gateway.url), 402, "the restarted gateway starts from the ledger's spend");
  } finally {
    await gateway.stop("SIGKILL");
    await h.close();
  }
});
