/**
 * Claude Code itself against upstream rate limits and dated model ids: the upstream (an OpenAI-compatible
 * stand-in reached through `tiers:`) answers its first two calls with a bare 429 — no `retry-after`, only
 * OpenAI's `x-ratelimit-*` — then answers. Claude Code must back off (the gateway's `retry-after` tells it
 * how long) and finish, and every request, main or background, must land on the model the tiers name.
 * Skipped, saying why, only when the CLI cannot be obtained.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { obtainClaudeCode, runClaudeCode } from "./claude_code_cli.ts";
import { startEgressTrap } from "./egress_trap.ts";
import { startFaultyGateway, startFaultyUpstream } from "./faulty.ts";
import { DEFAULT_RATE_LIMIT_RETRY_S } from "../../gateway/upstream/rate_limits.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const cli = await obtainClaudeCode();
if ("unavailable" in cli) console.warn(`claude_code_limits_test skipped: ${cli.unavailable}`);

function streamed(model: unknown, text: string): Response {
  const base = { id: "c", object: "chat.completion.chunk", model };
  const frames = [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { ...base, choices: [], usage: { prompt_tokens: 30, completion_tokens: 3, total_tokens: 33 } },
    "[DONE]",
  ].map((f) => `data: ${typeof f === "string" ? f : JSON.stringify(f)}\n\n`);
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}

Deno.test({
  name: "Claude Code backs off on upstream 429s and its dated ids land where the tiers say",
  ignore: "unavailable" in cli,
  ...e2e,
  fn: async () => {
    let limited = 0;
    const refusals: Array<{ at: number; body: unknown }> = [];
    const upstream = await startFaultyUpstream((r) => {
      if (r.body.model === "main-model" && limited < 2) {
        limited++;
        refusals.push({ at: r.at, body: r.body });
        return Response.json({ error: { message: "Rate limit reached", type: "requests" } }, {
          status: 429,
          headers: {
            "x-ratelimit-limit-requests": "3",
            "x-ratelimit-remaining-requests": "1",
            "x-ratelimit-reset-requests": "20s",
          },
        });
      }
      const text = r.body.model === "main-model" ? "Backed off and done." : "Title";
      if (r.body.stream === true) return streamed(r.body.model, text);
      return Response.json({
        id: "c",
        object: "chat.completion",
        model: r.body.model,
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: { prompt_tokens: 30, completion_tokens: 3, total_tokens: 33 },
      });
    });
    const gw = await startFaultyGateway(
      { UP_KEY: "claude-code-limits-key" },
      `providers:
  up: { type: openai-compatible, base_url: "${upstream.url}/v1", api_key_env: UP_KEY }
tiers: { opus: up/main-model, sonnet: up/main-model, haiku: up/small-model }
`,
    );
    const trap = startEgressTrap();
    const work = await Deno.makeTempDir({ prefix: "claude-code-limits-" });
    const cwd = join(work, "project");
    const home = join(work, "home");
    await Deno.mkdir(cwd);
    await Deno.mkdir(home);
    try {
      const run = await runClaudeCode({
        wrapper: "wrapper" in cli ? cli.wrapper : "",
        baseUrl: gw.url,
        apiKey: gw.key,
        model: "claude-sonnet-4-5-20250929",
        smallModel: "claude-3-5-haiku-20241022",
        prompt: "Say hello.",
        cwd,
        home,
        proxyUrl: trap.url,
        timeoutMs: 120_000,
      });
      const detail = `exit ${run.code}\n${run.stdout.slice(-1_500)}\n${run.stderr.slice(-1_500)}`;
      assert.equal(run.code, 0, detail);
      assert.equal(run.result?.result, "Backed off and done.", detail);
      const calls = upstream.requests.filter((r) => r.path.endsWith("/chat/completions"));
      const main = calls.filter((r) => r.body.model === "main-model");
      assert.ok(main.length >= 3, `two 429s, then an answer (${main.length} main calls)`);
      // Claude Code waited what the gateway's retry-after said (the upstream gave none) before retrying each
      // limited request (a retry is the same body again; other requests may run alongside).
      let retried = 0;
      for (const refused of refusals) {
        const body = JSON.stringify(refused.body);
        const retry = main.find((r) => r.at > refused.at && JSON.stringify(r.body) === body);
        if (!retry) continue;
        retried++;
        const gap = retry.at - refused.at;
        assert.ok(gap >= DEFAULT_RATE_LIMIT_RETRY_S * 1000 * 0.9, `the retry came after ${gap} ms`);
      }
      assert.ok(retried >= 1, "a limited request was retried");
      assert.deepEqual(
        [...new Set(calls.map((r) => r.body.model))].filter((m) => m !== "main-model" && m !== "small-model"),
        [],
        "every request landed on a model the tiers name",
      );
      const lines = gw.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
      const limitedLines = lines.filter((l) => l.status === 429);
      assert.equal(limitedLines.length, 2, "Claude Code saw the two 429s and retried each");
      assert.deepEqual(trap.attempts, [], "nothing tried to leave loopback");
    } finally {
      await Deno.remove(work, { recursive: true }).catch(() => {});
      await trap.close();
      await gw.close();
      await upstream.close();
    }
  },
});
