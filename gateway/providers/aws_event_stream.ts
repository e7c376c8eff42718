/**
 * Decoder of AWS's binary `application/vnd.amazon.eventstream` framing (Bedrock's streamed responses):
 * each message is `total length (u32) | headers length (u32) | prelude CRC32 | headers | payload |
 * message CRC32`, big-endian, CRCs over the bytes before them. The message codec (CRCs, header types) is
 * `@smithy/eventstream-codec`, the AWS SDK's own; this module adds what the SDK's async-iterator splitter
 * does not offer: push-based framing like lib/sse.ts's decoder, so the one stream pipeline
 * (messages/stream_pipe.ts) can feed it socket chunks split anywhere, with the prelude checked as soon as it
 * arrives and a bound on message size. A frame that fails a CRC or a length check ends decoding with one
 * `exception` event: bytes after a corrupt prelude cannot be trusted to mark where the next message starts.
 */
import { crc32 } from "node:zlib";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import type { SseDecoder, SseEvent } from "@switchyard/lib/sse.ts";

/** A header value as the framing types it (timestamps as epoch milliseconds, byte arrays raw, UUIDs as text). */
export type EventStreamHeaderValue = boolean | number | bigint | string | Uint8Array;

/** One decoded message. */
export interface EventStreamMessage {
  /** Headers by name (`:event-type`, `:message-type`, `:exception-type`, `:content-type`, ...). */
  headers: Record<string, EventStreamHeaderValue>;
  /** The payload bytes. */
  payload: Uint8Array;
}

/** Largest message accepted; Bedrock's are a few KiB, and a corrupt length must not make us buffer GiBs. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const PRELUDE_BYTES = 12;
const EMPTY = new Uint8Array(0);
const MIN_MESSAGE_BYTES = 16;

const utf8 = new TextDecoder("utf-8", { fatal: false });
const encoder = new TextEncoder();

/** Decodes a header name or value: short ASCII (every name, most values) without a TextDecoder call. */
function text(bytes: Uint8Array): string {
  if (bytes.length > 64) return utf8.decode(bytes);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] > 0x7f) return utf8.decode(bytes);
    out += String.fromCharCode(bytes[i]);
  }
  return out;
}

const codec = new EventStreamCodec(text, (value) => encoder.encode(value));

type CodecHeaders = ReturnType<EventStreamCodec["decode"]>["headers"];

/** The codec's typed header values as plain values. */
function plainHeaders(headers: CodecHeaders): Record<string, EventStreamHeaderValue> {
  const out: Record<string, EventStreamHeaderValue> = {};
  for (const [name, header] of Object.entries(headers)) {
    switch (header.type) {
      case "long":
        out[name] = BigInt(header.value.toString());
        break;
      case "timestamp":
        out[name] = header.value.getTime();
        break;
      case "binary":
        out[name] = header.value.slice();
        break;
      default:
        out[name] = header.value;
    }
  }
  return out;
}

/** A push decoder of event-stream messages; `onError` is told once, after which input is ignored. */
export function createEventStreamDecoder(
  onMessage: (message: EventStreamMessage) => void,
  onError: (reason: string) => void,
): { feed(chunk: Uint8Array): void; end(): void } {
  let buffer: Uint8Array = EMPTY;
  let failed = false;
  const fail = (reason: string) => {
    failed = true;
    buffer = EMPTY;
    onError(reason);
  };
  const drain = () => {
    let at = 0;
    while (!failed && buffer.length - at >= PRELUDE_BYTES) {
      const view = new DataView(buffer.buffer, buffer.byteOffset + at, PRELUDE_BYTES);
      const total = view.getUint32(0);
      const headersLength = view.getUint32(4);
      // Checked before waiting for `total` bytes: a corrupt length must not make us buffer.
      if (crc32(buffer.subarray(at, at + 8)) !== view.getUint32(8)) return fail("prelude CRC mismatch");
      if (
        total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES || headersLength > total - MIN_MESSAGE_BYTES
      ) {
        return fail(`implausible message length ${total} (headers ${headersLength})`);
      }
      if (buffer.length - at < total) break;
      let message: EventStreamMessage;
      try {
        const decoded = codec.decode(buffer.subarray(at, at + total));
        message = { headers: plainHeaders(decoded.headers), payload: decoded.body.slice() };
      } catch (error) {
        const reason = (error as Error).message;
        return fail(/checksum/i.test(reason) ? "message CRC mismatch" : `unreadable headers: ${reason}`);
      }
      at += total;
      onMessage(message);
    }
    if (at > 0 && !failed) buffer = at === buffer.length ? EMPTY : buffer.slice(at);
  };
  return {
    feed(chunk) {
      if (failed || chunk.length === 0) return;
      // Whole messages are decoded straight from the caller's chunk; only an unfinished tail is copied.
      if (buffer.length === 0) buffer = chunk;
      else {
        const joined = new Uint8Array(buffer.length + chunk.length);
        joined.set(buffer);
        joined.set(chunk, buffer.length);
        buffer = joined;
      }
      drain();
      if (buffer === chunk) buffer = chunk.slice();
    },
    end() {
      if (!failed && buffer.length > 0) {
        fail(`the stream ended inside a message (${buffer.length} bytes left)`);
      }
    },
  };
}

/** Name of the event an event-stream exception (or a framing failure) becomes. */
export const EXCEPTION_EVENT = "exception";

/** What an `exception` event's data carries. */
export interface EventStreamException {
  /** `:exception-type` (`throttlingException`, ...), `framingError` for a corrupt stream. */
  exceptionType: string;
  /** The exception's message, when it had one. */
  message: string;
}

/**
 * An {@link SseDecoder} over event-stream bytes for messages/stream_pipe.ts: an `event` message becomes an
 * SSE event named by its `:event-type` with the payload as data; an `exception` or `error` message, and a
 * framing failure, become one {@link EXCEPTION_EVENT} carrying an {@link EventStreamException}.
 */
export function eventStreamSseDecoder(onEvent: (event: SseEvent) => void): SseDecoder {
  const exception = (exceptionType: string, message: string) =>
    onEvent({ event: EXCEPTION_EVENT, data: JSON.stringify({ exceptionType, message }) });
  const decoder = createEventStreamDecoder((message) => {
    const kind = message.headers[":message-type"];
    const payload = utf8.decode(message.payload);
    if (kind === "event") {
      onEvent({ event: String(message.headers[":event-type"] ?? "message"), data: payload });
    } else if (kind === "exception") {
      exception(String(message.headers[":exception-type"] ?? "exception"), messageOf(payload));
    } else if (kind === "error") {
      exception(
        String(message.headers[":error-code"] ?? "error"),
        String(message.headers[":error-message"] ?? ""),
      );
    }
  }, (reason) => exception("framingError", reason));
  return {
    feed: (chunk) => decoder.feed(typeof chunk === "string" ? encoder.encode(chunk) : chunk),
    end: () => decoder.end(),
  };
}

function messageOf(payload: string): string {
  try {
    const value = JSON.parse(payload) as { message?: unknown; Message?: unknown };
    const message = value.message ?? value.Message;
    return typeof message === "string" ? message : "";
  } catch {
    return "";
  }
}
