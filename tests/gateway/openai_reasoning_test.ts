/**
 * Reasoning carried across turns through the Responses endpoint without stored state: a Claude answer's
 * thinking block reaches the client as a `reasoning` item (its text as the summary, its signature as
 * `encrypted_content`), whole and streamed; sent back among the next request's input items it reaches the
 * upstream again as the same signed thinking block, ahead of the turn's text. `reasoning.effort` asks for a
 * thinking budget; Chat Completions clients get the thinking as `reasoning_content`.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startFaultyGateway } from "./faulty.ts";
import { startAnthropicMock } from "./upstreams/anthropic_mock.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };

const thinkingAnswer = (model: string): Array<[string, Record<string, unknown>]> =>
  [
    {
      type: "message_start",
      message: {
        id: "msg_think",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 20, output_tokens: 1 },
      },
    },
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "Plan the answer." },
    },
    {
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "c2lnLWFudGhyb3BpYw==" },
    },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Done." } },
    { type: "content_block_stop", index: 1 },
    {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 30 },
    },
    { type: "message_stop" },
  ].map((event) => [String(event.type), event]);

Deno.test("reasoning survives across Responses turns with nothing stored", e2e, async (t) => {
  const anthropic = await startAnthropicMock(
    { "claude-think": { events: thinkingAnswer("claude-think") } },
    "sk-ant-think",
  );
  const gateway = await startFaultyGateway({
    ANTHROPIC_API_KEY: "sk-ant-think",
    ANTHROPIC_BASE_URL: anthropic.url,
  });
  const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/openai/v1`, maxRetries: 0 });
  try {
    for (const stream of [false, true]) {
      await t.step(stream ? "streamed" : "whole", async () => {
        const ask = {
          model: "claude-think",
          input: "Solve it.",
          reasoning: { effort: "medium" as const },
          store: false,
        };
        const first = stream
          ? await client.responses.stream(ask).finalResponse()
          : await client.responses.create(ask);
        const sent = anthropic.requests.at(-1)!.body;
        assert.deepEqual(sent.thinking, { type: "enabled", budget_tokens: 4096 });
        assert.ok(Number(sent.max_tokens) > 4096);
        assert.deepEqual(first.output.map((item) => item.type), ["reasoning", "message"]);
        const reasoning = first.output[0];
        assert.ok(reasoning.type === "reasoning");
        assert.equal(reasoning.encrypted_content, "c2lnLWFudGhyb3BpYw==");
        assert.deepEqual(reasoning.summary, [{ type: "summary_text", text: "Plan the answer." }]);
        assert.equal(first.output_text, "Done.");
        assert.ok((first.usage?.output_tokens_details?.reasoning_tokens ?? 0) > 0);

        await client.responses.create({
          ...ask,
          input: [
            { role: "user", content: "Solve it." },
            ...(first.output as OpenAI.Responses.ResponseInputItem[]),
            { role: "user", content: "And again." },
          ],
        });
        const next = anthropic.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
        assert.deepEqual(next[1], {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Plan the answer.", signature: "c2lnLWFudGhyb3BpYw==" },
            { type: "text", text: "Done." },
          ],
        });
      });
    }
    await t.step("chat completions clients get the thinking as reasoning_content", async () => {
      const answer = await client.chat.completions.create({
        model: "claude-think",
        messages: [{ role: "user", content: "Solve it." }],
        reasoning_effort: "high",
      });
      const message = answer.choices[0].message as unknown as Record<string, unknown>;
      assert.equal(message.reasoning_content, "Plan the answer.");
      assert.equal(message.content, "Done.");
      assert.deepEqual(anthropic.requests.at(-1)!.body.thinking, { type: "enabled", budget_tokens: 16_384 });
    });
  } finally {
    await gateway.close();
    await anthropic.close();
  }
});
