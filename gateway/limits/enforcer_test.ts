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
