/** Byte helpers shared by the services. */

/** `parts` joined into one array of `size` bytes (their total length, which callers have already counted). */
export function concatBytes(parts: readonly Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
