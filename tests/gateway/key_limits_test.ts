/**
 * Per-key limits end to end on one gateway with in-process counters: the models a key may use, rpm, tpm
 * counted from the upstream's real usage (streamed and whole), concurrency and budgets, each refused before
 * any upstream call with Anthropic's error type and rate-limit headers.
 */
import assert from "node:assert/strict";
import { MemoryCounters } from "../../gateway/limits/counters.ts";
import { periodOf } from "../../gateway/limits/enforcer.ts";
import { type Harness, rawPost, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 64,
  messages: [{ role: "user", content: "Hi" }],
  ...extra,
});

async function withKey(h: Harness, settings: Parameters<Harness["store"]["create"]>[1]) {
  const { id, key } = await h.store.create("limited", settings);
  return { id, headers: { "x-api-key": key } };
}

/** The number of requests every mock upstream received. */
function upstreamCalls(h: Harness): number {
  return h.openai.requests.length + h.anthropic.requests.length + h.gemini.requests.length +
    h.compat.requests.length;
}

Deno.test(
  "a key limited to some models gets permission_error naming any other, before any upstream call",
  e2e,
  async () => {
    const h = await startHarness();
    try {
      const { headers } = await withKey(h, { models: ["fast", "anthropic/claude-fx-tool"] });
      const before = upstreamCalls(h);
      const refused = await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers);
      assert.equal(refused.status, 403);
      const body = JSON.parse(refused.text);
      assert.equal(body.error.type, "permission_error");
      assert.match(body.error.message, /"openai\/fx-text"/);
      assert.equal(upstreamCalls(h), before, "refused before any upstream call");
      assert.equal((await rawPost(h, "/v1/messages", ask("fast"), headers)).status, 200, "by alias");
      assert.equal((await rawPost(h, "/v1/messages", ask("anthropic/claude-fx-tool"), headers)).status, 200);
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "a key over its requests per minute gets 429 rate_limit_error with retry-after and Anthropic's headers",
  e2e,
  async () => {
    const h = await startHarness();
    try {
      const { headers } = await withKey(h, { rpm: 2 });
      const first = await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get("anthropic-ratelimit-requests-limit"), "2");
      assert.equal(first.headers.get("anthropic-ratelimit-requests-remaining"), "1");
      const reset = Date.parse(first.headers.get("anthropic-ratelimit-requests-reset")!);
      assert.ok(reset > Date.now() && reset <= Date.now() + 61_000, "reset within the 60 s window");
      const second = await rawPost(h, "/v1/messages", ask("openai/fx-text", { stream: true }), headers);
      assert.equal(second.status, 200);
      assert.equal(
        second.headers.get("anthropic-ratelimit-requests-remaining"),
        "0",
        "streams carry them too",
      );
      const before = upstreamCalls(h);
      const third = await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers);
      assert.equal(third.status, 429);
      assert.equal(JSON.parse(third.text).error.type, "rate_limit_error");
      assert.match(JSON.parse(third.text).error.message, /2 requests per minute/);
      const retryAfter = Number(third.headers.get("retry-after"));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
      assert.equal(third.headers.get("anthropic-ratelimit-requests-remaining"), "0");
      assert.equal(upstreamCalls(h), before, "refused before any upstream call");

      const unlimited = await rawPost(h, "/v1/messages", ask("openai/fx-text"));
      assert.equal(unlimited.status, 200);
      assert.equal(
        unlimited.headers.get("anthropic-ratelimit-requests-limit"),
        null,
        "an unlimited key has none",
      );
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "tokens per minute count the upstream's real usage at the end, streamed and whole",
  e2e,
  async () => {
    const counters = new MemoryCounters();
    const h = await startHarness({}, "", counters);
    try {
      const { id, headers } = await withKey(h, { tpm: 1_000 });
      const period = periodOf("month", Date.now()).name;
      // claude-fx-tool reports 377 input and 65 output tokens (its message_start and message_delta).
      const stream = await rawPost(
        h,
        "/v1/messages",
        ask("anthropic/claude-fx-tool", { stream: true }),
        headers,
      );
      assert.equal(stream.status, 200);
      assert.match(stream.text, /message_stop/);
      assert.equal((await counters.snapshot(id, period)).tokens.used, 377 + 65);
      assert.equal((await counters.snapshot(id, period)).inFlight, 0, "the reservation was released");
      // fx-text reports 120 prompt tokens (100 cached) and 5 completion tokens.
      const whole = await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers);
      assert.equal(whole.status, 200);
      assert.equal(whole.headers.get("anthropic-ratelimit-tokens-limit"), "1000");
      assert.equal((await counters.snapshot(id, period)).tokens.used, 377 + 65 + 125);
      const whole2 = await rawPost(h, "/v1/messages", ask("anthropic/claude-fx-tool"), headers);
      assert.equal(whole2.status, 200);
      assert.equal((await counters.snapshot(id, period)).tokens.used, 377 + 65 + 125 + 442);
      const over = await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers);
      assert.equal(over.status, 429);
      assert.match(JSON.parse(over.text).error.message, /1000 tokens per minute/);
      assert.equal(over.headers.get("anthropic-ratelimit-tokens-remaining"), "0");
    } finally {
      await h.close();
    }
  },
);

