/**
 * Keep-alive before the upstream answers. A streaming request waits up to one ping interval for the
 * upstream's response headers, so fast failures (429, 400, ...) still reach the client as real HTTP errors
 * with their status. If the upstream is slower than that, the gateway commits to a 200 SSE response and
 * sends `ping` frames until the upstream answers; a later upstream failure then becomes `event: error`.
 */
import { GatewayError } from "../errors.ts";
import type { StreamOutcome } from "./stream_pipe.ts";
import { checkPeriod, tickerFor } from "../upstream/ticker.ts";

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
 * otherwise with a stream that pings every `waitMs` until it is, then continues with it. The wait is
 * checked by the shared keep-alive ticker (ticker.ts), so the switch happens between `waitMs` and 1.5 ×
 * `waitMs`, and a fast upstream costs no timer at all.
 */
export function deferStream(
  pending: Promise<ReadableStream<Uint8Array>>,
  waitMs: number,
  abort: AbortController,
  report?: (outcome: StreamOutcome) => void,
): Promise<ReadableStream<Uint8Array>> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let settled = false;
    const untick = tickerFor(checkPeriod(waitMs)).add(() => {
      if (settled || Date.now() - started < waitMs) return;
      settled = true;
      untick();
      resolve(pingUntilReady(pending, waitMs, abort, report));
    });
    pending.then(
      (stream) => {
        if (settled) return;
        settled = true;
        untick();
        resolve(stream);
      },
      (error) => {
        if (settled) return;
        settled = true;
        untick();
        reject(error);
      },
    );
  });
}

/** A 200 SSE body that pings every `waitMs` until `pending` is ready, then relays it (or its failure). */
function pingUntilReady(
  pending: Promise<ReadableStream<Uint8Array>>,
  waitMs: number,
  abort: AbortController,
  report?: (outcome: StreamOutcome) => void,
): ReadableStream<Uint8Array> {
  let inner: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let untick: (() => void) | undefined;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(PING);
      let lastPing = Date.now();
      untick = tickerFor(checkPeriod(waitMs)).add(() => {
        if (Date.now() - lastPing < waitMs) return;
        lastPing = Date.now();
        controller.enqueue(PING);
      });
      pending.then(
        (stream) => {
          untick?.();
          if (cancelled) return void stream.cancel().catch(() => {});
          inner = stream.getReader();
        },
        (error) => {
          untick?.();
          if (cancelled) return;
          controller.enqueue(errorFrame(error));
          controller.close();
          report?.({
            outcome: "upstream_error",
            errorType: error instanceof GatewayError ? error.type : "api_error",
          });
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
      untick?.();
      abort.abort();
      inner?.cancel().catch(() => {});
      report?.({ outcome: "client_disconnected" });
    },
  });
}
