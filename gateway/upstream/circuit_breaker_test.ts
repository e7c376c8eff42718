import assert from "node:assert/strict";
import { CircuitBreakers, deploymentKey } from "./circuit_breaker.ts";

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

Deno.test("circuits are per deployment; a provider's summary is its worst deployment, naming it", () => {
  const now = 1_000;
  const breakers = new CircuitBreakers({ failures: 2, cooldownMs: 500 }, () => now);
  const bad = deploymentKey("openai", "gpt-a", "OPENAI_API_KEY");
  const good = deploymentKey("openai", "gpt-b", "OPENAI_API_KEY");
  const otherKey = deploymentKey("openai", "gpt-a", "OPENAI_KEY_2");
  assert.equal(bad, "openai/gpt-a#OPENAI_API_KEY");
  breakers.failure(bad);
  breakers.failure(bad);
  assert.equal(breakers.allow(bad), false);
  assert.equal(breakers.allow(good), true, "another model of the provider is unaffected");
  assert.equal(breakers.allow(otherKey), true, "the same model with another credential is unaffected");
  breakers.failure(good);
  assert.deepEqual(breakers.stateOfProvider("openai"), {
    state: "open",
    failures: 2,
    retryInMs: 500,
    deployments: [bad],
  });
  assert.deepEqual(breakers.stateOfProvider("gemini"), {
    state: "closed",
    failures: 0,
    retryInMs: 0,
    deployments: [],
  });
});
