/**
 * Reads GitHub's log and artifact archives with `fflate`, behind our own checks: safe relative paths only,
 * a cap on the total uncompressed size, and a ratio no real deflate stream reaches — all decided from the
 * central directory before a byte is inflated.
 */
import { type UnzipFileInfo, unzipSync } from "fflate";

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
 * The most a deflate stream can expand (a 258-byte match per ~2 bits gives ~1032:1). An archive whose
 * entries declare more than this times its own size is lying about sizes or reuses one compressed stream
 * for many entries (an overlapping-entry bomb); either way it is refused.
 */
export const MAX_EXPANSION_RATIO = 1032;

/**
 * Reads every file entry (directories skipped). Throws an Error whose message names the zip archive on a
 * malformed, truncated or undecodable archive, an unsafe path, an unsupported method, contents declared
 * larger than `maxBytes` uncompressed, or a declared expansion past {@link MAX_EXPANSION_RATIO} (callers
 * report those as warnings). Each entry is inflated into a buffer of its declared size, so an entry that
 * inflates to more than it declared cannot grow memory past the checked total.
 */
export function readZip(bytes: Uint8Array, maxBytes = DEFAULT_MAX_UNCOMPRESSED_BYTES): ZipEntry[] {
  const sizes = new Map<string, number>();
  let declared = 0;
  const admit = (file: UnzipFileInfo): boolean => {
    const name = file.name.replace(/\\/g, "/");
    if (name === "") throw new Error("corrupt zip central directory (an entry without a name)");
    if (name.endsWith("/")) return false;
    if (name.startsWith("/") || name.split("/").includes("..") || /^[A-Za-z]:/.test(name)) {
      throw new Error(`unsafe path in zip archive: ${name}`);
    }
    if (file.compression !== 0 && file.compression !== 8) {
      throw new Error(`unsupported zip compression method ${file.compression} for ${name}`);
    }
    declared += Math.max(file.originalSize, file.size);
    if (declared > maxBytes) {
      throw new Error(`zip archive inflates to more than ${maxBytes} bytes; refusing to extract it`);
    }
    if (declared > bytes.length * MAX_EXPANSION_RATIO) {
      throw new Error(
        `zip archive declares ${declared} bytes from ${bytes.length}, more than deflate can expand; refusing it`,
      );
    }
    sizes.set(file.name, file.compression === 0 ? file.size : file.originalSize);
    return true;
  };
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: admit });
  } catch (error) {
    // fflate reports bad data, and offsets past the end (a truncated download), with its own messages.
    if (error instanceof Error && /zip/.test(error.message)) {
      if (error.message === "invalid zip data") {
        throw new Error("not a zip archive (no end of central directory)");
      }
      throw error;
    }
    throw new Error(`corrupt zip archive: ${(error as Error).message}`);
  }
  const entries: ZipEntry[] = [];
  for (const [name, size] of sizes) {
    const data = Object.hasOwn(files, name) ? files[name] : undefined;
    if (data?.length !== size) {
      throw new Error(`corrupt zip archive: ${name} holds fewer bytes than it declares`);
    }
    entries.push({ name: name.replace(/\\/g, "/"), data });
  }
  return entries;
}

/** Extracts an archive under `dir`; returns the written relative paths. */
export async function extractZip(bytes: Uint8Array, dir: string): Promise<string[]> {
  const written: string[] = [];
  for (const entry of readZip(bytes)) {
    const path = `${dir}/${entry.name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeFile(path, entry.data);
    written.push(entry.name);
  }
  return written;
}
