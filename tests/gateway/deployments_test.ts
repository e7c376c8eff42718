/**
 * Several deployments behind one model name, against three mock upstreams of different speed and failure:
 * `weighted` splits within a stated tolerance, `round-robin` takes turns, `latency` settles on the fast one,
 * `least-busy` spreads concurrent requests, a deployment answering 429 is cooled down for its `retry-after`
 * and gets no request meanwhile, and every request is answered (nothing lost).
 */
import assert from "node:assert/strict";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 16, messages: [{ role: "user", content: "Hi" }] };

function answer(model: unknown, completionTokens = 1): Response {
  return Response.json({
    id: "c",
    object: "chat.completion",
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: completionTokens, total_tokens: 3 + completionTokens },
  });
}

Deno.test("deployments: strategies, cooldowns, nothing lost", e2e, async (t) => {
  const fast = await startFaultyUpstream((r) => answer(r.body.model));
  const slow = await startFaultyUpstream(async (r, signal) => {
    await sleep(40, signal);
    return answer(r.body.model);
  });
  const limited = await startFaultyUpstream((r) =>
    String(r.body.model).startsWith("always-429")
      ? Response.json({ error: { message: "slow down" } }, { status: 429, headers: { "retry-after": "1" } })
      // A long answer: 3 + 1,000 tokens, far above the gateway's estimate of a "Hi".
      : answer(r.body.model, r.body.model === "wordy" ? 1_000 : 1)
  );
  const gw = await startFaultyGateway(
    { UP_KEY: "deployments-test-key" },
    `providers:
  fast: { type: openai-compatible, base_url: "${fast.url}/v1", api_key_env: UP_KEY }
  slow: { type: openai-compatible, base_url: "${slow.url}/v1", api_key_env: UP_KEY }
  limited: { type: openai-compatible, base_url: "${limited.url}/v1", api_key_env: UP_KEY }
deployments:
  team-weighted:
    strategy: weighted
    targets: [{ target: fast/w, weight: 3 }, { target: slow/w, weight: 1 }]
  team-rr:
    strategy: round-robin
    targets: [{ target: fast/rr }, { target: slow/rr }, { target: limited/rr }]
  team-latency:
    strategy: latency
    targets: [{ target: slow/lat }, { target: fast/lat }]
  team-busy:
    strategy: least-busy
    targets: [{ target: slow/busy }, { target: fast/busy }]
  team-cool:
    strategy: round-robin
    targets: [{ target: limited/always-429 }, { target: fast/cool }]
  team-capped:
    strategy: round-robin
    targets: [{ target: limited/capped, rpm: 2 }, { target: fast/capped }]
  team-tpm:
    strategy: round-robin
    targets: [{ target: limited/wordy, tpm: 1000 }, { target: fast/wordy }]
`,
  );
  const count = (up: { requests: Array<{ body: Record<string, unknown> }> }, model: string) =>
    up.requests.filter((r) => r.body.model === model).length;
  const ok = async (model: string) => {
    const r = await gw.post({ model, ...ask });
    const text = await r.text();
    assert.equal(r.status, 200, text);
    return r.headers.get("gw-upstream");
  };
  try {
    await t.step("weighted 3:1 over 200 requests: fast gets 75 % ± 10 points", async () => {
      for (let i = 0; i < 200; i++) await ok("team-weighted");
      const share = count(fast, "w") / 200;
      assert.equal(count(fast, "w") + count(slow, "w"), 200, "each request went to exactly one deployment");
      assert.ok(share >= 0.65 && share <= 0.85, `fast share ${share} (75 % ± 10 points)`);
    });
    await t.step("round-robin takes turns exactly", async () => {
      const served = [];
      for (let i = 0; i < 9; i++) served.push(await ok("team-rr"));
      assert.deepEqual([count(fast, "rr"), count(slow, "rr"), count(limited, "rr")], [3, 3, 3]);
      assert.notEqual(served[0], served[1]);
    });
    await t.step("latency settles on the fast deployment (≥ 90 % of 40 after each is measured)", async () => {
      for (let i = 0; i < 2; i++) await ok("team-latency");
      const before = count(fast, "lat");
      for (let i = 0; i < 40; i++) await ok("team-latency");
      assert.ok(count(fast, "lat") - before >= 36, `fast got ${count(fast, "lat") - before} of 40`);
    });
    await t.step("least-busy spreads 20 concurrent requests, the fast one taking more", async () => {
      const served = await Promise.all(Array.from({ length: 20 }, () => ok("team-busy")));
      assert.equal(served.length, 20);
      assert.ok(count(slow, "busy") >= 1 && count(fast, "busy") >= 1, "both deployments were used");
      assert.equal(count(slow, "busy") + count(fast, "busy"), 20);
    });
    await t.step(
      "a 429 cools its deployment down for retry-after: no request meanwhile, none lost",
      async () => {
        assert.equal(await ok("team-cool"), "fast/cool", "the 429 fell through to the next deployment");
        assert.equal(count(limited, "always-429"), 1);
        for (let i = 0; i < 10; i++) assert.equal(await ok("team-cool"), "fast/cool");
        assert.equal(count(limited, "always-429"), 1, "nothing went to the cooled-down deployment");
        await sleep(1_100);
        await ok("team-cool");
        await ok("team-cool");
        assert.equal(count(limited, "always-429"), 2, "after its retry-after it is tried again");
      },
    );
    await t.step("an rpm cap leaves a deployment out for the rest of the minute", async () => {
      // The cap counts per wall-clock minute: start well inside one so a rollover cannot reopen it mid-step.
      const toNextMinute = 60_000 - (Date.now() % 60_000);
      if (toNextMinute < 10_000) await sleep(toNextMinute + 50);
      for (let i = 0; i < 8; i++) await ok("team-capped");
      assert.equal(count(limited, "capped"), 2);
      assert.equal(count(fast, "capped"), 6);
    });
    await t.step("a tpm cap counts the upstream's reported usage, not only the input estimate", async () => {
      const toNextMinute = 60_000 - (Date.now() % 60_000);
      if (toNextMinute < 10_000) await sleep(toNextMinute + 50);
      // The first answer reports 1,003 tokens: the rest of the minute, nothing more fits under 1,000 (by the
      // estimate alone, a few tokens a request, every other request would still go there).
      for (let i = 0; i < 6; i++) await ok("team-tpm");
      assert.equal(count(limited, "wordy"), 1);
      assert.equal(count(fast, "wordy"), 5);
    });
    await t.step("GET /v1/models lists the groups", async () => {
      const r = await fetch(`${gw.url}/v1/models?limit=1000`, { headers: { "x-api-key": gw.key } });
      const ids = (await r.json()).data.map((m: { id: string }) => m.id);
      assert.ok(ids.includes("team-weighted") && ids.includes("team-busy"), ids.join());
    });
  } finally {
    await gw.close();
    await Promise.all([fast.close(), slow.close(), limited.close()]);
  }
});

