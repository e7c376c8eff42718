/**
 * The usage ledger end to end: one row per request (whole, streamed, refused) with tokens, cost, attempts
 * and trace id, written in batches; unknown models cost 0 with a warning; `gateway:usage` and
 * `GET /admin/api/usage` (admin keys only) report totals; a failing database delays rows, never requests.
 */
import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { runUsageCli } from "../../gateway/usage/cli.ts";
import { UsageLedger, type UsageRow } from "../../gateway/usage/ledger.ts";
import { USAGE_COLUMNS } from "../../gateway/usage/row.ts";
import { rawPost, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 64,
  messages: [{ role: "user", content: "Hi" }],
  ...extra,
});

Deno.test(
  "every request writes one ledger row with real usage and cost, reported by gateway:usage and the admin API",
  e2e,
  async () => {
    const h = await startHarness({}, `pricing:\n  openai/fx-text: { input: 10, output: 20 }\n`);
    try {
      const { id, key } = await h.store.create("team", { rpm: 3 });
      const headers = { "x-api-key": key, "gw-trace-id": "trace-ledger-1" };
      assert.equal((await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers)).status, 200);
      assert.equal(
        (await rawPost(h, "/v1/messages", ask("openai/fx-text", { stream: true }), headers)).status,
        200,
      );
      assert.equal((await rawPost(h, "/v1/messages", ask("anthropic/claude-fx-tool"), headers)).status, 200);
      assert.equal((await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers)).status, 429);
      await h.ledger.flush();
      const rows = await h.db.selectFrom("gateway_usage").selectAll().where("key_id", "=", id).orderBy("id")
        .execute();
      assert.equal(rows.length, 4);
      const [whole, stream, native, refused] = rows;
      assert.deepEqual(
        [whole.model, whole.provider, whole.served_model, whole.attempts, whole.stream, whole.status],
        ["openai/fx-text", "openai", "fx-text", 1, 0, 200],
      );
      assert.deepEqual([whole.input_tokens, whole.cache_read_tokens, whole.output_tokens], [20, 100, 5]);
      assert.equal(whole.cost_usd, 0.0013);
      assert.equal(whole.trace_id, "trace-ledger-1");
      assert.equal(whole.warning, null);
      assert.deepEqual([stream.stream, stream.input_tokens, stream.output_tokens, stream.cost_usd], [
        1,
        20,
        5,
        0.0013,
      ]);
      assert.ok(stream.ttft_ms !== null && stream.ttft_ms >= 0);
      assert.deepEqual([native.input_tokens, native.output_tokens, native.cost_usd], [377, 65, 0]);
      assert.match(native.warning!, /no price for anthropic\/claude-fx-tool/);
      assert.deepEqual([refused.status, refused.error_type, refused.attempts], [429, "rate_limit_error", 0]);

      const env = { GATEWAY_DATABASE_URL: h.config.GATEWAY_DATABASE_URL };
      const out: string[] = [];
      assert.equal(await runUsageCli(["--key", id, "--by", "model", "--json"], env, (l) => out.push(l)), 0);
      const report = JSON.parse(out[0]);
      assert.equal(report.total.requests, 4);
      assert.equal(report.total.cost_usd, 0.0026);
      assert.equal(report.total.error_rate, 0.25);
      assert.deepEqual(report.groups.map((g: { group: string }) => g.group), [
        "anthropic/claude-fx-tool",
        "openai/fx-text",
      ]);
      out.length = 0;
      assert.equal(await runUsageCli(["--key", id], env, (l) => out.push(l)), 0);
      assert.match(out[0], /^group\s+requests/);
      assert.match(out[0], /total\s+4/);
      const err: string[] = [];
      assert.equal(
        await runUsageCli(["--since", "yesterday", "--by", "week"], env, () => {}, (l) => err.push(l)),
        2,
      );
      assert.match(
        err[0],
        /--since: expected an ISO 8601[\s\S]*--by: expected one of key, model, provider, day/,
      );

      const admin = await h.store.create("ops", { admin: true });
      await new Promise((r) => setTimeout(r, 300)); // past the key cache's refresh gap for unknown keys
      const url = `${h.url}/admin/api/usage?key=${id}&by=day&since=2000-01-01`;
      const byAdmin = await fetch(url, { headers: { "x-api-key": admin.key } });
      assert.equal(byAdmin.status, 200);
      const api = await byAdmin.json();
      assert.equal(api.total.requests, 4);
      assert.equal(api.groups[0].group, new Date().toISOString().slice(0, 10));
      const byUser = await fetch(url, { headers: { "x-api-key": key } });
      assert.equal(byUser.status, 403);
      assert.equal((await byUser.json()).error.type, "permission_error");
      const bad = await fetch(`${h.url}/admin/api/usage?by=week`, { headers: { "x-api-key": admin.key } });
      assert.equal(bad.status, 400);
      assert.match((await bad.json()).error.message, /by: expected one of/);
      const adminOnModels = await rawPost(h, "/v1/messages", ask("openai/fx-text"), {
        "x-api-key": admin.key,
      });
      assert.equal(adminOnModels.status, 403, "an admin key cannot call the model API");
    } finally {
      await h.close();
    }
  },
);

Deno.test("ledger writes that fail are retried without losing rows, and flush drains them", async () => {
  let failures = 2;
  const written: string[] = [];
  // A database whose first two batch transactions fail; the rollup upsert of a batch is accepted as is.
  const requestId = USAGE_COLUMNS.indexOf("request_id");
  const tx = {
    executeQuery: ({ sql, parameters }: { sql: string; parameters: readonly unknown[] }) => {
      if (!sql.startsWith('insert into "gateway_usage" (')) return Promise.resolve({ rows: [] });
      if (failures-- > 0) return Promise.reject(new Error("database is locked"));
      for (let i = requestId; i < parameters.length; i += USAGE_COLUMNS.length) {
        written.push(parameters[i] as string);
      }
      return Promise.resolve({ rows: [] });
    },
  };
  const db = {
    transaction: () => ({ execute: (work: (t: typeof tx) => Promise<unknown>) => work(tx) }),
  };
  const logs: string[] = [];
  const ledger = new UsageLedger({
    db: () => Promise.resolve(db as never),
    logger: createLogger({ level: "info", sink: (l) => logs.push(l) }),
    retentionDays: 1,
    flushMs: 10,
  });
  for (let i = 0; i < 5; i++) ledger.record({ request_id: `req_${i}` } as UsageRow);
  await ledger.flush();
  assert.deepEqual(written, ["req_0", "req_1", "req_2", "req_3", "req_4"]);
  assert.equal(ledger.queued, 0);
  assert.equal(logs.filter((l) => l.includes("usage ledger write failed")).length, 1, "logged once");
});
