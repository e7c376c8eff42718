/**
 * HTTP/1.1 response parsing for the gateway's upstream client (http1_client.ts): a growable read buffer
 * over a connection, the response head, and the body framings (fixed length, chunked, until close).
 * Only what a client of JSON/SSE APIs needs; no request parsing, no pipelining.
 */
import { concatBytes } from "@switchyard/lib/bytes.ts";

const utf8 = new TextDecoder();

/** Where bytes come from (a `Deno.Conn`). */
export interface ByteSource {
  /** Reads into `buffer`; the count, or null at the end of the stream. */
  read(buffer: Uint8Array): Promise<number | null>;
}

/** A read buffer over a {@link ByteSource}. */
export class BufferedReader {
  #source: ByteSource;
  #buffer: Uint8Array<ArrayBuffer>;
  #start = 0;
  #end = 0;
  /** Bytes received from the source so far. */
  received = 0;

  /** Reads from `source` in pieces of up to `size` bytes (the buffer grows for larger items). */
  constructor(source: ByteSource, size = 16 * 1024) {
    this.#source = source;
    this.#buffer = new Uint8Array(size);
  }

  /** Number of bytes buffered and not yet consumed. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /** The buffered bytes (a view, valid until the next `fill` or `consume`). */
  view(): Uint8Array {
    return this.#buffer.subarray(this.#start, this.#end);
  }

  /** Marks `n` buffered bytes as used. */
  consume(n: number): void {
    this.#start += n;
    if (this.#start === this.#end) this.#start = this.#end = 0;
  }

  /** Takes `n` buffered bytes as a copy. */
  take(n: number): Uint8Array<ArrayBuffer> {
    const out = this.#buffer.slice(this.#start, this.#start + n);
    this.consume(n);
    return out;
  }

  /** Takes `n` buffered bytes decoded as UTF-8 (no copy of them into a buffer of their own). */
  takeText(n: number): string {
    const text = utf8.decode(this.#buffer.subarray(this.#start, this.#start + n));
    this.consume(n);
    return text;
  }

  /** Reads more bytes from the source; false at its end. */
  async fill(): Promise<boolean> {
    if (this.#end === this.#buffer.length) {
      if (this.#start > 0) {
        this.#buffer.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      } else {
        const grown = new Uint8Array(this.#buffer.length * 2);
        grown.set(this.#buffer);
        this.#buffer = grown;
      }
    }
    const n = await this.#source.read(this.#buffer.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    this.received += n;
    return true;
  }
}

/** A malformed or truncated upstream response. */
export class Http1ProtocolError extends Error {
  /** Describes what was wrong. */
  constructor(message: string) {
    super(message);
    this.name = "Http1ProtocolError";
  }
}

/** The status line and header fields of a response (names lowercased, in order, repeats kept). */
export interface ResponseHead {
  /** HTTP minor version (0 or 1). */
  minor: number;
  /** Status code. */
  status: number;
  /** Reason phrase. */
  statusText: string;
  /** Field names, lowercased. */
  names: string[];
  /** Field values, trimmed, parallel to `names`. */
  values: string[];
}

/** The first value of header `name` (lowercase), or null. */
export function headerValue(head: ResponseHead, name: string): string | null {
  const i = head.names.indexOf(name);
  return i < 0 ? null : head.values[i];
}

/** The most bytes of a response head (status line and header fields) the client reads. */
export const MAX_HEAD_BYTES = 64 * 1024;

/** A response head over {@link MAX_HEAD_BYTES}: the gateway's refusal, not a fault of the upstream's. */
export class HeadTooLargeError extends Http1ProtocolError {
  constructor() {
    super("response head too large");
    this.name = "HeadTooLargeError";
  }
}
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;

const ascii = new TextDecoder();

/**
 * Bytes as a string of the same code units (ISO-8859-1). An all-ASCII head (every real one) is decoded by
 * the TextDecoder: `String.fromCharCode.apply` copied each byte into an arguments array first.
 */
function latin1(bytes: Uint8Array): string {
  let plain = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] >= 0x80) {
      plain = false;
      break;
    }
  }
  if (plain) return ascii.decode(bytes);
  let out = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    out += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096) as unknown as number[]);
  }
  return out;
}

function indexOfSequence(bytes: Uint8Array, seq: readonly number[], from = 0): number {
  const last = bytes.length - seq.length;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < seq.length; j++) if (bytes[i + j] !== seq[j]) continue outer;
    return i;
  }
  return -1;
}

const CRLF = [13, 10];
const CRLF_CRLF = [13, 10, 13, 10];

