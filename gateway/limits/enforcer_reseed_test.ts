/**
 * Issue 30 (chaos scenario 4): a Redis restarted empty lost every budget counter; the enforcer had seeded
 * each key's spend from the ledger once per process, so after the restart a spent budget was handed out
 * again. A new connection to the store now seeds again.
 */
import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { GatewayError } from "../errors.ts";
import { PriceTable } from "../pricing.ts";
import { type LimitCounters, MemoryCounters } from "./counters.ts";
import { LimitEnforcer } from "./enforcer.ts";
import type { KeyPolicy } from "./policy.ts";

const NOON = Date.UTC(2026, 10, 25, 12);

/** A counter store that can "restart empty" and then reports a new connection, as RedisCounters does. */
class RestartingCounters implements LimitCounters {
  inner = new MemoryCounters(() => NOON);
  connections = 1;
  restartEmpty() {
    this.inner = new MemoryCounters(() => NOON);
    this.connections++;
  }
  admit: LimitCounters["admit"] = (r) => this.inner.admit(r);
  settle: LimitCounters["settle"] = (r) => this.inner.settle(r);
  snapshot: LimitCounters["snapshot"] = (k, p) => this.inner.snapshot(k, p);
  seedSpend: LimitCounters["seedSpend"] = (k, p, m, t) => this.inner.seedSpend(k, p, m, t);
  close = () => Promise.resolve();
  connection = () => this.connections;
}

Deno.test("a counter store restarted empty has each budget seeded from the ledger again", async () => {
  const counters = new RestartingCounters();
  let asked = 0;
  const enforcer = new LimitEnforcer(
    counters,
    new PriceTable({ "p/m": { input: 10, output: 20 } }),
    createLogger({ level: "silent" }),
    { rateLimits: "open", budgets: "closed" },
    { now: () => NOON, spentSince: () => (asked++, Promise.resolve(1.5)) },
  );
  const policy: KeyPolicy = { id: "key_a", admin: false, limits: { budgetUsd: 1, budgetPeriod: "day" } };
  const request = { inputTokens: 10, maxTokens: 10, target: "p/m" };
  const refusal = () => enforcer.admit(policy, request).then(() => undefined, (e) => e);
  assert.ok((await refusal()) instanceof GatewayError);
  assert.ok((await refusal()) instanceof GatewayError);
  assert.equal(asked, 1, "seeded once per connection");
  counters.restartEmpty();
  const after = await refusal();
  assert.ok(after instanceof GatewayError && after.type === "billing_error", "the spent budget stays spent");
  assert.equal(asked, 2);
});