Deno.test("a key at its concurrency limit is refused until a request in flight ends", e2e, async () => {
  const h = await startHarness();
  try {
    const { headers } = await withKey(h, { maxConcurrency: 1 });
    const slow = rawPost(h, "/v1/messages", ask("openai/fx-slow-headers"), headers);
    await new Promise((r) => setTimeout(r, 100));
    const refused = await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers);
    assert.equal(refused.status, 429);
    assert.match(JSON.parse(refused.text).error.message, /in flight/);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal((await slow).status, 200);
    assert.equal((await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers)).status, 200);
  } finally {
    await h.close();
  }
});

Deno.test(
  "a key whose budget is spent gets 402 billing_error, charged at the configured prices",
  e2e,
  async () => {
    const counters = new MemoryCounters();
    // $10 per million input and $20 per million output tokens: fx-text (20 input, 100 cached, 5 output)
    // costs 20×10 + 100×10 + 5×20 = 1300 micro-USD.
    const h = await startHarness({}, `pricing:\n  openai/fx-text: { input: 10, output: 20 }\n`, counters);
    try {
      const { id, headers } = await withKey(h, { budgetUsd: 0.002, budgetPeriod: "day" });
      const period = periodOf("day", Date.now()).name;
      assert.equal((await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers)).status, 200);
      assert.equal((await counters.snapshot(id, period)).spentMicros, 1300);
      assert.equal((await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers)).status, 200);
      assert.equal((await counters.snapshot(id, period)).spentMicros, 2600);
      const before = upstreamCalls(h);
      const refused = await rawPost(h, "/v1/messages", ask("openai/fx-text"), headers);
      assert.equal(refused.status, 402);
      const error = JSON.parse(refused.text).error;
      assert.equal(error.type, "billing_error");
      assert.match(error.message, /budget of \$0\.002 per day/);
      assert.equal(upstreamCalls(h), before, "refused before any upstream call");
    } finally {
      await h.close();
    }
  },
);

Deno.test("an expired key is refused with authentication_error saying so", e2e, async () => {
  const h = await startHarness();
  try {
    const { id, key } = await h.store.create("short-lived", { expiresAt: Date.now() + 300 });
    assert.equal((await rawPost(h, "/v1/messages", ask("openai/fx-text"), { "x-api-key": key })).status, 200);
    await new Promise((r) => setTimeout(r, 400));
    const refused = await rawPost(h, "/v1/messages", ask("openai/fx-text"), { "x-api-key": key });
    assert.equal(refused.status, 401);
    assert.match(JSON.parse(refused.text).error.message, /expired/);
    void id;
  } finally {
    await h.close();
  }
});
