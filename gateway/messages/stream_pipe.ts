/**
 * The one streaming pipeline every provider uses: upstream bytes → SSE events (lib/sse.ts) → a provider's
 * translator → Anthropic frames, flushed to the client as each upstream event arrives. Adds `ping`
 * keep-alives while the upstream is silent, turns a broken upstream into `event: error`, and aborts the
 * upstream request when the client goes away.
 */
import { sseDecoderStream, type SseEvent } from "@switchyard/lib/sse.ts";
import { AnthropicEventWriter } from "./stream_writer.ts";

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
}

const encoder = new TextEncoder();

/** Returns the client-facing body for an upstream SSE response. */
export function translateStream(
  upstream: ReadableStream<Uint8Array>,
  translator: StreamTranslator,
  options: TranslateStreamOptions,
): ReadableStream<Uint8Array> {
  let pending = "";
  const writer = new AnthropicEventWriter((frames) => {
    pending += frames;
  });
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const stop = () => {
    closed = true;
    if (timer !== undefined) clearInterval(timer);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const flush = () => {
        if (pending === "" || closed) return;
        controller.enqueue(encoder.encode(pending));
        pending = "";
      };
      options.begin(writer);
      flush();
      let lastActivity = performance.now();
      timer = setInterval(() => {
        if (performance.now() - lastActivity < options.pingIntervalMs) return;
        lastActivity = performance.now();
        writer.ping();
        flush();
      }, Math.max(5, options.pingIntervalMs / 2));
      const reader = upstream.pipeThrough(sseDecoderStream()).getReader();
      (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            lastActivity = performance.now();
            translator.onEvent(value, writer);
            flush();
            if (writer.ended) break;
          }
          if (!writer.ended) translator.onEnd(writer);
        } catch (_error) {
          if (closed) return;
          writer.error("api_error", "the upstream connection failed in the middle of the response");
        }
        if (closed) return;
        flush();
        stop();
        controller.close();
        reader.cancel().catch(() => {});
      })();
    },
    cancel() {
      stop();
      options.abort.abort();
    },
  });
}
