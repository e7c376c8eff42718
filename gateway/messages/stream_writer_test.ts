import assert from "node:assert/strict";
import { collectSseEvents } from "@switchyard/lib/sse.ts";
import { AnthropicEventWriter } from "./stream_writer.ts";
import { usageOf } from "./types.ts";

async function events(write: (w: AnthropicEventWriter) => void) {
  let text = "";
  const writer = new AnthropicEventWriter((frames) => (text += frames));
  write(writer);
  return (await collectSseEvents(text)).map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
}

Deno.test("the writer opens and closes one block at a time with contiguous indices", async () => {
  const out = await events((w) => {
    w.start("msg_1", "m", 12);
    w.thinking("hmm");
    w.signature("sig");
    w.text("Hi");
    w.text(" there");
    w.toolStart("t1", "f");
    w.toolArgs('{"a":');
    w.toolArgs("1}");
    w.finish("tool_use", usageOf({ input_tokens: 3, output_tokens: 4 }));
  });
  assert.deepEqual(out.map((e) => e.event), [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  assert.deepEqual(out.filter((e) => e.event === "content_block_start").map((e) => e.data.index), [0, 1, 2]);
  assert.equal(out[0].data.message.usage.input_tokens, 12);
  assert.deepEqual(out.at(-2)!.data.delta, {
    stop_reason: "tool_use",
    stop_sequence: null,
    stop_details: null,
  });
});

Deno.test("a tool call without argument fragments streams an explicit empty object", async () => {
  const out = await events((w) => {
    w.start("msg_1", "m", 1);
    w.toolStart("t1", "noargs");
    w.finish("tool_use", usageOf({}));
  });
  const delta = out.find((e) => e.event === "content_block_delta")!;
  assert.deepEqual(delta.data.delta, { type: "input_json_delta", partial_json: "{}" });
});

Deno.test("truncated tool arguments end the stream with an error instead of a silent partial input", async () => {
  const out = await events((w) => {
    w.start("msg_1", "m", 1);
    w.toolStart("t1", "f");
    w.toolArgs('{"a": 1, "b": "unterm');
    w.finish("tool_use", usageOf({}));
    w.text("ignored after the end");
  });
  assert.equal(out.at(-1)!.event, "error");
  assert.equal(out.filter((e) => e.event === "message_delta").length, 0);
});
