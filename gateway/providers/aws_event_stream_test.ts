import assert from "node:assert/strict";
import { crc32 as zlibCrc32 } from "node:zlib";
import type { SseEvent } from "@switchyard/lib/sse.ts";
import {
  encodeEventStreamMessage,
  eventMessage,
  exceptionMessage,
} from "../../tests/gateway/upstreams/event_stream_body.ts";
import {
  crc32,
  createEventStreamDecoder,
  type EventStreamMessage,
  eventStreamSseDecoder,
} from "./aws_event_stream.ts";

const encoder = new TextEncoder();

function decodeAll(chunks: Uint8Array[]): { messages: EventStreamMessage[]; errors: string[] } {
  const messages: EventStreamMessage[] = [];
  const errors: string[] = [];
  const decoder = createEventStreamDecoder((m) => messages.push(m), (e) => errors.push(e));
  for (const chunk of chunks) decoder.feed(chunk);
  decoder.end();
  return { messages, errors };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

Deno.test("crc32 matches zlib and the standard check value", () => {
  assert.equal(crc32(encoder.encode("123456789")), 0xcbf43926);
  const bytes = crypto.getRandomValues(new Uint8Array(1000));
  assert.equal(crc32(bytes), zlibCrc32(bytes));
});

Deno.test("the decoder reads messages split at every byte boundary", () => {
  const body = concat([eventMessage("chunk", { a: 1 }), eventMessage("chunk", { b: "é" })]);
  for (let size = 1; size <= 17; size++) {
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < body.length; at += size) chunks.push(body.slice(at, at + size));
    const { messages, errors } = decodeAll(chunks);
    assert.deepEqual(errors, []);
    assert.deepEqual(messages.map((m) => JSON.parse(new TextDecoder().decode(m.payload))), [{ a: 1 }, {
      b: "é",
    }]);
    assert.equal(messages[0].headers[":event-type"], "chunk");
    assert.equal(messages[0].headers[":message-type"], "event");
  }
});

Deno.test("a flipped payload byte fails the message CRC and stops decoding", () => {
  const first = eventMessage("chunk", { a: 1 });
  const second = eventMessage("chunk", { b: 2 });
  second[second.length - 6] ^= 0x01;
  const { messages, errors } = decodeAll([first, second, eventMessage("chunk", { c: 3 })]);
  assert.equal(messages.length, 1);
  assert.deepEqual(errors, ["message CRC mismatch"]);
});

Deno.test("a flipped length byte fails the prelude CRC before any buffering", () => {
  const message = eventMessage("chunk", { a: 1 });
  message[2] ^= 0x40;
  const { messages, errors } = decodeAll([message]);
  assert.equal(messages.length, 0);
  assert.deepEqual(errors, ["prelude CRC mismatch"]);
});

Deno.test("a body that ends inside a message is reported as truncated", () => {
  const message = eventMessage("chunk", { a: 1 });
  const { errors } = decodeAll([message.slice(0, message.length - 3)]);
  assert.match(errors[0], /ended inside a message/);
});

Deno.test("the SSE adapter names events by type and turns exceptions into one exception event", () => {
  const events: SseEvent[] = [];
  const decoder = eventStreamSseDecoder((e) => events.push(e));
  decoder.feed(concat([
    eventMessage("messageStart", { role: "assistant" }),
    exceptionMessage("throttlingException", "Too many requests"),
    encodeEventStreamMessage({ ":message-type": "event", ":event-type": "metadata" }, encoder.encode("{}")),
  ]));
  decoder.end();
  assert.deepEqual(events, [
    { event: "messageStart", data: '{"role":"assistant"}' },
    { event: "exception", data: '{"exceptionType":"throttlingException","message":"Too many requests"}' },
    { event: "metadata", data: "{}" },
  ]);
});
