/**
 * Claude Code's model names through the gateway: dated ids of each tier, as Claude Code sends them for its
 * main (streamed, with tools) and background (small, non-streamed) calls, land on the upstream and model the
 * config names — glob aliases by their documented precedence, then tier defaults — and `GET /v1/models`
 * lists in Anthropic's shape only what a key may use.
 */
import assert from "node:assert/strict";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };

function answer(model: unknown, stream: boolean): Response {
  if (!stream) {
    return Response.json({
      id: "c",
      object: "chat.completion",
      model,
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage,
    });
  }
  const base = { id: "c", object: "chat.completion.chunk", model };
  const frames = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage },
    "[DONE]",
  ].map((f) => `data: ${typeof f === "string" ? f : JSON.stringify(f)}\n\n`);
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}

Deno.test("Claude Code's dated model ids land where the config says", e2e, async (t) => {
  const big = await startFaultyUpstream((r) => answer(r.body.model, r.body.stream === true));
  const small = await startFaultyUpstream((r) => answer(r.body.model, r.body.stream === true));
  const gw = await startFaultyGateway(
    { BIG_KEY: "big-test-key", SMALL_KEY: "small-test-key" },
    `providers:
  big: { type: openai-compatible, base_url: "${big.url}/v1", api_key_env: BIG_KEY }
  small: { type: openai-compatible, base_url: "${small.url}/v1", api_key_env: SMALL_KEY }
aliases:
  claude-sonnet-4-5-20250929: big/exact-sonnet
  "claude-haiku-4-5-*": small/haiku-glob
  "claude-*-opus-*": big/legacy-opus
  "claude-*": big/catch-all
tiers:
  opus: big/opus-tier
  haiku: small/haiku-tier
`,
  );
  const main = {
    max_tokens: 64,
    stream: true,
    system: "You are Claude Code.",
    messages: [{ role: "user", content: "Hi" }],
    tools: [{ name: "Bash", description: "run", input_schema: { type: "object", properties: {} } }],
  };
  const background = { max_tokens: 32, messages: [{ role: "user", content: "Title?" }] };
  const cases: Array<[string, "main" | "background", string, string]> = [
    ["claude-sonnet-4-5-20250929", "main", "big", "exact-sonnet"], // exact alias
    ["claude-haiku-4-5-20251001", "background", "small", "haiku-glob"], // longest literal prefix
    ["claude-3-opus-20240229", "main", "big", "legacy-opus"], // same prefix, more literals
    ["claude-opus-4-1-20250805", "main", "big", "catch-all"], // only the catch-all glob matches
    ["claude-3-5-haiku-20241022", "background", "big", "catch-all"], // a glob beats a tier
  ];
  try {
    for (const [model, kind, upstream, upstreamModel] of cases) {
      await t.step(`${model} (${kind}) → ${upstream}/${upstreamModel}`, async () => {
        const seen = { big: big.requests.length, small: small.requests.length };
        const r = await gw.post({ model, ...(kind === "main" ? main : background) });
        const text = await r.text();
        assert.equal(r.status, 200, text);
        // A stream whose upstream is slower than the ping interval starts before it is known who serves.
        const served = r.headers.get("gw-upstream");
        if (kind === "background" || served !== null) assert.equal(served, `${upstream}/${upstreamModel}`);
        const got = upstream === "big" ? big.requests.slice(seen.big) : small.requests.slice(seen.small);
        const other = upstream === "big"
          ? small.requests.length - seen.small
          : big.requests.length - seen.big;
        assert.equal(got.length, 1);
        assert.equal(other, 0, "nothing went to the other upstream");
        assert.equal(got[0].body.model, upstreamModel);
        // The client is answered under the name it asked for.
        assert.match(text, new RegExp(model));
      });
    }
    await t.step("without a matching glob, the tier defaults route dated names", async () => {
      const tiersOnly = await startFaultyGateway(
        { BIG_KEY: "big-test-key", SMALL_KEY: "small-test-key" },
        `providers:
  big: { type: openai-compatible, base_url: "${big.url}/v1", api_key_env: BIG_KEY }
  small: { type: openai-compatible, base_url: "${small.url}/v1", api_key_env: SMALL_KEY }
tiers: { opus: big/opus-tier, sonnet: big/sonnet-tier, haiku: small/haiku-tier }
`,
      );
      try {
        for (
          const [model, target] of [
            ["claude-opus-4-1-20250805", "big/opus-tier"],
            ["claude-sonnet-4-5-20250929", "big/sonnet-tier"],
            ["claude-3-5-haiku-20241022", "small/haiku-tier"],
            ["claude-haiku-4-5-20251001", "small/haiku-tier"],
          ]
        ) {
          const r = await tiersOnly.post({ model, ...background });
          assert.equal(r.status, 200, await r.text());
          assert.equal(r.headers.get("gw-upstream"), target, model);
        }
      } finally {
        await tiersOnly.close();
      }
    });
    await t.step("GET /v1/models lists, in Anthropic's shape, only what a key may use", async () => {
      const list = async (key: string, query = "") => {
        const r = await fetch(`${gw.url}/v1/models${query}`, { headers: { "x-api-key": key } });
        assert.equal(r.status, 200);
        return await r.json();
      };
      const all = await list(gw.key, "?limit=1000");
      const ids = all.data.map((m: { id: string }) => m.id);
      assert.ok(ids.includes("claude-sonnet-4-5-20250929"), ids.join());
      assert.ok(!ids.some((id: string) => id.includes("*")), "glob aliases are rules, not models");
      for (const m of all.data) {
        assert.equal(m.type, "model");
        assert.equal(typeof m.display_name, "string");
        assert.ok(!Number.isNaN(Date.parse(m.created_at)));
      }
      assert.equal(all.first_id, ids[0]);
      assert.equal(all.last_id, ids.at(-1));
      assert.equal(all.has_more, false);
      const { key } = await gw.store.create("limited", { models: ["claude-sonnet-4-5-20250929"] });
      await sleep(1_100); // the verifier's cache
      const limited = await list(key);
      assert.deepEqual(limited.data.map((m: { id: string }) => m.id), ["claude-sonnet-4-5-20250929"]);
      const byTarget = (await gw.store.create("by-target", { models: ["big/exact-sonnet"] })).key;
      await sleep(1_100);
      assert.deepEqual(
        (await list(byTarget)).data.map((m: { id: string }) => m.id),
        ["claude-sonnet-4-5-20250929"],
        "a key allowed a target lists the names that route to it",
      );
    });
  } finally {
    await gw.close();
    await big.close();
    await small.close();
  }
});
