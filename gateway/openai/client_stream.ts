/**
 * The client's copy of a stream in its own format. The route's stream is Anthropic SSE (the providers'
 * common output, plus the route's `ping` keep-alives and `event: error` frames) unless the answer came by
 * pass-through, when it is already in the client's format except for those keep-alive and error frames.
 * A {@link ClientStreamFormat} turns each Anthropic event into the client's frames.
 */
import { createSseDecoder } from "@switchyard/lib/sse.ts";

/** One OpenAI stream format's translation of Anthropic events. */
export interface ClientStreamFormat {
  /** Frames for one Anthropic event (`type` is its `type` field). */
  event(data: Record<string, unknown>): string;
  /** Frames for an error (the stream ends after them). */
  error(type: string, message: string): string;
  /** True once the format wrote its final frames. */
  readonly ended: boolean;
}

/** What a keep-alive becomes: an SSE comment, which every client's parser skips. */
const KEEP_ALIVE = ": ping\n\n";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads an Anthropic `event: error` frame's type and message. */
function errorOf(data: string): { type: string; message: string } {
  try {
    const error = JSON.parse(data).error ?? {};
    return { type: String(error.type ?? "api_error"), message: String(error.message ?? "upstream error") };
  } catch {
    return { type: "api_error", message: "upstream error" };
  }
}

/**
 * `source` in the client's format. `passThrough()` says (once the stream flows) whether the answer came by
 * pass-through: its chunks are then relayed as they are, each one a whole frame of the client's format.
 */
export function clientStream(
  source: ReadableStream<Uint8Array>,
  format: ClientStreamFormat,
  passThrough: () => boolean,
): ReadableStream<Uint8Array> {
  let out = "";
  const sse = createSseDecoder((event) => {
    if (format.ended) return;
    if (event.event === "ping") out += KEEP_ALIVE;
    else if (event.event === "error") {
      const error = errorOf(event.data);
      out += format.error(error.type, error.message);
    } else {
      try {
        out += format.event(JSON.parse(event.data));
      } catch {
        out += format.error("api_error", "the upstream sent a malformed event");
      }
    }
  });
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (passThrough()) {
          // Keep-alives and errors of the route arrive as chunks of their own, in Anthropic's spelling.
          const head = decoder.decode(chunk.subarray(0, 13));
          if (head.startsWith("event: ping\n")) return controller.enqueue(encoder.encode(KEEP_ALIVE));
          if (!head.startsWith("event: error\n")) return controller.enqueue(chunk);
        }
        sse.feed(chunk);
        if (out) {
          controller.enqueue(encoder.encode(out));
          out = "";
        }
      },
      flush(controller) {
        sse.end();
        if (!format.ended && !passThrough()) {
          out += format.error("api_error", "the upstream stream ended before the answer was complete");
        }
        if (out) controller.enqueue(encoder.encode(out));
      },
    }),
  );
}
