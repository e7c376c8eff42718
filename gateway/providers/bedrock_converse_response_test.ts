import assert from "node:assert/strict";
import { AnthropicEventWriter } from "../messages/stream_writer.ts";
import { ConverseStreamTranslator, messageFromConverse } from "./bedrock_converse_response.ts";

Deno.test("a whole Converse answer keeps reasoning, tool calls, stop sequence and cache usage", () => {
  const message = messageFromConverse({
    output: {
      message: {
        role: "assistant",
        content: [
          { reasoningContent: { reasoningText: { text: "hmm", signature: "c2ln" } } },
          { text: "Calling." },
          { toolUse: { toolUseId: "tu1", name: "t", input: { a: 1 } } },
        ],
      },
    },
    stopReason: "stop_sequence",
    additionalModelResponseFields: { stop_sequence: "END" },
    usage: { inputTokens: 7, outputTokens: 9, cacheReadInputTokens: 100, cacheWriteInputTokens: 4 },
  }, "bedrock/x");
  assert.deepEqual(message.content, [
    { type: "thinking", thinking: "hmm", signature: "gw-bedrock:c2ln" },
    { type: "text", text: "Calling." },
    { type: "tool_use", id: "tu1", name: "t", input: { a: 1 } },
  ]);
  assert.equal(message.stop_reason, "stop_sequence");
  assert.equal(message.stop_sequence, "END");
  assert.deepEqual(message.usage, {
    input_tokens: 7,
    output_tokens: 9,
    cache_read_input_tokens: 100,
    cache_creation_input_tokens: 4,
  });
  assert.equal(messageFromConverse({ stopReason: "guardrail_intervened" }, "m").stop_reason, "refusal");
});

function run(events: Array<[string, unknown]>): string {
  let out = "";
  const writer = new AnthropicEventWriter((frames) => (out += frames));
  const translator = new ConverseStreamTranslator("bedrock");
  for (const [event, data] of events) translator.onEvent({ event, data: JSON.stringify(data) }, writer);
  if (!writer.ended) translator.onEnd(writer);
  return out;
}

Deno.test("a ConverseStream without messageStop ends in an error, not a fake end_turn", () => {
  const out = run([["messageStart", { role: "assistant" }], ["contentBlockDelta", {
    delta: { text: "Hi" },
  }]]);
  assert.match(out, /event: error\n.*ended the stream before it was complete/);
  assert.ok(!out.includes("end_turn"));
});

Deno.test("a ConverseStream finishes on metadata with its usage, or at the end without it", () => {
  const done = run([
    ["contentBlockDelta", { delta: { reasoningContent: { text: "hmm" } } }],
    ["contentBlockDelta", { delta: { reasoningContent: { signature: "c2ln" } } }],
    ["contentBlockDelta", { delta: { text: "Hi" } }],
    ["messageStop", { stopReason: "max_tokens" }],
    ["metadata", { usage: { inputTokens: 3, outputTokens: 4 } }],
  ]);
  assert.match(done, /"signature_delta","signature":"gw-bedrock:c2ln"/);
  assert.match(done, /"stop_reason":"max_tokens".*"output_tokens":4/);
  const noMetadata = run([["contentBlockDelta", { delta: { text: "Hi" } }], ["messageStop", {
    stopReason: "end_turn",
  }]]);
  assert.match(noMetadata, /event: message_stop/);
});

Deno.test("a streamed Converse answer with cache reads and writes ends with Anthropic's split", () => {
  const out = run([
    ["contentBlockDelta", { delta: { text: "Cached." } }],
    ["messageStop", { stopReason: "end_turn" }],
    ["metadata", {
      usage: { inputTokens: 12, outputTokens: 3, cacheReadInputTokens: 2048, cacheWriteInputTokens: 512 },
    }],
  ]);
  const delta = out.split("\n\n").find((frame) => frame.startsWith("event: message_delta"))!;
  const usage = JSON.parse(delta.split("data: ")[1]).usage;
  assert.deepEqual(usage, {
    input_tokens: 12,
    output_tokens: 3,
    cache_read_input_tokens: 2048,
    cache_creation_input_tokens: 512,
  });
});