Deno.test(
  "deployments under concurrent load: speeds, failures and cooldowns; nothing lost",
  e2e,
  async (t) => {
    let flakyCalls = 0;
    const fast = await startFaultyUpstream((r) => answer(r.body.model));
    const slow = await startFaultyUpstream(async (r, signal) => {
      await sleep(40, signal);
      return answer(r.body.model);
    });
    // Every third attempt fails with a 500 (an upstream fault: retried on the next deployment).
    const flaky = await startFaultyUpstream((r) =>
      ++flakyCalls % 3 === 0
        ? Response.json({ error: { message: "boom" } }, { status: 500 })
        : answer(r.body.model)
    );
    const limited = await startFaultyUpstream(() =>
      Response.json({ error: { message: "slow down" } }, { status: 429, headers: { "retry-after": "3" } })
    );
    const gw = await startFaultyGateway(
      { UP_KEY: "deployments-test-key" },
      `providers:
  fast: { type: openai-compatible, base_url: "${fast.url}/v1", api_key_env: UP_KEY }
  slow: { type: openai-compatible, base_url: "${slow.url}/v1", api_key_env: UP_KEY }
  flaky: { type: openai-compatible, base_url: "${flaky.url}/v1", api_key_env: UP_KEY }
  limited: { type: openai-compatible, base_url: "${limited.url}/v1", api_key_env: UP_KEY }
circuit_breaker: { failures: 1000 }
deployments:
  team-w3:
    strategy: weighted
    targets: [{ target: fast/w5, weight: 5 }, { target: slow/w3, weight: 3 }, { target: flaky/w2, weight: 2 }]
  team-busy:
    strategy: least-busy
    targets: [{ target: slow/busy }, { target: fast/busy }]
  team-flaky:
    strategy: round-robin
    targets: [{ target: flaky/f }, { target: fast/f }, { target: slow/f }]
  team-cool:
    strategy: round-robin
    targets: [{ target: limited/c }, { target: fast/c }, { target: slow/c }]
`,
    );
    const count = (up: { requests: Array<{ body: Record<string, unknown> }> }, model: string) =>
      up.requests.filter((r) => r.body.model === model).length;
    /** `n` requests, `width` at a time; every one must be answered 200. */
    const load = async (model: string, n: number, width: number) => {
      let next = 0;
      const served: string[] = [];
      await Promise.all(Array.from({ length: width }, async () => {
        while (next < n) {
          next++;
          const r = await gw.post({ model, ...ask });
          const text = await r.text();
          assert.equal(r.status, 200, text);
          served.push(r.headers.get("gw-upstream")!);
        }
      }));
      return served;
    };
    try {
      await t.step(
        "weighted 5:3:2 over three deployments, 600 requests 6 at a time: each within ±8 points (≥ 3.9 σ)",
        async () => {
          const served = await load("team-w3", 600, 6);
          assert.equal(served.length, 600, "every request answered");
          // A failed attempt at flaky moves on to the heaviest other deployment (fast): count first choices.
          const retried = count(flaky, "w2") - served.filter((s) => s === "flaky/w2").length;
          const firsts = [count(fast, "w5") - retried, count(slow, "w3"), count(flaky, "w2")];
          assert.equal(firsts[0] + firsts[1] + firsts[2], 600, "each request had exactly one first choice");
          [0.5, 0.3, 0.2].forEach((want, i) => {
            assert.ok(Math.abs(firsts[i] / 600 - want) <= 0.08, `first choices ${firsts} for 5:3:2`);
          });
        },
      );
      await t.step("least-busy, 8 clients × 10 requests: the fast deployment takes ≥ 65 %", async () => {
        const served = await load("team-busy", 80, 8);
        const fastShare = served.filter((s) => s === "fast/busy").length / 80;
        assert.ok(fastShare >= 0.65, `fast share ${fastShare}`);
        assert.equal(count(fast, "busy") + count(slow, "busy"), 80, "each request went to exactly one");
      });
      await t.step(
        "a deployment failing every third attempt: all 90 answered, failures retried elsewhere",
        async () => {
          flakyCalls = 0;
          const served = await load("team-flaky", 90, 6);
          const failed = count(flaky, "f") - served.filter((s) => s === "flaky/f").length;
          assert.ok(failed >= 5, `flaky failed ${failed} attempts`);
          // Nothing lost, nothing doubled: successful upstream answers equal requests.
          const answered = count(flaky, "f") - failed + count(fast, "f") + count(slow, "f");
          assert.equal(answered, 90);
          assert.equal(served.length, 90);
        },
      );
      await t.step("concurrent requests never reach a deployment cooled down by a 429", async () => {
        const before = await load("team-cool", 9, 3);
        const hits = count(limited, "c");
        assert.ok(hits >= 1, "the limited deployment was tried and answered 429");
        assert.ok(!before.includes("limited/c"));
        const after = await load("team-cool", 60, 6);
        assert.equal(count(limited, "c"), hits, "no request during its retry-after");
        assert.equal(after.length, 60);
        const fastShare = after.filter((s) => s === "fast/c").length / 60;
        assert.ok(fastShare >= 0.4 && fastShare <= 0.6, `the two others share: fast ${fastShare}`);
      });
    } finally {
      await gw.close();
      await Promise.all([fast.close(), slow.close(), flaky.close(), limited.close()]);
    }
  },
);
