/**
 * Bounds on one upstream call, whatever the HTTP client: a deadline for the response headers, an idle
 * deadline between body bytes, a cap on a whole (non-streamed) body and on one SSE line of a stream. A
 * hung or endless upstream then costs a bounded time and a bounded amount of memory, and each failure
 * becomes a GatewayError of its own (504 `timeout_error`, 500 `api_error`) instead of a process killed by
 * the out-of-memory handler or a request that never ends. Deadlines are checked by the shared ticker
 * (ticker.ts), not a timer per request.
 */
import { concatBytes } from "@switchyard/lib/bytes.ts";
import { GatewayError } from "../errors.ts";
import { deadlineTickerFor, type Ticker, type TickerSlot } from "./ticker.ts";
import { type BodyReader, bodyReaderOf, type UpstreamResponse } from "./response.ts";

/** Configured bounds of every upstream call. */
export interface UpstreamLimits {
  /** Longest wait for a TCP/TLS connection (the built-in client; Deno's fetch counts it in the headers wait). */
  connectTimeoutMs: number;
  /** Longest wait from sending the request to the response headers. */
  headersTimeoutMs: number;
  /** Longest silence between two pieces of the response body. */
  idleTimeoutMs: number;
  /** Largest whole (non-streamed) response body. */
  maxBodyBytes: number;
  /** Largest single line of a streamed (SSE) response. */
  maxSseLineBytes: number;
}

/** Most bytes of an upstream error body read (the rest is discarded): only an excerpt is ever used. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

const decoder = new TextDecoder();

/** The check period of the deadline ticker: a quarter of the shortest deadline, within 5 ms … 1 s. */
function periodOf(limits: UpstreamLimits): number {
  return Math.max(
    5,
    Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.idleTimeoutMs) / 4)),
  );
}

/** Watches one upstream call's deadlines; on expiry it aborts the call and remembers why. */
export class UpstreamWatch {
  #limits: UpstreamLimits;
  #abort: AbortController;
  #provider: string;
  #phase: "headers" | "body" = "headers";
  #since = Date.now();
  #ticker: Ticker | undefined;
  #slot: TickerSlot | undefined;
  #tick = () => this.#check();
  #expired: GatewayError | undefined;

  /** Starts watching the headers deadline of a call aborted through `abort`. */
  constructor(provider: string, limits: UpstreamLimits, abort: AbortController) {
    this.#provider = provider;
    this.#limits = limits;
    this.#abort = abort;
    this.#ticker = deadlineTickerFor(periodOf(limits));
    this.#slot = this.#ticker.insert(this.#tick);
  }

  /** The timeout error, once a deadline has passed. */
  get expired(): GatewayError | undefined {
    return this.#expired;
  }

  #check(): void {
    const limit = this.#phase === "headers" ? this.#limits.headersTimeoutMs : this.#limits.idleTimeoutMs;
    if (Date.now() - this.#since < limit) return;
    this.#expired = new GatewayError(
      "timeout_error",
      this.#phase === "headers"
        ? `upstream provider ${this.#provider} did not answer within ${limit} ms`
        : `upstream provider ${this.#provider} sent nothing for ${limit} ms in the middle of its response`,
      // Nothing of an answer yet: another upstream may serve it, and this one counts as failing.
      { retryable: this.#phase === "headers", upstreamFault: this.#phase === "headers" },
    );
    this.stop();
    this.#abort.abort(this.#expired);
  }

  /** The headers arrived: from now on the idle deadline applies. */
  headersReceived(): void {
    this.#phase = "body";
    this.#since = Date.now();
  }

  /** Body bytes arrived (Date.now, a builtin, rather than an op call: this runs per chunk). */
  activity(): void {
    this.#since = Date.now();
  }

  /** Stops watching (the call ended). */
  stop(): void {
    this.#ticker?.remove(this.#slot);
    this.#ticker = undefined;
    this.#slot = undefined;
  }
}

/** Index of the first CR or LF in `piece`, or -1. */
function firstLineEnd(piece: Uint8Array): number {
  const lf = piece.indexOf(10);
  const cr = piece.indexOf(13);
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
}

/** Length of the longest line that starts after `from` and ends inside `piece`. */
function longestLine(piece: Uint8Array, from: number): number {
  let longest = 0;
  let start = from + 1;
  for (let i = start; i < piece.length; i++) {
    if (piece[i] !== 10 && piece[i] !== 13) continue;
    longest = Math.max(longest, i - start);
    start = i + 1;
  }
  return longest;
}

/** A failure reading the body: the deadline's error when one passed, else the client's own error. */
function readFailure(watch: UpstreamWatch, error: unknown): unknown {
  return watch.expired ?? error;
}

/** The error of a body (or one stream line) over its cap. */
function tooLarge(provider: string, what: string, limit: number): GatewayError {
  return new GatewayError(
    "api_error",
    `upstream provider ${provider} sent ${what} larger than ${limit} bytes`,
  );
}

/**
 * A streamed body read through the watch (idle deadline) with each line bounded. One object per reader, no
 * closures: this runs on every streamed request.
 */
class LineBoundedReader implements BodyReader {
  #inner: BodyReader;
  #watch: UpstreamWatch;
  #provider: string;
  #maxLine: number;
  /** Bytes of the current (unfinished) line, across reads. */
  #lineBytes = 0;

