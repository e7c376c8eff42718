/**
 * The one streaming pipeline every provider uses: upstream bytes → SSE events (lib/sse.ts push decoder) →
 * a provider's translator → Anthropic frames, enqueued for the client as soon as each upstream chunk is
 * translated (pull-driven, so a slow client applies backpressure to the upstream read). Adds `ping`
 * keep-alives while the upstream is silent, turns a broken upstream into `event: error`, and aborts the
 * upstream request when the client goes away.
 */
import { createSseDecoder, type SseDecoder, type SseEvent } from "@switchyard/lib/sse.ts";
import { GatewayError } from "../errors.ts";
import { AnthropicEventWriter } from "./stream_writer.ts";
import { checkPeriod, tickerFor } from "../upstream/ticker.ts";
import type { BodyReader } from "../upstream/response.ts";
import type { Usage } from "./types.ts";

/** Translates one provider's upstream events into writer calls. */
export interface StreamTranslator {
  /** Handles one upstream SSE event. */
  onEvent(event: SseEvent, writer: AnthropicEventWriter): void;
  /** The upstream body ended cleanly; must `finish` or `error` the writer if it has not ended. */
  onEnd(writer: AnthropicEventWriter): void;
}

/** Options of {@link translateStream}. */
export interface TranslateStreamOptions {
  /** Aborts the upstream request (called when the client disconnects). */
  abort: AbortController;
  /** Milliseconds of upstream silence before a `ping` is sent. */
  pingIntervalMs: number;
  /** Called before the first upstream event with the writer, to write `message_start`. */
  begin(writer: AnthropicEventWriter): void;
  /** Cleans `event: error` messages of secrets (they may quote upstream text). */
  redact?: (text: string) => string;
  /** Told once how the stream ended (for the access log). */
  report?: (outcome: StreamOutcome) => void;
  /**
   * Decodes the upstream body into events; SSE when absent. Bedrock's binary event-stream framing plugs in
   * here, so its translators share this pipeline (pings, backpressure, errors) instead of repeating it.
   */
  decoder?: (onEvent: (event: SseEvent) => void) => SseDecoder;
}

/** How a stream ended: its final event, or the client leaving first. */
export interface StreamOutcome {
  /** `completed` (message_stop), `upstream_error` (event: error) or `client_disconnected`. */
  outcome: "completed" | "upstream_error" | "client_disconnected";
  /** The `event: error` type, for `upstream_error`. */
  errorType?: string;
  /** The tokens used, as far as the stream told (see AnthropicEventWriter.usage). */
  usage?: Usage;
}

const encoder = new TextEncoder();

/** Most bytes read after the final event to let the upstream connection be reused. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/** Longest wait for the upstream body's end after the final event. */
const DRAIN_LIMIT_MS = 2_000;

/**
 * Reads what is left of an upstream body after its final event (typically nothing but the end of the
 * chunked body) so the HTTP client returns the connection to its pool instead of closing it: cancelling a
 * body that has not ended costs the next streaming request a new TCP connection. Gives up (cancels) past
 * a small size or time bound.
 */
async function drain(reader: BodyReader): Promise<void> {
  let bytes = 0;
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), DRAIN_LIMIT_MS);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      bytes += value.length;
      if (bytes > DRAIN_LIMIT_BYTES) return void reader.cancel().catch(() => {});
    }
  } catch {
    // The upstream went away; nothing to reuse.
  } finally {
    clearTimeout(deadline);
  }
}

/** Returns the client-facing body for an upstream SSE response. */
export function translateStream(
  upstream: ReadableStream<Uint8Array> | BodyReader,
  translator: StreamTranslator,
  options: TranslateStreamOptions,
): ReadableStream<Uint8Array> {
  let pending = "";
  const writer = new AnthropicEventWriter((frames) => {
    pending += frames;
  }, options.redact);
  const decoder = (options.decoder ?? createSseDecoder)((event) => {
    if (writer.ended) return;
    try {
      translator.onEvent(event, writer);
    } catch {
      // A translator choking on a malformed upstream event must still end the stream properly.
      writer.error("api_error", "the upstream sent a malformed event");
    }
  });
  const reader = upstream instanceof ReadableStream ? upstream.getReader() : upstream;
  let untick: (() => void) | undefined;
  let closed = false;
  let lastActivity = 0;
  let firstRead: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  // `message_start` (written by `begin`) waits to travel in one write with the first translated output:
  // the client's first token then arrives one server write sooner. A ping flushes it in a silence.
  let holdHead = true;
  let headLength = 0;
  const stop = (reuse = false) => {
    closed = true;
    untick?.();
    if (reuse) drain(reader);
    else reader.cancel().catch(() => {});
  };
  const take = (): Uint8Array | null => {
    if (pending === "") return null;
    const bytes = encoder.encode(pending);
    pending = "";
    return bytes;
  };
  return new ReadableStream<Uint8Array>({
    // Frames are handed over in `pull` (not enqueued in `start`): in Deno.serve the first byte then reaches
    // the client sooner. A plain stream, not `type: "bytes"`, which measured slower for small frames.
    start(controller) {
      // Start reading the upstream now, while the server sends the headers and message_start, so the first
      // upstream chunk is already in hand when the client's side asks for more.
      firstRead = reader.read();
      firstRead.catch(() => {}); // a failure is handled where it is awaited; never an unhandled rejection
      options.begin(writer);
      headLength = pending.length;
      // Date.now (a builtin) rather than performance.now (an op call): this runs for every upstream chunk.
      lastActivity = Date.now();
      untick = tickerFor(checkPeriod(options.pingIntervalMs)).add(() => {
        if (closed || Date.now() - lastActivity < options.pingIntervalMs) return;
        lastActivity = Date.now();
        writer.ping();
        holdHead = false;
        const bytes = take();
        if (bytes) controller.enqueue(bytes);
      });
    },
    async pull(controller) {
      if (!holdHead) {
        const queued = take();
        if (queued) return controller.enqueue(queued);
      }
      // Read until this upstream chunk produced output (or the stream ended), then hand it over at once.
      while (!closed) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          const read = firstRead ?? reader.read();
          firstRead = undefined;
          chunk = await read;
        } catch (error) {
          if (closed) return;
          if (error instanceof GatewayError) writer.error(error.type, error.message); // deadline, size cap
          else writer.error("api_error", "the upstream connection failed in the middle of the response");
          chunk = { done: true, value: undefined };
        }
        if (closed) return;
        lastActivity = Date.now();
        if (chunk.done) {
          decoder.end();
          if (!writer.ended) translator.onEnd(writer);
        } else decoder.feed(chunk.value);
        if (holdHead && !writer.ended && pending.length === headLength) continue; // only message_start so far
        holdHead = false;
        const bytes = take();
        if (bytes) controller.enqueue(bytes);
        if (writer.ended) {
          // Ended by the upstream's final event: drain its body so the connection can be reused.
          stop(!chunk.done);
          controller.close();
          options.report?.(
            writer.errorType
              ? { outcome: "upstream_error", errorType: writer.errorType, usage: writer.usage }
              : { outcome: "completed", usage: writer.usage },
          );
          return;
        }
        if (bytes) return;
      }
    },
    cancel() {
      stop();
      options.abort.abort();
      options.report?.({ outcome: "client_disconnected", usage: writer.usage });
    },
  });
}
