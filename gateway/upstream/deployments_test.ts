import assert from "node:assert/strict";
import { DeploymentPool, type Ordered } from "./deployments.ts";

/** The order of a pool without Redis: computed at once, never a promise (no await on the hot path). */
function sync(order: Ordered | Promise<Ordered>): Ordered {
  assert.ok(!(order instanceof Promise), "without Redis the order is synchronous");
  return order;
}

const targets = [
  { target: "a/m", weight: 3 },
  { target: "b/m", weight: 1 },
];

Deno.test("weighted draws the first deployment by weight; the rest follow as fallbacks", () => {
  let draw = 0;
  const pool = new DeploymentPool({ g: { strategy: "weighted", targets } }, () => draw);
  draw = 0.5; // 0.5 * 4 = 2 < 3: a
  assert.deepEqual(sync(pool.order("g", 0)).targets, ["a/m", "b/m"]);
  draw = 0.8; // 3.2 ≥ 3: b
  assert.deepEqual(sync(pool.order("g", 0)).targets, ["b/m", "a/m"]);
});

Deno.test("round-robin rotates; least-busy prefers fewer in flight; latency the lowest EWMA", () => {
  const rr = new DeploymentPool({ g: { strategy: "round-robin", targets: [...targets, { target: "c/m" }] } });
  assert.deepEqual([0, 1, 2, 3].map(() => sync(rr.order("g", 0)).targets[0]), ["a/m", "b/m", "c/m", "a/m"]);
  const busy = new DeploymentPool({ g: { strategy: "least-busy", targets } });
  busy.started("g", "a/m", 0);
  assert.deepEqual([0, 1].map(() => sync(busy.order("g", 0)).targets[0]), ["b/m", "b/m"]);
  busy.finished("g", "a/m", 5);
  assert.deepEqual(new Set([0, 1].map(() => sync(busy.order("g", 0)).targets[0])), new Set(["a/m", "b/m"]));
  const fast = new DeploymentPool({ g: { strategy: "latency", targets } });
  assert.equal(sync(fast.order("g", 0)).targets.length, 2);
  fast.finished("g", "a/m", 100);
  assert.equal(sync(fast.order("g", 0)).targets[0], "b/m", "an untried deployment is measured first");
  fast.finished("g", "b/m", 10);
  assert.equal(sync(fast.order("g", 0)).targets[0], "b/m");
  for (let i = 0; i < 10; i++) fast.finished("g", "b/m", 500);
  assert.equal(sync(fast.order("g", 0)).targets[0], "a/m", "the EWMA follows a deployment slowing down");
});

Deno.test("a 429 / 529 cools a deployment down for its retry-after, else the group's cooldown", () => {
  let now = 1_000_000;
  const pool = new DeploymentPool(
    { g: { strategy: "round-robin", cooldown_ms: 2_000, targets } },
    Math.random,
    () => now,
  );
  pool.finished("g", "a/m", 5, "rate_limit_error", 7);
  const ordered = sync(pool.order("g", 0));
  assert.deepEqual(ordered.targets, ["b/m"]);
  assert.deepEqual(ordered.skipped, [{ target: "a/m", reason: "cooling_down", retryInMs: 7_000 }]);
  pool.finished("g", "b/m", 5, "overloaded_error");
  assert.deepEqual(sync(pool.order("g", 0)).targets, []);
  now += 2_000;
  assert.deepEqual(sync(pool.order("g", 0)).targets, ["b/m"]);
  now += 5_000;
  assert.equal(sync(pool.order("g", 0)).targets.length, 2);
  pool.finished("g", "a/m", 5, "invalid_request_error");
  assert.equal(sync(pool.order("g", 0)).targets.length, 2, "other failures do not cool down");
});

Deno.test("rpm and tpm caps leave a deployment out until the next minute", () => {
  let now = 60_000 * 100;
  const pool = new DeploymentPool(
    {
      g: { strategy: "round-robin", targets: [{ target: "a/m", rpm: 2 }, { target: "b/m", tpm: 1_000 }] },
    },
    Math.random,
    () => now,
  );
  pool.started("g", "a/m", 10);
  pool.started("g", "a/m", 10);
  pool.started("g", "b/m", 900);
  const ordered = sync(pool.order("g", 200));
  assert.deepEqual(ordered.targets, []);
  assert.deepEqual(ordered.skipped.map((s) => s.reason), ["rpm_cap", "tpm_cap"]);
  now += 60_000;
  assert.equal(sync(pool.order("g", 200)).targets.length, 2);
});

Deno.test("a tpm count is corrected to the reported usage when the answer ends", () => {
  const now = 60_000 * 100 + 5;
  const pool = new DeploymentPool(
    { g: { strategy: "round-robin", targets: [{ target: "a/m", tpm: 1_000 }] } },
    Math.random,
    () => now,
  );
  const usage = (input: number, output: number) => ({
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  });
  // Estimated 600, reported 100: room for 850 more.
  const small = pool.chargeFor("g", "a/m", 600)!;
  pool.started("g", "a/m", 600);
  assert.equal(sync(pool.order("g", 500)).targets.length, 0, "by the estimate, 600 + 500 > 1,000");
  small.settle(usage(60, 40));
  assert.equal(sync(pool.order("g", 850)).targets.length, 1);
  // Estimated 10, reported 900 (cache reads count): 100 + 900 leaves no room.
  const big = pool.chargeFor("g", "a/m", 10)!;
  pool.started("g", "a/m", 10);
  big.settle({ ...usage(50, 50), cache_read_input_tokens: 800 });
  assert.deepEqual(sync(pool.order("g", 1)).skipped.map((s) => s.reason), ["tpm_cap"]);
  // No usage reported (a failed stream): the estimate stands.
  const none = pool.chargeFor("g", "a/m", 0)!;
  none.settle(undefined);
  assert.equal(pool.chargeFor("g", "b/m", 10), undefined, "not a member");
});

Deno.test("no tpm cap, no charge to correct", () => {
  const pool = new DeploymentPool({ g: { targets: [{ target: "a/m", rpm: 5 }] } });
  assert.equal(pool.chargeFor("g", "a/m", 10), undefined);
});

Deno.test("a tpm correction counts only numbers from the upstream's usage", () => {
  const pool = new DeploymentPool(
    { g: { strategy: "round-robin", targets: [{ target: "a/m", tpm: 1_000 }] } },
    Math.random,
    () => 60_000 * 100,
  );
  const charge = pool.chargeFor("g", "a/m", 10)!;
  pool.started("g", "a/m", 10);
  charge.settle({
    input_tokens: "x" as unknown as number,
    output_tokens: "12" as unknown as number,
    cache_creation_input_tokens: NaN,
    cache_read_input_tokens: -5,
  });
  // Counted as 0 tokens: the cap still holds for what comes next (NaN would have switched it off).
  assert.deepEqual(sync(pool.order("g", 1_001)).skipped.map((s) => s.reason), ["tpm_cap"]);
  assert.equal(sync(pool.order("g", 1_000)).targets.length, 1);
});
