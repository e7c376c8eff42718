/**
 * Active health checks against mock upstreams that fail, then recover: a deployment failing its checks
 * (`request` probe: a one-token request; `models` probe: the provider's model list) gets no traffic, one
 * passing check brings it back, and every request is answered meanwhile.
 */
import assert from "node:assert/strict";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = (model: string) => ({ model, max_tokens: 16, messages: [{ role: "user", content: "Hi" }] });

function answer(model: unknown): Response {
  return Response.json({
    id: "c",
    object: "chat.completion",
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
}

/** True for the client's requests (not the health checks' one-token probes). */
const isTraffic = (r: { body: Record<string, unknown> }) => r.body.max_tokens === 16;

async function until(what: string, test: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

Deno.test("health checks take a failing deployment out and bring it back when it answers", e2e, async () => {
  let down = true;
  let listDown = true;
  const flaky = await startFaultyUpstream((r) =>
    r.path.endsWith("/models")
      ? (listDown ? new Response("{}", { status: 503 }) : Response.json({ object: "list", data: [] }))
      : down
      ? Response.json({ error: { message: "down" } }, { status: 503 })
      : answer(r.body.model)
  );
  const fast = await startFaultyUpstream((r) => answer(r.body.model));
  const gw = await startFaultyGateway(
    { UP_KEY: "health-test-key" },
    `providers:
  flaky: { type: openai-compatible, base_url: "${flaky.url}/v1", api_key_env: UP_KEY }
  fast: { type: openai-compatible, base_url: "${fast.url}/v1", api_key_env: UP_KEY }
health_checks: { interval_ms: 100, timeout_ms: 500, unhealthy_after: 2 }
deployments:
  team:
    strategy: round-robin
    targets: [{ target: flaky/req }, { target: fast/req, health_check: false }]
  team-list:
    strategy: round-robin
    targets: [{ target: flaky/list, health_check: { probe: models, unhealthy_after: 1 } }, { target: fast/list, health_check: false }]
`,
  );
  const logged = (text: string, target: string) => () =>
    gw.logs.some((line) => line.includes(text) && line.includes(target));
  const served = async (model: string, n: number) => {
    const by: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await gw.post(ask(model));
      assert.equal(r.status, 200, await r.text());
      by.push(r.headers.get("gw-upstream")!);
    }
    return by;
  };
  try {
    await until("flaky/req out", logged("failed its health checks", "flaky/req"));
    await until("flaky/list out", logged("failed its health checks", "flaky/list"));
    const probes = flaky.requests.filter((r) => !isTraffic(r)).length;
    assert.ok(probes >= 3, `the checks probed (${probes})`);
    // Out: round-robin would send every other request there; none goes.
    assert.deepEqual(new Set(await served("team", 6)), new Set(["fast/req"]));
    assert.deepEqual(new Set(await served("team-list", 6)), new Set(["fast/list"]));
    assert.equal(
      flaky.requests.filter(isTraffic).length,
      0,
      "no client request reached the failing deployment",
    );
    const probedFast = fast.requests.filter((r) => !isTraffic(r)).length;
    assert.equal(probedFast, 0, "health_check: false turns a deployment's checks off");
    const outLine = gw.logs.find((line) => line.includes("failed its health checks"))!;
    assert.ok(!outLine.includes("health-test-key"), "no credential in the log");
    const access = gw.logs.filter((line) => line.includes('"unhealthy"'));
    assert.ok(access.length > 0, "the access line records the skipped deployment as unhealthy");

    down = false;
    listDown = false;
    await until("flaky/req back", logged("healthy again", "flaky/req"));
    await until("flaky/list back", logged("healthy again", "flaky/list"));
    const back = await served("team", 6);
    assert.equal(back.filter((t) => t === "flaky/req").length, 3, `round-robin again: ${back}`);
    const listBack = await served("team-list", 6);
    assert.equal(listBack.filter((t) => t === "flaky/list").length, 3, `round-robin again: ${listBack}`);
  } finally {
    await gw.close();
    await Promise.all([flaky.close(), fast.close()]);
  }
});
