/**
 * Fallbacks, retries and the circuit breaker against faulty loopback upstreams: connect errors, timeouts
 * before the headers, 429 and 5xx move to the next target (never a 4xx, never after a stream's headers),
 * `retry-after` is honoured within the deadline, responses name the target that served, the access log
 * records every attempt, the SSE grammar holds across a fallback, and an open circuit costs no latency.
 */
import assert from "node:assert/strict";
import { checkGrammar } from "./grammar.ts";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

function answer(model: unknown, text: string, stream: boolean): Response {
  if (!stream) {
    return Response.json({
      id: "c",
      object: "chat.completion",
      model,
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage,
    });
  }
  const base = { id: "c", object: "chat.completion.chunk", model };
  const frames = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { ...base, choices: [], usage },
    "[DONE]",
  ].map((f) => `data: ${typeof f === "string" ? f : JSON.stringify(f)}\n\n`);
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}

Deno.test("fallbacks, retries and circuit breakers", e2e, async (t) => {
  let flakyCalls = 0;
  const primary = await startFaultyUpstream(async (r, signal) => {
    const model = String(r.body.model);
    const stream = r.body.stream === true;
    if (model === "down") return Response.json({ error: { message: "overloaded" } }, { status: 503 });
    if (model === "bad") return Response.json({ error: { message: "bad request" } }, { status: 400 });
    if (model === "hang") await sleep(60_000, signal);
    if (model === "huge") return answer(r.body.model, "x".repeat(8192), stream);
    if (model === "bighead") {
      return new Response("{}", {
        headers: { "content-type": "application/json", "x-big": "h".repeat(70_000) },
      });
    }
    if (model.startsWith("slow-429")) {
      return Response.json({ error: { message: "slow down" } }, {
        status: 429,
        headers: { "retry-after": "5" },
      });
    }
    if (model === "flaky" && flakyCalls++ === 0) {
      return Response.json({ error: { message: "slow down" } }, {
        status: 429,
        headers: { "retry-after": "1" },
      });
    }
    if (model === "midstream") {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(
            `data: ${
              JSON.stringify({
                id: "c",
                object: "chat.completion.chunk",
                model,
                choices: [{ index: 0, delta: { content: "Hel" }, finish_reason: null }],
              })
            }\n\n`,
          ));
          setTimeout(() => controller.error(new Error("cut by the fixture")), 20);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    return answer(r.body.model, "from primary", stream);
  });
  const backup = await startFaultyUpstream((r) =>
    answer(r.body.model, "from backup", r.body.stream === true)
  );
  const gw = await startFaultyGateway(
    {
      OPENAI_API_KEY: "sk-test-fallbacks-primary",
      OPENAI_BASE_URL: `${primary.url}/v1`,
      BACKUP_KEY: "backup-test-key",
      GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: "200",
      GATEWAY_UPSTREAM_MAX_BODY_BYTES: "4096",
    },
    `providers:
  backup: { type: openai-compatible, base_url: "${backup.url}/v1", api_key_env: BACKUP_KEY }
  dead: { type: openai-compatible, base_url: "http://127.0.0.1:9/v1", api_key_env: BACKUP_KEY }
  slowpoke: { type: openai-compatible, base_url: "${primary.url}/v1", api_key_env: BACKUP_KEY }
  lonely: { type: openai-compatible, base_url: "${primary.url}/v1", api_key_env: BACKUP_KEY }
aliases:
  smart: openai/down
fallbacks:
  smart: [backup/m1]
  openai/down: [backup/m1]
  openai/bad: [backup/m1]
  openai/hang: [backup/m1]
  openai/midstream: [backup/m1]
  openai/flaky: [openai/flaky]
  openai/slow-429: [openai/slow-429, backup/m1]
  openai/slow-429-alone: [openai/slow-429-alone]
  dead: [backup/m1]
  slowpoke: [backup/m1]
retry: { deadline_ms: 1200, backoff_ms: 10, max_backoff_ms: 1500 }
circuit_breaker: { failures: 3, cooldown_ms: 500 }
`,
  );
  const accessLine = (r: Response) => {
    const id = r.headers.get("request-id");
    return gw.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "request" && l.request_id === id);
  };
  const backupCalls = () => backup.requests.length;
  // A success closes openai's circuit again (the steps below fail it on purpose, 3 failures open it).
  const succeedOnOpenAi = async () =>
    void await (await gw.post({ model: "openai/ok", ...ask })).body?.cancel();
  try {
    for (const stream of [false, true]) {
      await t.step(
        `a 503 falls back (stream: ${stream}), saying who served, logging both attempts`,
        async () => {
          const r = await gw.post({ model: "openai/down", ...ask, stream });
          const text = await r.text();
          assert.equal(r.status, 200, text);
          assert.match(text, /from backup/);
          assert.equal(r.headers.get("gw-upstream"), "backup/m1");
          assert.equal(r.headers.get("gw-attempts"), "2");
          if (stream) {
            const report = await checkGrammar(text, { translated: true });
            assert.deepEqual(report.violations, []);
            assert.equal(report.ending, "message_stop");
          }
          await sleep(20);
          const line = accessLine(r);
          assert.equal(line.upstream, "backup/m1");
          assert.deepEqual(
            line.attempts.map((
              a: { target: string; outcome: string; error_type?: string },
            ) => [a.target, a.outcome, a.error_type]),
            [
              ["openai/down", "error", "overloaded_error"],
              ["backup/m1", "ok", undefined],
            ],
          );
        },
      );
    }
    await succeedOnOpenAi();
    await t.step("an alias's own fallback chain applies", async () => {
      const r = await gw.post({ model: "smart", ...ask });
      assert.equal(r.headers.get("gw-upstream"), "backup/m1");
      assert.equal(JSON.parse(await r.text()).model, "smart", "the requested name is echoed");
    });
    await succeedOnOpenAi();
    await t.step("a 400 does not fall back", async () => {
      const before = backupCalls();
      const r = await gw.post({ model: "openai/bad", ...ask });
      assert.equal(r.status, 400);
      await r.body?.cancel();
      assert.equal(backupCalls(), before);
    });
    await t.step(
      "no headers in time falls back, in both modes; the stream's grammar holds across the pings",
      async () => {
        const whole = await gw.post({ model: "openai/hang", ...ask });
        assert.match(await whole.text(), /from backup/);
        const streamed = await gw.post({ model: "openai/hang", ...ask, stream: true });
        const text = await streamed.text();
        const report = await checkGrammar(text, { translated: true });
        assert.equal(report.events[0].event, "ping", "the stream pinged while the first target hung");
        assert.deepEqual(report.violations, []);
        assert.equal(report.ending, "message_stop");
        assert.match(text, /from backup/);
      },
    );
    await succeedOnOpenAi();
    await t.step("a connect error falls back through the provider's chain", async () => {
      const r = await gw.post({ model: "dead/m0", ...ask });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("gw-upstream"), "backup/m1");
      await r.body?.cancel();
    });
    await t.step("a stream failing after its headers is not retried", async () => {
      const before = backupCalls();
      const r = await gw.post({ model: "openai/midstream", ...ask, stream: true });
      const text = await r.text();
      assert.match(text, /event: error/);
      assert.equal(backupCalls(), before);
    });
    await t.step("a retry of the same provider honours its retry-after", async () => {
      const started = performance.now();
      const r = await gw.post({ model: "openai/flaky", ...ask });
      assert.equal(r.status, 200);
      assert.match(await r.text(), /from primary/);
      assert.ok(performance.now() - started >= 950, `retried after ${performance.now() - started} ms`);
      assert.equal(r.headers.get("gw-attempts"), "2");
    });
    await t.step(
      "a retry that cannot start before the deadline is skipped for the next provider",
      async () => {
        const started = performance.now();
        const r = await gw.post({ model: "openai/slow-429", ...ask });
        assert.equal(
          r.status,
          200,
          "the 429's retry-after (5 s) is past the deadline: backup serves at once",
        );
        assert.match(await r.text(), /from backup/);
        assert.equal(r.headers.get("gw-upstream"), "backup/m1");
        assert.ok(performance.now() - started < 600, `answered after ${performance.now() - started} ms`);
      },
    );
    await t.step(
      "no wait goes past the deadline: with nothing else to try, the 429 is answered at once",
      async () => {
        const started = performance.now();
        const r = await gw.post({ model: "openai/slow-429-alone", ...ask });
        assert.equal(r.status, 429);
        assert.equal(r.headers.get("retry-after"), "5");
        await r.body?.cancel();
        assert.ok(performance.now() - started < 600, `answered after ${performance.now() - started} ms`);
      },
    );
    await t.step("an open circuit skips a dead provider without a call", async () => {
      for (let i = 0; i < 3; i++) {
        const r = await gw.post({ model: "slowpoke/hang", ...ask });
        assert.match(await r.text(), /from backup/); // each waited the 200 ms headers timeout
      }
      const calls = primary.requests.length;
      const started = performance.now();
      const r = await gw.post({ model: "slowpoke/hang", ...ask });
      assert.match(await r.text(), /from backup/);
      // The outcome and the untouched upstream prove the skip; the time bound only catches a wait of the
      // 200 ms headers timeout plus a loaded machine's scheduling.
      assert.ok(performance.now() - started < 1_000, `took ${performance.now() - started} ms`);
      assert.equal(primary.requests.length, calls, "the open provider was not called");
      await sleep(20);
      assert.equal(accessLine(r).attempts[0].outcome, "circuit_open");
    });
    await t.step(
      "without a fallback an open circuit answers 529 at once, then probes after the cool-down",
      async () => {
        for (let i = 0; i < 3; i++) await (await gw.post({ model: "lonely/hang", ...ask })).body?.cancel();
        const calls = primary.requests.length;
        const r = await gw.post({ model: "lonely/hang", ...ask });
        assert.equal(r.status, 529);
        assert.ok(Number(r.headers.get("retry-after")) >= 1);
        assert.match(JSON.parse(await r.text()).error.message, /lonely\/hang is unavailable/);
        assert.equal(primary.requests.length, calls);
        // The circuit is the deployment's: another model of the same provider is still called at once.
        const other = await gw.post({ model: "lonely/ok", ...ask });
        assert.equal(other.status, 200, "lonely/ok is not behind lonely/hang's open circuit");
        await other.body?.cancel();
        assert.equal(primary.requests.length, calls + 1);
        await sleep(550);
        const probe = await gw.post({ model: "lonely/hang", ...ask });
        await probe.body?.cancel();
        assert.equal(
          primary.requests.length,
          calls + 2,
          "after the cool-down one probe reaches the upstream",
        );
        assert.equal(accessLine(probe).attempts[0].outcome, "error");
      },
    );
    await t.step("the gateway's refusal of an answer over its size caps never opens a circuit", async () => {
      for (const model of ["openai/huge", "openai/bighead"]) {
        for (let i = 0; i < 5; i++) {
          const calls = primary.requests.length;
          const r = await gw.post({ model, ...ask });
          const error = JSON.parse(await r.text()).error;
          assert.equal(error.type, "api_error", `${model}: ${error.message}`);
          assert.match(error.message, /larger than/);
          assert.equal(primary.requests.length, calls + 1, `${model} call ${i + 1} reached the upstream`);
        }
      }
    });
  } finally {
    await gw.close();
    await Promise.all([primary.close(), backup.close()]);
  }
});
