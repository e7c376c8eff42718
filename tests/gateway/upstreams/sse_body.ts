/**
 * Byte-level SSE bodies for the mock upstreams: frames written one by one, optionally with CRLF line ends,
 * SSE comments, frames split into several writes (even mid-UTF-8), pauses, and a connection cut.
 */

/** How a mock frames its stream. */
export interface Framing {
  /** Use `\r\n` line endings. */
  crlf?: boolean;
  /** Write each frame in pieces of this many bytes (splitting escapes and UTF-8 sequences). */
  splitBytes?: number;
  /** Send an SSE comment before every frame (OpenRouter's `: OPENROUTER PROCESSING`). */
  comments?: boolean;
  /** Abort the connection after this many frames (no terminating chunk). */
  cutAfter?: number;
  /** Milliseconds to wait before the first frame. */
  firstByteDelayMs?: number;
  /** Milliseconds between frames. */
  gapMs?: number;
}

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Serializes `frames` (each a complete SSE frame ending in a blank line) into a streamed body. */
export function sseBody(
  frames: string[],
  framing: Framing = {},
  onCancel?: () => void,
): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      if (framing.firstByteDelayMs) await sleep(framing.firstByteDelayMs);
      for (let i = 0; i < frames.length; i++) {
        if (cancelled) return;
        if (framing.cutAfter !== undefined && i >= framing.cutAfter) {
          controller.error(new Error("connection cut by the fixture"));
          return;
        }
        let text = (framing.comments ? ": OPENROUTER PROCESSING\n\n" : "") + frames[i];
        if (framing.crlf) text = text.replaceAll("\n", "\r\n");
        const bytes = encoder.encode(text);
        const step = framing.splitBytes ?? bytes.length;
        for (let at = 0; at < bytes.length; at += step) {
          controller.enqueue(bytes.slice(at, at + step));
          if (framing.splitBytes) await sleep(0);
        }
        if (framing.gapMs) await sleep(framing.gapMs);
      }
      controller.close();
    },
    cancel() {
      cancelled = true;
      onCancel?.();
    },
  });
}

/** A `data:`-only frame (OpenAI, Gemini). */
export function dataFrame(value: unknown): string {
  return `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;
}

/** A named frame (Anthropic). */
export function namedFrame(event: string, value: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
}