  constructor(inner: BodyReader, watch: UpstreamWatch, provider: string, maxLine: number) {
    this.#inner = inner;
    this.#watch = watch;
    this.#provider = provider;
    this.#maxLine = maxLine;
  }

  async read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    const watch = this.#watch;
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await this.#inner.read();
    } catch (error) {
      watch.stop();
      throw readFailure(watch, error);
    }
    if (result.done) {
      watch.stop();
      return result;
    }
    watch.activity();
    try {
      this.#count(result.value);
    } catch (error) {
      watch.stop();
      this.#inner.cancel().catch(() => {});
      throw error;
    }
    return result;
  }

  cancel(): Promise<void> {
    this.#watch.stop();
    return this.#inner.cancel();
  }

  #count(piece: Uint8Array): void {
    const maxLine = this.#maxLine;
    const first = firstLineEnd(piece);
    if (first < 0) this.#lineBytes += piece.length;
    else {
      if (this.#lineBytes + first > maxLine) throw tooLarge(this.#provider, "a stream line", maxLine);
      // Lines wholly inside the piece can only be too long when the piece itself is.
      if (piece.length > maxLine && longestLine(piece, first) > maxLine) {
        throw tooLarge(this.#provider, "a stream line", maxLine);
      }
      this.#lineBytes = piece.length - 1 - Math.max(piece.lastIndexOf(10), piece.lastIndexOf(13));
    }
    if (this.#lineBytes > maxLine) throw tooLarge(this.#provider, "a stream line", maxLine);
  }
}

/**
 * The response with its body bounded: reads pass through the watch (idle deadline) and are counted (whole
 * body cap for `text()`, per-line cap for a stream read through `reader()`). The watch stops when the body
 * ends, fails or is cancelled. A class rather than an object of closures: one allocation per request.
 */
class GuardedResponse implements UpstreamResponse {
  readonly ok: boolean;
  readonly status: number;
  #provider: string;
  #response: UpstreamResponse;
  #limits: UpstreamLimits;
  #watch: UpstreamWatch;

  constructor(provider: string, response: UpstreamResponse, limits: UpstreamLimits, watch: UpstreamWatch) {
    this.ok = response.ok;
    this.status = response.status;
    this.#provider = provider;
    this.#response = response;
    this.#limits = limits;
    this.#watch = watch;
  }

  get headers(): Headers {
    return this.#response.headers; // built only when asked (the built-in client's are lazy)
  }

  /** One header's value (the client's own look-up when it has one, else through `headers`). */
  header(name: string): string | null {
    const response = this.#response;
    return response.header ? response.header(name) : response.headers.get(name);
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#response.body;
  }

  text(): Promise<string> {
    const ok = this.#response.ok;
    return this.#whole(ok ? this.#limits.maxBodyBytes : MAX_ERROR_BODY_BYTES, !ok);
  }

  /** A successful answer's body when the client already holds all of it (no promise), with `text()`'s cap. */
  textNow(): string | undefined {
    const response = this.#response;
    if (!response.ok) return undefined;
    const max = this.#limits.maxBodyBytes;
    // A body the client decoded as it took it: its content-length is its size.
    if (response.wholeText && !(Number(this.header("content-length") ?? NaN) > max)) {
      const text = response.wholeText();
      if (text !== undefined) {
        this.#watch.stop();
        return text;
      }
    }
    const bytes = response.wholeBytes?.();
    if (!bytes) return undefined;
    this.#watch.stop();
    if (bytes.length > max) throw tooLarge(this.#provider, "a response", max);
    return decoder.decode(bytes);
  }

  reader(): BodyReader {
    return new LineBoundedReader(
      bodyReaderOf(this.#response),
      this.#watch,
      this.#provider,
      this.#limits.maxSseLineBytes,
    );
  }

  /** Reads the whole body, refusing (or, with `truncate`, cutting) it past `max` bytes. */
  async #whole(max: number, truncate: boolean): Promise<string> {
    const response = this.#response;
    const watch = this.#watch;
    const length = Number(this.header("content-length") ?? NaN);
    if (!truncate && length > max) {
      // Refused before reading a byte of it.
      watch.stop();
      (response.reader?.() ?? response.body?.getReader())?.cancel().catch(() => {});
      throw tooLarge(this.#provider, "a response", max);
    }
    const inner = bodyReaderOf(response);
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await inner.read();
      } catch (error) {
        watch.stop();
        throw readFailure(watch, error);
      }
      if (result.done) {
        watch.stop();
        break;
      }
      watch.activity();
      let piece = result.value;
      if (size + piece.length > max) {
        if (!truncate) {
          watch.stop();
          inner.cancel().catch(() => {});
          throw tooLarge(this.#provider, "a response", max);
        }
        piece = piece.subarray(0, max - size);
      }
      parts.push(piece);
      size += piece.length;
      if (truncate && size >= max) {
        watch.stop();
        await inner.cancel().catch(() => {});
        break;
      }
    }
    return decoder.decode(parts.length === 1 ? parts[0] : concatBytes(parts, size));
  }
}

/**
 * The response with its body bounded: reads pass through the watch (idle deadline) and are counted (whole
 * body cap for `text()`, per-line cap for a stream read through `reader()`). The watch stops when the body
 * ends, fails or is cancelled.
 */
export function guardedResponse(
  provider: string,
  response: UpstreamResponse,
  limits: UpstreamLimits,
  watch: UpstreamWatch,
): UpstreamResponse {
  return new GuardedResponse(provider, response, limits, watch);
}
