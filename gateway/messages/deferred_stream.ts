/**
 * Keep-alive before the upstream answers. A streaming request waits up to one ping interval for the
 * upstream's response headers, so fast failures (429, 400, ...) still reach the client as real HTTP errors
 * with their status. If the upstream is slower than that, the gateway commits to a 200 SSE response and
 * sends `ping` frames until the upstream answers; a later upstream failure then becomes `event: error`.
 */
import { GatewayError } from "../errors.ts";

const encoder = new TextEncoder();
const PING = encoder.encode('event: ping\ndata: {"type":"ping"}\n\n');

function errorFrame(error: unknown): Uint8Array {
  const e = error instanceof GatewayError
    ? { type: error.type, message: error.message }
    : { type: "api_error", message: "internal error" };
  return encoder.encode(`event: error\ndata: ${JSON.stringify({ type: "error", error: e })}\n\n`);
}

/**
 * Resolves with the upstream's translated stream if it is ready within `waitMs` (rejecting as it does),
 * otherwise with a stream that pings every `waitMs` until it is, then continues with it.
 */
export function deferStream(
  pending: Promise<ReadableStream<Uint8Array>>,
  waitMs: number,
  abort: AbortController,
): Promise<ReadableStream<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
  return Promise.race([pending, late]).then((ready) => {
    clearTimeout(timer);
    if (ready) return ready;
    let inner: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let ticker: ReturnType<typeof setInterval> | undefined;
    let cancelled = false;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(PING);
        ticker = setInterval(() => controller.enqueue(PING), waitMs);
        pending.then(
          (stream) => {
            clearInterval(ticker);
            if (cancelled) return void stream.cancel().catch(() => {});
            inner = stream.getReader();
          },
          (error) => {
            clearInterval(ticker);
            if (cancelled) return;
            controller.enqueue(errorFrame(error));
            controller.close();
          },
        );
      },
      async pull(controller) {
        while (!inner) {
          await pending.catch(() => {});
          if (cancelled || !inner) return;
        }
        const { value, done } = await inner.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel() {
        cancelled = true;
        clearInterval(ticker);
        abort.abort();
        inner?.cancel().catch(() => {});
      },
    });
  });
}
