/**
 * Cached answers end to end, per provider family, whole and streamed: the upstream's cache accounting
 * (OpenAI `prompt_tokens_details.cached_tokens` inside `prompt_tokens`; Gemini `cachedContentTokenCount`
 * inside `promptTokenCount`; Anthropic's own fields) reaches the client in Anthropic's convention —
 * `cache_read_input_tokens` / `cache_creation_input_tokens` beside, never inside, `input_tokens` — and the
 * ledger row carries the same split and its price. Bedrock and Vertex lanes: cloud_providers_test.ts; the
 * Responses lane: responses_test.ts. Also: `cache_control` becomes OpenAI's `prompt_cache_key`.
 */
import assert from "node:assert/strict";
import { ANTHROPIC_FIXTURES } from "./fixtures.ts";
import { type Harness, rawPost, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

// A native answer that read 1,000 cached tokens and wrote 200 more to the cache (50 of them for an hour).
ANTHROPIC_FIXTURES["claude-fx-cached"] = {
  events: [
    ["message_start", {
      type: "message_start",
      message: {
        id: "msg_cached",
        type: "message",
        role: "assistant",
        model: "claude-fx-cached",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 50,
          output_tokens: 1,
          cache_creation_input_tokens: 200,
          cache_read_input_tokens: 1000,
          cache_creation: { ephemeral_5m_input_tokens: 150, ephemeral_1h_input_tokens: 50 },
        },
      },
    }],
    ["content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }],
    ["content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: "Done." },
    }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 7 },
    }],
    ["message_stop", { type: "message_stop" }],
  ],
};

const PRICES = `pricing:
  openai/fx-text: { input: 10, output: 20, cache_read: 1 }
  gemini/gx-text: { input: 10, output: 20, cache_read: 2.5 }
  anthropic/claude-fx-cached: { input: 10, output: 20, cache_read: 1, cache_write: 12.5, cache_write_1h: 20 }
`;

const SYSTEM = [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }];
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 64,
  system: SYSTEM,
  metadata: { user_id: "user_abc_session_1" },
  messages: [{ role: "user", content: "Hi" }],
  ...extra,
});

type Usage = Record<string, number>;

/** The usage a stream ends with: message_start's, updated by the final message_delta's. */
function streamedUsage(text: string): Usage {
  let usage: Usage = {};
  for (const frame of text.split("\n\n")) {
    const data = frame.split("\n").find((line) => line.startsWith("data: "));
    if (!data) continue;
    const event = JSON.parse(data.slice(6));
    if (event.type === "message_start") usage = { ...event.message.usage };
    if (event.type === "message_delta") usage = { ...usage, ...event.usage };
  }
  return usage;
}

const pick = (
  u: Usage,
) => [u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.output_tokens];

async function both(h: Harness, model: string): Promise<{ whole: Usage; streamed: Usage }> {
  const whole = await rawPost(h, "/v1/messages", ask(model));
  assert.equal(whole.status, 200, whole.text);
  const stream = await rawPost(h, "/v1/messages", ask(model, { stream: true }));
  assert.equal(stream.status, 200, stream.text);
  return { whole: JSON.parse(whole.text).usage, streamed: streamedUsage(stream.text) };
}

Deno.test(
  "cached answers: usage in Anthropic's convention, whole and streamed, in the ledger and priced",
  e2e,
  async (t) => {
    const h = await startHarness({}, PRICES);
    try {
      await t.step("OpenAI: 120 prompt tokens of which 100 cached → input 20, cache read 100", async () => {
        const { whole, streamed } = await both(h, "openai/fx-text");
        assert.deepEqual(pick(whole), [20, 100, 0, 5]);
        assert.deepEqual(pick(streamed), [20, 100, 0, 5]);
      });
      await t.step("Gemini: 20 prompt tokens of which 8 cached → input 12, cache read 8", async () => {
        const { whole, streamed } = await both(h, "gemini/gx-text");
        assert.deepEqual(pick(whole), [12, 8, 0, 4]);
        assert.deepEqual(pick(streamed), [12, 8, 0, 4]);
      });
      await t.step("Anthropic: its own split passes through unchanged", async () => {
        const { whole, streamed } = await both(h, "anthropic/claude-fx-cached");
        assert.deepEqual(pick(whole), [50, 1000, 200, 7]);
        assert.deepEqual(pick(streamed), [50, 1000, 200, 7]);
      });
      await t.step(
        "the ledger keeps the split and prices cache reads and writes at their own rates",
        async () => {
          await h.ledger.flush();
          const rows = await h.db.selectFrom("gateway_usage")
            .select([
              "model",
              "stream",
              "input_tokens",
              "cache_read_tokens",
              "cache_write_tokens",
              "output_tokens",
              "cost_usd",
            ])
            .execute();
          const of = (model: string) => rows.filter((r) => r.model === model);
          const micro = (usd: number) => Math.round(usd * 1e6 * 1000) / 1000;
          for (const row of of("openai/fx-text")) {
            assert.deepEqual([
              row.input_tokens,
              row.cache_read_tokens,
              row.cache_write_tokens,
              row.output_tokens,
            ], [20, 100, 0, 5]);
            assert.equal(micro(row.cost_usd), 20 * 10 + 100 * 1 + 5 * 20);
          }
          for (const row of of("gemini/gx-text")) {
            assert.deepEqual([row.input_tokens, row.cache_read_tokens, row.output_tokens], [12, 8, 4]);
            assert.equal(micro(row.cost_usd), 12 * 10 + 8 * 2.5 + 4 * 20);
          }
          for (const row of of("anthropic/claude-fx-cached")) {
            assert.deepEqual([
              row.input_tokens,
              row.cache_read_tokens,
              row.cache_write_tokens,
              row.output_tokens,
            ], [50, 1000, 200, 7]);
            // 150 written for 5 minutes, 50 for an hour, each at its own rate.
            assert.equal(micro(row.cost_usd), 50 * 10 + 1000 * 1 + 150 * 12.5 + 50 * 20 + 7 * 20);
          }
          assert.equal(rows.length, 6, "one row per request");
          for (const model of ["openai/fx-text", "gemini/gx-text", "anthropic/claude-fx-cached"]) {
            assert.deepEqual(of(model).map((r) => r.stream).sort(), [0, 1], model);
          }
        },
      );
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "cache_control becomes a stable prompt_cache_key on OpenAI, and nothing on compatible hosts",
  e2e,
  async () => {
    const h = await startHarness();
    try {
      const keyOf = async (body: Record<string, unknown>, upstream = h.openai) => {
        const answer = await rawPost(h, "/v1/messages", body);
        assert.equal(answer.status, 200, answer.text);
        return upstream.requests.at(-1)!.body.prompt_cache_key;
      };
      const first = await keyOf(ask("openai/fx-text"));
      assert.match(String(first), /^sy-[0-9a-f]{32}$/);
      const nextTurn = ask("openai/fx-text", {
        messages: [{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello" }, {
          role: "user",
          content: "More",
        }],
      });
      assert.equal(await keyOf(nextTurn), first, "the next turn of the conversation keeps the key");
      assert.notEqual(await keyOf(ask("openai/fx-text", { metadata: { user_id: "user_other" } })), first);
      assert.notEqual(
        await keyOf(ask("openai/fx-text", { system: [{ ...SYSTEM[0], text: "Other." }] })),
        first,
      );
      assert.equal(await keyOf(ask("openai/fx-text", { system: "You are Claude Code." })), undefined);
      assert.equal(await keyOf(ask("mistral/fx-text"), h.compat), undefined);
    } finally {
      await h.close();
    }
  },
);
