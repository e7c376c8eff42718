/**
 * The per-request timeline of the bench (issue 28's c=1 latency hunt): `performance.now()` marks at fixed
 * points of a request's way through the gateway. Off unless a bench entry installs a recorder
 * (bench/gateway_bench_server.ts with GATEWAY_BENCH_TIMELINE): the marks on the request path are then a load
 * of an `undefined` binding each, no call. Only meaningful at c=1 (one request at a time: a mark belongs to
 * the request in flight).
 */

/** The points marked, in request order (arrival and hand-back are marked by the bench server's wrapper). */
export const TIMELINE_POINTS = [
  "arrival", // the handler is called
  "body", // the request body has been read
  "upstream-call", // the upstream client is called
  "upstream-bytes", // the request's bytes are built
  "upstream-send", // a pooled connection is taken (and the abort listener added): the write starts
  "upstream-written", // the request's bytes are written to the upstream socket
  "upstream-head", // the upstream's response head is parsed
  "upstream-response", // the upstream client's response (with a pre-read body) resolves
  "answer", // the attempt's answer is back in the pipeline
  "handed", // the handler's response is handed to Deno.serve
] as const;

/** Index of a point in {@link TIMELINE_POINTS}. */
export const T_BODY = 1;
/** See {@link TIMELINE_POINTS}. */
export const T_UPSTREAM_CALL = 2;
/** See {@link TIMELINE_POINTS}. */
export const T_UPSTREAM_BYTES = 3;
/** See {@link TIMELINE_POINTS}. */
export const T_UPSTREAM_SEND = 4;
/** See {@link TIMELINE_POINTS}. */
export const T_UPSTREAM_WRITTEN = 5;
/** See {@link TIMELINE_POINTS}. */
export const T_UPSTREAM_HEAD = 6;
/** See {@link TIMELINE_POINTS}. */
export const T_UPSTREAM_RESPONSE = 7;
/** See {@link TIMELINE_POINTS}. */
export const T_ANSWER = 8;

/** The recorder of marks, installed by a bench entry only; `undefined` everywhere else. */
export let timelineMark: ((point: number) => void) | undefined;

/** Installs (or, with `undefined`, removes) the recorder. Bench entries only. */
export function setTimelineMark(mark: ((point: number) => void) | undefined): void {
  timelineMark = mark;
}
