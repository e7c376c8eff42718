import assert from "node:assert/strict";
import {
  collectSseEvents,
  createSseDecoder,
  encodeSseComment,
  encodeSseEvent,
  encodeSseJson,
  sseDecoderStream,
  type SseEvent,
} from "./sse.ts";

Deno.test("encodeSseEvent writes event, id and multi-line data", () => {
  assert.equal(encodeSseEvent({ event: "ping", data: "{}" }), "event: ping\ndata: {}\n\n");
  assert.equal(encodeSseEvent({ data: "a\nb", id: "7" }), "id: 7\ndata: a\ndata: b\n\n");
  assert.throws(() => encodeSseEvent({ event: "a\nb", data: "" }), /single line/);
});

Deno.test("encoded events decode back to the same events", async () => {
  const events = [
    { event: "message_start", data: JSON.stringify({ a: "x\ny" }) },
    { data: "line1\nline2" },
    { event: "e", data: "", id: "3" },
  ];
  const body = events.map(encodeSseEvent).join("") + encodeSseComment("keep-alive");
  assert.deepEqual(await collectSseEvents(body), events);
});

Deno.test("encodeSseJson produces one frame of JSON", async () => {
  const bytes = encodeSseJson("content_block_delta", { delta: { text: "hé" } });
  const [event] = await collectSseEvents(new TextDecoder().decode(bytes));
  assert.deepEqual(event, { event: "content_block_delta", data: '{"delta":{"text":"hé"}}' });
});

Deno.test("the decoder handles CRLF framing and frames split at every byte", async () => {
  const text = 'event: a\r\ndata: {"x":"é"}\r\n\r\n: comment\r\n\r\nevent: b\r\ndata: 2\r\n\r\n';
  const bytes = new TextEncoder().encode(text);
  const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
  const events = [];
  for await (const event of ReadableStream.from(chunks).pipeThrough(sseDecoderStream())) events.push(event);
  assert.deepEqual(events, [{ event: "a", data: '{"x":"é"}' }, { event: "b", data: "2" }]);
});

Deno.test("an unterminated final frame is dropped", async () => {
  assert.deepEqual(await collectSseEvents("data: 1\n\ndata: 2"), [{ data: "1" }]);
});

Deno.test("the push decoder yields the same events as the stream decoder across split chunks", async () => {
  const body = 'event: a\r\ndata: {"x":"é"}\r\n\r\n: comment\n\ndata: two\ndata: lines\n\n';
  const bytes = new TextEncoder().encode(body);
  const pushed: SseEvent[] = [];
  const decoder = createSseDecoder((event) => pushed.push(event));
  for (let i = 0; i < bytes.length; i += 3) decoder.feed(bytes.slice(i, i + 3));
  decoder.end();
  assert.deepEqual(pushed, await collectSseEvents(body));
  assert.equal(pushed.length, 2);
});
