import assert from "node:assert/strict";
import { type AdmitRequest, MemoryCounters } from "./counters.ts";

const T0 = Date.UTC(2026, 10, 28, 6);
const ask = (ticket: string, over: Partial<AdmitRequest> = {}): AdmitRequest => ({
  keyId: "key_a",
  limits: { maxConcurrency: 2 },
  tokens: 10,
  costMicros: 0,
  ticket,
  period: "month:2026-11",
  periodTtlMs: 86_400_000,
  leaseMs: 1_000,
  ...over,
});

Deno.test("a ticket never settled holds its slot until its lease ends, then frees it (swept only when due)", () => {
  let now = T0;
  const counters = new MemoryCounters(() => now);
  assert.equal(counters.admitNow(ask("a")).inFlight, 1);
  now += 500;
  assert.equal(counters.admitNow(ask("b")).inFlight, 2); // a's lease ends at T0 + 1000, b's at T0 + 1500
  now = T0 + 999;
  const full = counters.admitNow(ask("c"));
  assert.deepEqual([full.ok, full.failed, full.inFlight], [false, "concurrency", 2]);
  now = T0 + 1_000; // a expired, b not yet
  const one = counters.admitNow(ask("d", { leaseMs: 10_000 }));
  assert.deepEqual([one.ok, one.inFlight], [true, 2]);
  now = T0 + 1_499;
  assert.equal(counters.admitNow(ask("e")).failed, "concurrency"); // b and d in flight
  now = T0 + 1_500; // b expired: the next sweep is due at b's lease, though a's was the earliest
  assert.deepEqual([counters.admitNow(ask("f")).ok], [true]);
});

Deno.test("settled tickets free their slot at once, and a later sweep still drops the others' expired leases", () => {
  let now = T0;
  const counters = new MemoryCounters(() => now);
  counters.admitNow(ask("a"));
  counters.admitNow(ask("b", { leaseMs: 5_000 }));
  const settle = {
    keyId: "key_a",
    tokensDelta: 0,
    costMicrosDelta: 0,
    period: "month:2026-11",
    periodTtlMs: 1,
  };
  counters.settleNow({ ...settle, ticket: "a" });
  assert.equal(counters.admitNow(ask("c", { leaseMs: 5_000 })).inFlight, 2);
  now = T0 + 4_999;
  assert.equal(counters.admitNow(ask("d")).failed, "concurrency");
  now = T0 + 5_000;
  assert.equal(counters.admitNow(ask("d")).inFlight, 1);
});

Deno.test("admit and admitNow count alike: the promise carries the same result", async () => {
  const now = T0;
  const a = new MemoryCounters(() => now);
  const b = new MemoryCounters(() => now);
  for (let i = 0; i < 4; i++) {
    const request = ask(`t${i}`, { limits: { rpm: 3, tpm: 100 }, costMicros: 5 });
    assert.deepEqual(await a.admit(request), b.admitNow(request));
  }
});
