/**
 * What the gateway reads from an upstream HTTP response, whichever client made the call (Deno's `fetch`, or
 * the pooled HTTP/1.1 client of http1_client.ts): the response shape, pull-based body readers, and the call.
 */

/** Pull-based access to a body without a `ReadableStream` (a stream's default reader is one). */
export interface BodyReader {
  /** The next piece of the body. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Stops reading (and drops the connection). */
  cancel(): Promise<void>;
}

/** What a provider reads from an upstream HTTP response (a fetch `Response` is one). */
export interface UpstreamResponse {
  /** True for 2xx. */
  readonly ok: boolean;
  /** Status code. */
  readonly status: number;
  /** Header fields. */
  readonly headers: Headers;
  /** The body as a stream. */
  readonly body: ReadableStream<Uint8Array> | null;
  /** The whole body decoded as UTF-8. */
  text(): Promise<string>;
  /** The body as a reader, when the client can give one without building a stream. */
  reader?(): BodyReader;
  /** One header's value, when the client can give it without building a `Headers` object. */
  header?(name: string): string | null;
  /**
   * The whole body when the client has already read all of it (the built-in client's fixed-length
   * answers), taken once without a promise; undefined otherwise (then read it through `text()`).
   */
  wholeBytes?(): Uint8Array | undefined;
  /** Like `wholeBytes`, the whole body already decoded as UTF-8 (the built-in client's uncoded answers). */
  wholeText?(): string | undefined;
  /**
   * `text()` without a promise when the whole body is already here (same checks and errors, thrown);
   * undefined otherwise.
   */
  textNow?(): string | undefined;
}

/** The body of `response` as a reader: its own when it has one, else its stream's. */
export function bodyReaderOf(response: UpstreamResponse): BodyReader {
  return response.reader?.() ?? response.body!.getReader();
}

/** The upstream HTTP call (the global `fetch` is one; so is upstream/http1_client.ts). */
export type UpstreamFetch = (url: string, init: RequestInit) => Promise<UpstreamResponse>;
