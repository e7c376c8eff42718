import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import { DeploymentPool } from "./deployments.ts";
import { HEALTH_DEFAULTS, HealthChecks, healthPlans, isOutage } from "./health_checks.ts";

Deno.test("a check fails on no answer, a 5xx or an overload; a 429 or a 4xx says the upstream is alive", () => {
  assert.equal(isOutage(new TypeError("connection refused")), true);
  assert.equal(isOutage(new GatewayError("api_error", "x", { upstreamFault: true })), true);
  assert.equal(isOutage(new GatewayError("overloaded_error", "x")), true);
  assert.equal(isOutage(new GatewayError("rate_limit_error", "x")), false);
  assert.equal(isOutage(new GatewayError("invalid_request_error", "x")), false);
});

Deno.test("plans: the file's health_checks for every deployment, a target's own over it, false turns it off", () => {
  const pool = new DeploymentPool({
    g: {
      targets: [
        { target: "a/m", health_check: { interval_ms: 500 } },
        { target: "b/m", health_check: false },
        { target: "c/m" },
      ],
    },
  });
  assert.deepEqual(healthPlans(pool, undefined).map((p) => p.target), ["a/m"]);
  const plans = healthPlans(pool, { probe: "models", interval_ms: 9_000 });
  assert.deepEqual(plans, [
    { target: "a/m", plan: { ...HEALTH_DEFAULTS, probe: "models", interval_ms: 500 } },
    { target: "c/m", plan: { ...HEALTH_DEFAULTS, probe: "models", interval_ms: 9_000 } },
  ]);
});

Deno.test("unhealthy_after consecutive failures take a deployment out; one pass brings it back", async () => {
  const pool = new DeploymentPool({
    g: { strategy: "round-robin", targets: [{ target: "a/m" }, { target: "b/m" }] },
  });
  let failing = true;
  let checks = 0;
  const reports: boolean[] = [];
  const hc = new HealthChecks(
    pool,
    [{ target: "a/m", plan: { ...HEALTH_DEFAULTS, interval_ms: 20, unhealthy_after: 3 } }],
    () => (checks++, failing ? Promise.reject(new TypeError("refused")) : Promise.resolve()),
    (_, healthy) => reports.push(healthy),
  );
  try {
    while (checks < 2) await new Promise((r) => setTimeout(r, 5));
    assert.equal(pool.state("g", "a/m")!.healthy, true, "two failures of three: still in");
    while (checks < 3) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(pool.state("g", "a/m")!.healthy, false);
    const out = pool.order("g", 0) as { targets: string[]; skipped: Array<{ reason: string }> };
    assert.deepEqual(out.targets, ["b/m"]);
    assert.equal(out.skipped[0].reason, "unhealthy");
    failing = false;
    const at = checks;
    while (checks < at + 1) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(pool.state("g", "a/m")!.healthy, true);
    assert.deepEqual(reports, [false, true]);
  } finally {
    hc.close();
  }
});
