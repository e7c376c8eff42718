import assert from "node:assert/strict";
import { collectSseEvents } from "@switchyard/lib/sse.ts";
import { translateStream } from "./stream_pipe.ts";
import { usageOf } from "./types.ts";

Deno.test("a translator that throws on a malformed upstream event ends the stream with an error", async () => {
  const upstream = ReadableStream.from([new TextEncoder().encode("data: {\n\ndata: more\n\n")]);
  const body = translateStream(upstream, {
    onEvent: (event) => void JSON.parse(event.data),
    onEnd: (writer) => writer.finish("end_turn", usageOf({})),
  }, { abort: new AbortController(), pingIntervalMs: 10_000, begin: (w) => w.start("msg_1", "m", 1) });
  const events = await collectSseEvents(body);
  assert.deepEqual(events.map((e) => e.event), ["message_start", "error"]);
});

Deno.test("cancelling the client body aborts the upstream and stops reading it", async () => {
  let upstreamCancelled = false;
  const upstream = new ReadableStream<Uint8Array>({
    pull: () => new Promise(() => {}),
    cancel: () => void (upstreamCancelled = true),
  });
  const abort = new AbortController();
  const body = translateStream(upstream, { onEvent: () => {}, onEnd: () => {} }, {
    abort,
    pingIntervalMs: 10_000,
    begin: (w) => w.start("msg_1", "m", 1),
  });
  const reader = body.getReader();
  await reader.read();
  await reader.cancel();
  assert.equal(abort.signal.aborted, true);
  assert.equal(upstreamCancelled, true);
});

Deno.test("the upstream is read as soon as the stream starts, before the client asks for more", async () => {
  let pulls = 0;
  const upstream = new ReadableStream<Uint8Array>({ pull: () => void pulls++ }, { highWaterMark: 0 });
  const body = translateStream(upstream, { onEvent: () => {}, onEnd: () => {} }, {
    abort: new AbortController(),
    pingIntervalMs: 10_000,
    begin: (w) => w.start("msg_1", "m", 1),
  });
  await Promise.resolve();
  assert.equal(pulls, 1, "the first upstream read is already under way");
  await body.cancel();
});

Deno.test("an upstream failing before the client read anything ends in an error event, unhandled-free", async () => {
  const upstream = new ReadableStream<Uint8Array>({ start: (c) => c.error(new Error("reset")) });
  const body = translateStream(upstream, { onEvent: () => {}, onEnd: () => {} }, {
    abort: new AbortController(),
    pingIntervalMs: 10_000,
    begin: (w) => w.start("msg_1", "m", 1),
  });
  await new Promise((resolve) => setTimeout(resolve, 10)); // the early read has failed by now
  const events = await collectSseEvents(body);
  assert.deepEqual(events.map((e) => e.event), ["message_start", "error"]);
});
