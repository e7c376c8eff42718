import assert from "node:assert/strict";
import { crc32 as zlibCrc32 } from "node:zlib";
import type { SseEvent } from "@switchyard/lib/sse.ts";
import {
  encodeEventStreamMessage,
  eventMessage,
  exceptionMessage,
} from "../../tests/gateway/upstreams/event_stream_body.ts";
import {
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

/** A message with a raw header block (CRCs from node:zlib, independent of the decoder). */
function rawMessage(headerBytes: number[], payload: Uint8Array): Uint8Array {
  const total = 12 + headerBytes.length + payload.length + 4;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headerBytes.length);
  view.setUint32(8, zlibCrc32(out.subarray(0, 8)));
  out.set(headerBytes, 12);
  out.set(payload, 12 + headerBytes.length);
  view.setUint32(total - 4, zlibCrc32(out.subarray(0, total - 4)));
  return out;
}

const named = (
  name: string,
  type: number,
  value: number[],
) => [name.length, ...encoder.encode(name), type, ...value];

Deno.test("the decoder reads every header type as a plain value", () => {
  const uuid = Array.from({ length: 16 }, (_, i) => i);
  const headers = [
    ...named("t", 0, []),
    ...named("f", 1, []),
    ...named("b", 2, [0xff]),
    ...named("s", 3, [0x01, 0x00]),
    ...named("i", 4, [0x00, 0x01, 0x00, 0x00]),
    ...named("l", 5, [0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00]),
    ...named("bin", 6, [0x00, 0x02, 0xca, 0xfe]),
    ...named("str", 7, [0x00, 0x02, 0x68, 0x69]),
    ...named("ts", 8, [0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00]),
    ...named("id", 9, uuid),
  ];
  const { messages, errors } = decodeAll([rawMessage(headers, encoder.encode("x"))]);
  assert.deepEqual(errors, []);
  const h = messages[0].headers;
  assert.deepEqual([h.t, h.f, h.b, h.s, h.i, h.l], [true, false, -1, 256, 65536, 2n ** 33n]);
  assert.deepEqual(h.bin, new Uint8Array([0xca, 0xfe]));
  assert.equal(h.str, "hi");
  assert.equal(h.ts, 0x018bcfe56800);
  assert.equal(h.id, "00010203-0405-0607-0809-0a0b0c0d0e0f");
  assert.deepEqual(messages[0].payload, encoder.encode("x"));
});

Deno.test("a header of an unknown type or cut short ends decoding with a framing error, not a throw", () => {
  for (const headers of [named("x", 12, [0]), [5, 0x61]]) {
    const { messages, errors } = decodeAll([rawMessage(headers, encoder.encode("{}"))]);
    assert.equal(messages.length, 0);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /^unreadable headers: /);
  }
});

Deno.test("an implausible length is refused from the prelude alone, before any buffering", () => {
  const prelude = new Uint8Array(12);
  const view = new DataView(prelude.buffer);
  view.setUint32(0, 64 * 1024 * 1024);
  view.setUint32(4, 0);
  view.setUint32(8, zlibCrc32(prelude.subarray(0, 8)));
  const { errors } = decodeAll([prelude]);
  assert.deepEqual(errors, ["implausible message length 67108864 (headers 0)"]);
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
