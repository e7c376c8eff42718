import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { GatewayError } from "../errors.ts";
import { PriceTable } from "../pricing.ts";
import { MemoryCounters } from "./counters.ts";
import { LimitEnforcer } from "./enforcer.ts";
import type { KeyPolicy } from "./policy.ts";

const prices = new PriceTable({ "p/m": { input: 10, output: 20 } });
const policy: KeyPolicy = { id: "key_a", admin: false, limits: { budgetUsd: 1, budgetPeriod: "day" } };
const request = { inputTokens: 10, maxTokens: 10, target: "p/m" };
const failure = { rateLimits: "open", budgets: "closed" } as const;
const NOON = Date.UTC(2026, 10, 25, 12);

Deno.test("a budget's counter starts from the ledger's spend since the period began, loaded once", async () => {
  const asked: Array<[string, number]> = [];
  const enforcer = new LimitEnforcer(
    new MemoryCounters(() => NOON),
    prices,
    createLogger({ level: "silent" }),
    failure,
    {
      now: () => NOON,
      spentSince: (keyId, since) => {
        asked.push([keyId, since]);
        return Promise.resolve(1.5);
      },
    },
  );
  const refused = await enforcer.admit(policy, request).then(() => undefined, (e) => e);
  assert.ok(refused instanceof GatewayError && refused.type === "billing_error", String(refused));
  await enforcer.admit(policy, request).catch(() => {});
  assert.deepEqual(asked, [["key_a", Date.UTC(2026, 10, 25)]]);
});

Deno.test("a ledger spend that cannot be read fails a budget closed, and is read again next time", async () => {
  let fail = true;
  const enforcer = new LimitEnforcer(
    new MemoryCounters(() => NOON),
    prices,
    createLogger({ level: "silent" }),
    failure,
    {
      now: () => NOON,
      spentSince: () => fail ? Promise.reject(new Error("database is locked")) : Promise.resolve(0),
    },
  );
  const refused = await enforcer.admit(policy, request).then(() => undefined, (e) => e);
  assert.ok(refused instanceof GatewayError && refused.status === 503, String(refused));
  fail = false;
  const admitted = await enforcer.admit(policy, request);
  admitted.settle(undefined, "p/m");
});

Deno.test("a seeded spend never overwrites a counter the store already holds", async () => {
  const counters = new MemoryCounters(() => NOON);
  await counters.seedSpend("key_a", "day:2026-11-25", 700, 60_000);
  await counters.seedSpend("key_a", "day:2026-11-25", 5, 60_000);
  assert.equal((await counters.snapshot("key_a", "day:2026-11-25")).spentMicros, 700);
});

Deno.test("admitAtOnce counts a limited key in-process as admit does, and refuses alike", async () => {
  const rpm: KeyPolicy = { id: "key_r", admin: false, limits: { rpm: 2, tpm: 1_000 } };
  const make = () =>
    new LimitEnforcer(new MemoryCounters(() => NOON), prices, createLogger({ level: "silent" }), failure, {
      now: () => NOON,
    });
  const now = make();
  const later = make();
  for (let i = 0; i < 2; i++) {
    const at = now.admitAtOnce(rpm, request);
    assert.ok(at && at.charges, "admitted without a promise");
    assert.deepEqual(at.headers, (await later.admit(rpm, request)).headers);
  }
  const thrown = (() => {
    try {
      now.admitAtOnce(rpm, request);
    } catch (error) {
      return error;
    }
  })();
  const rejected = await later.admit(rpm, request).then(() => undefined, (e) => e);
  assert.ok(thrown instanceof GatewayError && thrown.type === "rate_limit_error", String(thrown));
  assert.equal(thrown.message, (rejected as GatewayError).message);
  // Without a request, or without limits, as before.
  assert.equal(now.admitAtOnce(rpm), undefined);
  assert.equal(now.admitAtOnce({ id: "key_free", admin: false })?.charges, undefined);
});

Deno.test("admitAtOnce waits for a budget's ledger seed: undefined until the async admit has loaded it", async () => {
  let loads = 0;
  const enforcer = new LimitEnforcer(
    new MemoryCounters(() => NOON),
    prices,
    createLogger({ level: "silent" }),
    failure,
    { now: () => NOON, spentSince: () => (loads++, Promise.resolve(0)) },
  );
  assert.equal(enforcer.admitAtOnce(policy, request), undefined, "not seeded yet: the caller awaits admit");
  (await enforcer.admit(policy, request)).settle(undefined, "p/m");
  const at = enforcer.admitAtOnce(policy, request);
  assert.ok(at?.charges, "seeded: admitted at once");
  at.settle(undefined, "p/m");
  assert.equal(loads, 1);
});

Deno.test("admitAtOnce leaves a store without admitNow (Redis) to admit", () => {
  const counters = new MemoryCounters(() => NOON);
  const remote = {
    admit: (r: Parameters<MemoryCounters["admit"]>[0]) => counters.admit(r),
    settle: (r: Parameters<MemoryCounters["settle"]>[0]) => counters.settle(r),
    snapshot: (k: string, p: string) => counters.snapshot(k, p),
    seedSpend: (k: string, p: string, m: number, t: number) => counters.seedSpend(k, p, m, t),
    close: () => counters.close(),
  };
  const enforcer = new LimitEnforcer(remote, prices, createLogger({ level: "silent" }), failure, {
    now: () => NOON,
  });
  assert.equal(enforcer.admitAtOnce({ id: "key_r", admin: false, limits: { rpm: 5 } }, request), undefined);
});
