/**
 * Server-sent events: encoding frames for responses, and decoding a byte stream of frames into events.
 * Decoding uses `eventsource-parser` (spec-complete: CR, LF and CRLF line ends, comments, multi-line data,
 * a BOM, frames split anywhere across chunks) so no service hand-rolls SSE framing.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One SSE event. */
export interface SseEvent {
  /** The `event:` field; absent means the default `message` type. */
  event?: string;
  /** The `data:` payload (lines joined with `\n`). */
  data: string;
  /** The `id:` field. */
  id?: string;
}

const encoder = new TextEncoder();

/** Encodes one event as an SSE frame (ending in a blank line). Multi-line data becomes several `data:` lines. */
export function encodeSseEvent(event: SseEvent): string {
  let frame = "";
  if (event.event !== undefined) frame += `event: ${assertSingleLine(event.event, "event")}\n`;
  if (event.id !== undefined) frame += `id: ${assertSingleLine(event.id, "id")}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) frame += `data: ${line}\n`;
  return frame + "\n";
}

/** Encodes one event whose data is `value` as JSON, as UTF-8 bytes. */
export function encodeSseJson(event: string, value: unknown): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(value)}\n\n`);
}

/** An SSE comment frame, used as a keep-alive that parsers ignore. */
export function encodeSseComment(text = ""): string {
  return `: ${text.replace(/\r\n|\r|\n/g, " ")}\n\n`;
}

function assertSingleLine(value: string, field: string): string {
  if (/[\r\n]/.test(value)) {
    throw new TypeError(`SSE ${field} must be a single line, got ${JSON.stringify(value)}`);
  }
  return value;
}

function toSseEvent(message: EventSourceMessage): SseEvent {
  const event: SseEvent = { data: message.data };
  if (message.event !== undefined) event.event = message.event;
  if (message.id !== undefined) event.id = message.id;
  return event;
}

/** A TransformStream from bytes (or text) to decoded {@link SseEvent}s. */
export function sseDecoderStream(): TransformStream<Uint8Array | string, SseEvent> {
  const decoder = new TextDecoder();
  let parser: ReturnType<typeof createParser>;
  return new TransformStream<Uint8Array | string, SseEvent>({
    start(controller) {
      parser = createParser({ onEvent: (message) => controller.enqueue(toSseEvent(message)) });
    },
    transform(chunk) {
      parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    },
    flush() {
      const rest = decoder.decode();
      if (rest) parser.feed(rest);
      // A final frame without its blank line is incomplete per the SSE spec and is dropped, as browsers do.
    },
  });
}

/** A push-style decoder: feed it chunks, it calls `onEvent` synchronously for each complete event. */
export interface SseDecoder {
  /** Feeds bytes (decoded as streaming UTF-8) or text. */
  feed(chunk: Uint8Array | string): void;
  /** Flushes the UTF-8 decoder at the end of the body. */
  end(): void;
}

/**
 * Creates a push-style decoder (same parser as {@link sseDecoderStream}) for hot paths that read a body
 * themselves and want no extra stream stage between the socket and their handler.
 */
export function createSseDecoder(onEvent: (event: SseEvent) => void): SseDecoder {
  const decoder = new TextDecoder();
  const parser = createParser({ onEvent: (message) => onEvent(toSseEvent(message)) });
  return {
    feed(chunk) {
      parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    },
    end() {
      const rest = decoder.decode();
      if (rest) parser.feed(rest);
    },
  };
}

/** Decodes a whole SSE body (for tests and small payloads). */
export async function collectSseEvents(body: ReadableStream<Uint8Array> | string): Promise<SseEvent[]> {
  const source = typeof body === "string" ? ReadableStream.from([body]) : body;
  const events: SseEvent[] = [];
  for await (const event of source.pipeThrough(sseDecoderStream())) events.push(event);
  return events;
}