function parseHead(text: string): ResponseHead {
  const lines = text.split("\r\n");
  const match = STATUS_LINE.exec(lines[0]);
  if (!match) throw new Http1ProtocolError(`malformed status line ${JSON.stringify(lines[0].slice(0, 80))}`);
  const names: string[] = [];
  const values: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i].indexOf(":");
    if (colon <= 0) throw new Http1ProtocolError("malformed header line");
    names.push(lines[i].slice(0, colon).trim().toLowerCase());
    values.push(lines[i].slice(colon + 1).trim());
  }
  return { minor: Number(match[1]), status: Number(match[2]), statusText: match[3] ?? "", names, values };
}

/**
 * Reads the next final response head (skipping 1xx interim responses). Throws Http1ProtocolError when the
 * connection ends first (`reader.received === 0` then tells that nothing at all came back).
 */
export async function readResponseHead(reader: BufferedReader): Promise<ResponseHead> {
  for (;;) {
    const view = reader.view();
    const end = indexOfSequence(view, CRLF_CRLF);
    // Bounded whether the head arrived in one read or several.
    if (end > MAX_HEAD_BYTES) throw new HeadTooLargeError();
    if (end >= 0) {
      const head = parseHead(latin1(view.subarray(0, end)));
      reader.consume(end + 4);
      if (head.status >= 100 && head.status < 200) continue;
      return head;
    }
    if (view.length > MAX_HEAD_BYTES) throw new HeadTooLargeError();
    if (!(await reader.fill())) throw new Http1ProtocolError("connection closed before the response head");
  }
}

/** Reads exactly `length` body bytes. */
export async function readFixedBody(
  reader: BufferedReader,
  length: number,
): Promise<Uint8Array<ArrayBuffer>> {
  while (reader.buffered < length) {
    if (!(await reader.fill())) throw new Http1ProtocolError("connection closed in the middle of the body");
  }
  return reader.take(length);
}

/** Decodes a `transfer-encoding: chunked` body piece by piece. */
export class ChunkedDecoder {
  #reader: BufferedReader;
  #state: "size" | "data" | "crlf" | "trailer" | "done" = "size";
  #remaining = 0;

  /** Decodes the body that follows the head in `reader`. */
  constructor(reader: BufferedReader) {
    this.#reader = reader;
  }

  /** True once the final chunk and trailers were read (the connection can be reused). */
  get done(): boolean {
    return this.#state === "done";
  }

  /** The body bytes now available (at least one byte, reading as needed), or null at the end. */
  async next(): Promise<Uint8Array<ArrayBuffer> | null> {
    for (;;) {
      const out = this.#decodeBuffered();
      if (out) return out;
      if (this.#state === "done") return null;
      if (!(await this.#reader.fill())) {
        throw new Http1ProtocolError("connection closed in the middle of a chunked body");
      }
    }
  }

  /** Decodes what is buffered; the data of every complete-enough chunk, joined. */
  #decodeBuffered(): Uint8Array<ArrayBuffer> | null {
    const r = this.#reader;
    const pieces: Uint8Array<ArrayBuffer>[] = [];
    let size = 0;
    for (;;) {
      if (this.#state === "size" || this.#state === "trailer") {
        const view = r.view();
        const eol = indexOfSequence(view, CRLF);
        if (eol < 0) {
          if (view.length > MAX_HEAD_BYTES) throw new Http1ProtocolError("chunk size line too long");
          break;
        }
        const line = latin1(view.subarray(0, eol));
        r.consume(eol + 2);
        if (this.#state === "trailer") {
          if (line === "") {
            this.#state = "done";
            break;
          }
          continue;
        }
        const hex = line.split(";")[0].trim();
        if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) throw new Http1ProtocolError("malformed chunk size");
        this.#remaining = parseInt(hex, 16);
        this.#state = this.#remaining === 0 ? "trailer" : "data";
      } else if (this.#state === "data") {
        const n = Math.min(this.#remaining, r.buffered);
        if (n === 0) break;
        pieces.push(r.take(n));
        size += n;
        this.#remaining -= n;
        if (this.#remaining === 0) this.#state = "crlf";
      } else if (this.#state === "crlf") {
        if (r.buffered < 2) break;
        const view = r.view();
        if (view[0] !== 13 || view[1] !== 10) throw new Http1ProtocolError("missing CRLF after a chunk");
        r.consume(2);
        this.#state = "size";
      } else break;
    }
    if (pieces.length === 0) return null;
    if (pieces.length === 1) return pieces[0];
    return concatBytes(pieces, size);
  }
}
