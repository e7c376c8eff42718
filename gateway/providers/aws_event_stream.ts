/**
 * Decoder of AWS's binary `application/vnd.amazon.eventstream` framing (Bedrock's streamed responses):
 * each message is `total length (u32) | headers length (u32) | prelude CRC32 | headers | payload |
 * message CRC32`, big-endian, CRCs over the bytes before them. Push-based like lib/sse.ts's decoder, so
 * the one stream pipeline (messages/stream_pipe.ts) can feed it socket chunks split anywhere. A frame that
 * fails a CRC or a length check ends decoding with one `exception` event: bytes after a corrupt prelude
 * cannot be trusted to mark where the next message starts.
 */
import type { SseDecoder, SseEvent } from "@switchyard/lib/sse.ts";

/** A header value as the framing types it (timestamps as epoch milliseconds, byte arrays raw). */
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

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib computes it) of `bytes[start, end)`. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

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

/** Parses the header block; throws on a truncated or unknown-typed header. */
export function parseHeaders(bytes: Uint8Array): Record<string, EventStreamHeaderValue> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headers: Record<string, EventStreamHeaderValue> = {};
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new Error("a header runs past the header block");
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes[at++];
    need(nameLength + 1);
    const name = text(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = bytes[at++];
    let value: EventStreamHeaderValue;
    switch (type) {
      case 0:
      case 1:
        value = type === 0;
        break;
      case 2:
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
      case 8:
        need(8);
        value = type === 8 ? Number(view.getBigInt64(at)) : view.getBigInt64(at);
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(at);
        at += 2;
        need(length);
        const raw = bytes.subarray(at, at + length);
        value = type === 7 ? text(raw) : raw.slice();
        at += length;
        break;
      }
      case 9:
        need(16);
        value = bytes.slice(at, at + 16);
        at += 16;
        break;
      default:
        throw new Error(`header ${name} has unknown type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
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
      if (crc32(buffer, at, at + 8) !== view.getUint32(8)) return fail("prelude CRC mismatch");
      if (
        total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES || headersLength > total - MIN_MESSAGE_BYTES
      ) {
        return fail(`implausible message length ${total} (headers ${headersLength})`);
      }
      if (buffer.length - at < total) break;
      const end = at + total;
      const expected = new DataView(buffer.buffer, buffer.byteOffset + end - 4, 4).getUint32(0);
      if (crc32(buffer, at, end - 4) !== expected) return fail("message CRC mismatch");
      let headers: Record<string, EventStreamHeaderValue>;
      try {
        headers = parseHeaders(buffer.subarray(at + PRELUDE_BYTES, at + PRELUDE_BYTES + headersLength));
      } catch (error) {
        return fail((error as Error).message);
      }
      const payload = buffer.slice(at + PRELUDE_BYTES + headersLength, end - 4);
      at = end;
      onMessage({ headers, payload });
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
  const encoder = new TextEncoder();
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
