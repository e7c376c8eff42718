/** A small ZIP reader (stored and deflated entries) for GitHub's log and artifact archives. */

/** One file of an archive. */
export interface ZipEntry {
  /** Path inside the archive (forward slashes). */
  name: string;
  /** Uncompressed bytes. */
  data: Uint8Array;
}

/**
 * Default cap on the uncompressed size of one archive. Run logs and artifacts are megabytes; a cap well above
 * that stops a zip bomb (tiny download, gigabytes inflated) from exhausting memory or disk.
 */
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024;

/**
 * Reads every file entry (directories skipped). Throws an Error whose message names the zip archive on a
 * malformed, truncated or undecodable archive, an unsafe path, or contents larger than `maxBytes`
 * uncompressed (callers report those as warnings).
 */
export async function readZip(
  bytes: Uint8Array,
  maxBytes = DEFAULT_MAX_UNCOMPRESSED_BYTES,
): Promise<ZipEntry[]> {
  try {
    return await parseZip(bytes, maxBytes);
  } catch (error) {
    // Offsets past the end (a truncated download) and bad deflate data surface as RangeError/TypeError.
    if (error instanceof Error && /zip/.test(error.message)) throw error;
    throw new Error(`corrupt zip archive: ${(error as Error).message}`);
  }
}

async function parseZip(bytes: Uint8Array, maxBytes: number): Promise<ZipEntry[]> {
  let budget = maxBytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 65_557); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error("not a zip archive (no end of central directory)");
  const count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  const entries: ZipEntry[] = [];
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (view.getUint32(offset, true) !== 0x02014b50) throw new Error("corrupt zip central directory");
    const method = view.getUint16(offset + 10, true);
    const compressedSize = view.getUint32(offset + 20, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const localOffset = view.getUint32(offset + 42, true);
    const name = decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength)).replace(/\\/g, "/");
    offset += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith("/")) continue;
    if (name.startsWith("/") || name.split("/").includes("..") || /^[A-Za-z]:/.test(name)) {
      throw new Error(`unsafe path in zip archive: ${name}`);
    }
    if (view.getUint32(localOffset, true) !== 0x04034b50) throw new Error("corrupt zip local header");
    const start = localOffset + 30 + view.getUint16(localOffset + 26, true) +
      view.getUint16(localOffset + 28, true);
    const raw = bytes.subarray(start, start + compressedSize);
    let data: Uint8Array;
    if (method === 0) data = raw.slice();
    else if (method === 8) data = await inflate(raw, budget, name);
    else throw new Error(`unsupported zip compression method ${method} for ${name}`);
    budget -= data.length;
    if (budget < 0) throw tooLarge(maxBytes);
    entries.push({ name, data });
  }
  return entries;
}

function tooLarge(maxBytes: number): Error {
  return new Error(`zip archive inflates to more than ${maxBytes} bytes; refusing to extract it`);
}

/** Inflates one entry, stopping as soon as it exceeds `budget` bytes (the declared size may lie). */
async function inflate(raw: Uint8Array, budget: number, name: string): Promise<Uint8Array> {
  const stream = new Blob([raw as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("deflate-raw"),
  );
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > budget) throw new Error(`zip entry ${name} inflates past the archive size limit; refusing it`);
    chunks.push(chunk);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Extracts an archive under `dir`; returns the written relative paths. */
export async function extractZip(bytes: Uint8Array, dir: string): Promise<string[]> {
  const written: string[] = [];
  for (const entry of await readZip(bytes)) {
    const path = `${dir}/${entry.name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(path, entry.data);
    written.push(entry.name);
  }
  return written;
}
