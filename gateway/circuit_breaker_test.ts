import assert from "node:assert/strict";
import { CircuitBreakers } from "./circuit_breaker.ts";

Deno.test("a circuit opens after consecutive failures, lets one probe through after the cool-down", () => {
  let now = 1_000;
  const breakers = new CircuitBreakers({ failures: 3, cooldownMs: 500 }, () => now);
  breakers.failure("p");
  breakers.failure("p");
  breakers.success("p"); // a success in between: the count starts again
  breakers.failure("p");
  breakers.failure("p");
  assert.equal(breakers.allow("p"), true);
  breakers.failure("p");
  assert.equal(breakers.allow("p"), false, "open after 3 consecutive failures");
  assert.equal(breakers.retryInMs("p"), 500);
  assert.equal(breakers.allow("other"), true, "circuits are per provider");
  now += 500;
  assert.equal(breakers.allow("p"), true, "half-open: one probe");
  assert.equal(breakers.allow("p"), false, "only one probe at a time");
  breakers.failure("p");
  assert.equal(breakers.allow("p"), false, "a failed probe opens it again");
  now += 500;
  assert.equal(breakers.allow("p"), true);
  breakers.release("p"); // the probe's client left: no verdict
  assert.equal(breakers.allow("p"), true, "the probe slot is free again");
  breakers.success("p");
  assert.equal(breakers.allow("p"), true);
  assert.equal(breakers.allow("p"), true, "closed after a successful probe");
});
