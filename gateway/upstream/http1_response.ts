/**
 * The response side of the upstream client (http1_client.ts): an `UpstreamResponse` that builds a `Headers`
 * object only when asked and gives a streamed body as a plain reader, so the gateway's stream pipe needs no
 * `ReadableStream` per upstream stream; plus gzip/deflate decoding of coded bodies.
 */
import type { BodyReader, UpstreamResponse } from "./response.ts";
import { headerValue, Http1ProtocolError, type ResponseHead } from "./http1_wire.ts";

/** Bytes backed by an ArrayBuffer. */
export type Bytes = Uint8Array<ArrayBuffer>;

/** Decodes a gzip- or deflate-coded body (dropping the coding fields from `head`); other bodies pass as they are. */
export function decoded(body: ReadableStream<Bytes>, head: ResponseHead): ReadableStream<Bytes> {
  const coding = headerValue(head, "content-encoding")?.toLowerCase();
  if (!coding || coding === "identity") return body;
  const format = coding === "gzip" || coding === "x-gzip"
    ? "gzip"
    : coding === "deflate"
    ? "deflate"
    : undefined;
  if (!format) throw new Http1ProtocolError(`unsupported content-encoding ${coding}`);
  for (const name of ["content-encoding", "content-length"]) {
    const i = head.names.indexOf(name);
    if (i >= 0) {
      head.names.splice(i, 1);
      head.values.splice(i, 1);
    }
  }
  return body.pipeThrough(new DecompressionStream(format) as unknown as TransformStream<Bytes, Bytes>);
}

const textDecoder = new TextDecoder();
const encoder = new TextEncoder();

/** A stream over a reader (built only when someone asks for `body`). */
export function streamOf(source: BodyReader): ReadableStream<Bytes> {
  return new ReadableStream<Bytes>({
    async pull(controller) {
      const { done, value } = await source.read();
      if (done) controller.close();
      else controller.enqueue(value as Bytes);
    },
    cancel: () => source.cancel(),
  });
}

/**
 * An upstream response: status, headers and body like a fetch `Response`, without building a `Headers`
 * object (until asked) or a body stream for a body that is already whole.
 */
export class Http1Response implements UpstreamResponse {
  /** Status code. */
  readonly status: number;
  /** Reason phrase. */
  readonly statusText: string;
  #head: ResponseHead;
  #headers?: Headers;
  #bytes: Bytes | null;
  #stream: ReadableStream<Bytes> | null = null;
  #source: BodyReader | null = null;
  #used = false;
  #text: string | undefined;

  /**
   * A response with a whole body (`bytes`, or `text`: a whole body already decoded), a streamed one, or
   * none.
   */
  constructor(
    head: ResponseHead,
    bytes: Bytes | null,
    body: ReadableStream<Bytes> | BodyReader | null,
    text?: string,
  ) {
    this.status = head.status;
    this.statusText = head.statusText;
    this.#head = head;
    this.#text = text;
    // A decoded body is encoded again only if someone asks for its bytes (never on the gateway's paths).
    this.#bytes = text === undefined ? bytes : null;
    if (body instanceof ReadableStream) this.#stream = body;
    else this.#source = body;
  }

  /** The bytes of a decoded whole body, made on first request for them. */
  #materialize(): void {
    if (this.#text === undefined) return;
    this.#bytes = encoder.encode(this.#text);
    this.#text = undefined;
  }

  /** A whole body already decoded (once, without a promise); undefined otherwise. */
  wholeText(): string | undefined {
    const text = this.#text;
    if (text === undefined || this.#used) return undefined;
    this.#used = true;
    this.#text = undefined;
    return text;
  }

  /** The streamed body as a reader, without building a stream (once; null if none or already taken). */
  reader(): BodyReader {
    this.#materialize();
    const source = this.#source;
    if (source && !this.#used) {
      this.#used = true;
      this.#source = null;
      return source;
    }
    if (!this.#stream && !this.#used) {
      // A whole (or absent) body: one read, no stream object.
      this.#used = true;
      let bytes: Bytes | null = this.#bytes;
      this.#bytes = null;
      return {
        read: () => {
          const value = bytes;
          bytes = null;
          return Promise.resolve(value?.length ? { done: false, value } : { done: true, value: undefined });
        },
        cancel: () => {
          bytes = null;
          return Promise.resolve();
        },
      };
    }
    return this.body!.getReader();
  }

  /** The whole body when it was read before the response resolved (once, without a promise). */
  wholeBytes(): Bytes | undefined {
    this.#materialize();
    const bytes = this.#bytes;
    if (!bytes || this.#used) return undefined;
    this.#used = true;
    this.#bytes = null;
    return bytes;
  }

  /** The first value of header `name` (lowercase), without building a `Headers` object. */
  header(name: string): string | null {
    return headerValue(this.#head, name);
  }

  /** True for 2xx. */
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The header fields (built on first use). */
  get headers(): Headers {
    if (!this.#headers) {
      const headers = new Headers();
      this.#head.names.forEach((name, i) => {
        try {
          headers.append(name, this.#head.values[i]);
        } catch {
          // a field Headers refuses (odd characters) is dropped rather than failing the response
        }
      });
      this.#headers = headers;
    }
    return this.#headers;
  }

  /** The body as a stream (null when there is none). */
  get body(): ReadableStream<Bytes> | null {
    this.#materialize();
    if (!this.#stream && this.#source) {
      this.#stream = streamOf(this.#source);
      this.#source = null;
    }
    if (!this.#stream && this.#bytes) {
      const bytes = this.#bytes;
      this.#bytes = null;
      this.#stream = new ReadableStream<Bytes>({
        start(controller) {
          if (bytes.length) controller.enqueue(bytes);
          controller.close();
        },
      });
    }
    return this.#stream;
  }

  /** The whole body. */
  async bytes(): Promise<Bytes> {
    if (this.#used) throw new TypeError("body already used");
    this.#materialize();
    this.#used = true;
    if (this.#bytes) return this.#bytes;
    const stream = this.body;
    if (!stream) return new Uint8Array(0);
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  /** The body decoded as UTF-8. */
  async text(): Promise<string> {
    const whole = this.wholeText();
    if (whole !== undefined) return whole;
    return textDecoder.decode(await this.bytes());
  }

  /** The body parsed as JSON. */
  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}
