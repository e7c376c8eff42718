/**
 * Fidelity: for every upstream fixture, the unchanged official SDK's streamed `finalMessage()` equals the
 * non-streamed translation of the same generation, and the raw stream passes the event-grammar checker.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { ANTHROPIC_FIXTURES, GEMINI_OK, OPENAI_OK, SPLIT_ESCAPE_ARGS } from "./fixtures.ts";
import { checkGrammar } from "./grammar.ts";
import { type Harness, rawPost, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 256, messages: [{ role: "user" as const, content: "Hi" }] };

/**
 * Drops what legitimately differs between two calls: the generated id, and `parsed_output`, which the SDK's
 * stream helper adds on its own (structured-output parsing) and `create()` does not, and generated tool ids.
 */
function comparable(message: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(message));
  delete copy.id;
  delete copy.parsed_output;
  // Ids the gateway had to generate (Gemini gives calls none) differ per call by design.
  for (const block of copy.content) {
    if (block.type === "tool_use") block.id = block.id.replace(/^toolu_[0-9a-f]{24}/, "toolu_generated");
  }
  return copy;
}

async function checkFixture(h: Harness, client: Anthropic, model: string, translated: boolean) {
  const whole = await client.messages.create({ model, ...ask });
  const streamed = await client.messages.stream({ model, ...ask }).finalMessage();
  assert.deepEqual(comparable(streamed), comparable(whole), `${model}: streamed and whole differ`);
  assert.equal(whole.model, model, `${model}: the requested model name is echoed`);
  const raw = await rawPost(h, "/compat/v1/messages", { model, ...ask, stream: true });
  assert.equal(raw.status, 200);
  assert.match(raw.headers.get("content-type") ?? "", /^text\/event-stream/);
  const report = await checkGrammar(raw.text, { translated });
  assert.deepEqual(report.violations, [], `${model}: grammar violations`);
  assert.equal(report.ending, "message_stop");
  return whole;
}

Deno.test("streamed and whole translations agree for every fixture of every provider", e2e, async (t) => {
  const h = await startHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  try {
    for (const name of Object.keys(OPENAI_OK)) {
      await t.step(`openai ${name}`, async () => {
        await checkFixture(h, client, `openai/${name}`, true);
      });
    }
    for (const name of ["fx-text", "fx-parallel"]) {
      await t.step(`openai-compatible mistral ${name}`, async () => {
        await checkFixture(h, client, `mistral/${name}`, true);
      });
    }
    for (const name of Object.keys(GEMINI_OK)) {
      await t.step(`gemini ${name}`, async () => {
        await checkFixture(h, client, `gemini/${name}`, true);
      });
    }
    for (const name of ["claude-fx-tool"]) {
      await t.step(`anthropic pass-through ${name}`, async () => {
        assert.ok(ANTHROPIC_FIXTURES[name]);
        await checkFixture(h, client, name, false);
      });
    }
  } finally {
    await h.close();
  }
});

Deno.test("translations carry content, stop reasons and usage as Anthropic defines them", e2e, async (t) => {
  const h = await startHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  const run = (model: string) => client.messages.stream({ model, ...ask }).finalMessage();
  try {
    await t.step("text with cached prompt tokens subtracts the cache from input_tokens", async () => {
      const m = await run("openai/fx-text");
      assert.deepEqual(m.content, [{ type: "text", text: "Hello, world" }]);
      assert.equal(m.stop_reason, "end_turn");
      assert.equal(m.usage.input_tokens, 20);
      assert.equal(m.usage.cache_read_input_tokens, 100);
      assert.equal(m.usage.output_tokens, 5);
    });
    await t.step("tool arguments split mid-escape and mid-UTF-8 arrive exactly", async () => {
      const m = await run("openai/fx-split-escape");
      assert.equal(m.stop_reason, "tool_use");
      const block = m.content[0];
      assert.equal(block.type, "tool_use");
      assert.deepEqual(block.type === "tool_use" && block.input, JSON.parse(SPLIT_ESCAPE_ARGS.join("")));
      const raw = await rawPost(h, "/v1/messages", { model: "openai/fx-split-escape", ...ask, stream: true });
      const report = await checkGrammar(raw.text);
      const fragments = report.events
        .filter((e) => e.event === "content_block_delta")
        .map((e) => (e.data.delta as { partial_json: string }).partial_json);
      assert.equal(fragments.join(""), SPLIT_ESCAPE_ARGS.join(""));
    });
    await t.step("interleaved parallel calls become two contiguous, complete tool_use blocks", async () => {
      const m = await run("openai/fx-interleaved");
      assert.deepEqual(
        m.content.map((b) => b.type === "tool_use" ? [b.id, b.name, b.input] : b.type),
        [["call_i1", "get_weather", { city: "Oslo" }], ["call_i2", "get_time", { zone: "CET" }]],
      );
    });
    await t.step("reasoning becomes a thinking block before the text", async () => {
      const m = await run("openai/fx-reasoning");
      assert.deepEqual(m.content.map((b) => b.type), ["thinking", "text"]);
    });
    await t.step("content_filter and SAFETY map to refusal, length to max_tokens", async () => {
      assert.equal((await run("openai/fx-filtered")).stop_reason, "refusal");
      assert.equal((await run("gemini/gx-safety")).stop_reason, "refusal");
      assert.equal((await run("openai/fx-length")).stop_reason, "max_tokens");
    });
    await t.step("a Gemini function call stops with tool_use and keeps its thought signature", async () => {
      const m = await run("gemini/gx-call");
      assert.equal(m.stop_reason, "tool_use");
      const call = m.content.find((b) => b.type === "tool_use");
      assert.ok(call && call.type === "tool_use");
      assert.deepEqual(call.input, { city: "Zürich", days: 2 });
      assert.match(call.id, /__thought__c2lnLWdlbWluaS0z$/);
    });
    await t.step("Gemini thoughts count as output and cached tokens leave input", async () => {
      const m = await run("gemini/gx-thinking");
      assert.deepEqual(m.content[0], {
        type: "thinking",
        thinking: "Pondering deeply",
        signature: "gw-gemini:dGhvdWdodA==",
      });
      assert.equal(m.usage.output_tokens, 9);
      const text = await run("gemini/gx-text");
      assert.equal(text.usage.input_tokens, 12);
      assert.equal(text.usage.cache_read_input_tokens, 8);
    });
    await t.step(
      "message_start carries a positive input estimate and pings fill upstream silence",
      async () => {
        const raw = await rawPost(h, "/v1/messages", { model: "openai/fx-slow", ...ask, stream: true });
        const report = await checkGrammar(raw.text, { translated: true });
        assert.deepEqual(report.violations, []);
        assert.ok(report.events.some((e) => e.event === "ping"), "a ping while the upstream was silent");
        const late = await rawPost(h, "/v1/messages", {
          model: "openai/fx-slow-headers",
          ...ask,
          stream: true,
        });
        const lateReport = await checkGrammar(late.text, { translated: true });
        assert.deepEqual(lateReport.violations, []);
        assert.equal(lateReport.events[0].event, "ping", "pings start before the upstream even answers");
        assert.equal(lateReport.ending, "message_stop");
      },
    );
  } finally {
    await h.close();
  }
});
