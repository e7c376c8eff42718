/**
 * The pixel size of a base64 image from its header (PNG, JPEG, GIF, WebP), for image token rules that
 * depend on it. Only the first bytes are decoded (a JPEG's frame header may sit after its EXIF data, so up
 * to 256 KB of it); an unknown or truncated header gives undefined.
 */

/** Width and height in pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

const MAX_HEADER_BYTES = 256 * 1024;

function decodeHead(base64: string, bytes: number): Uint8Array | undefined {
  const chars = Math.min(base64.length, Math.ceil(bytes / 3) * 4);
  try {
    const binary = atob(base64.slice(0, chars - (chars % 4)));
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

function png(b: Uint8Array): ImageSize | undefined {
  if (b.length < 24 || b[0] !== 0x89 || b[1] !== 0x50 || b[2] !== 0x4e || b[3] !== 0x47) return undefined;
  const view = new DataView(b.buffer, b.byteOffset);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

function gif(b: Uint8Array): ImageSize | undefined {
  if (b.length < 10 || b[0] !== 0x47 || b[1] !== 0x49 || b[2] !== 0x46) return undefined;
  return { width: b[6] | (b[7] << 8), height: b[8] | (b[9] << 8) };
}

function webp(b: Uint8Array): ImageSize | undefined {
  if (b.length < 30 || String.fromCharCode(...b.subarray(8, 12)) !== "WEBP") return undefined;
  const chunk = String.fromCharCode(...b.subarray(12, 16));
  if (chunk === "VP8X") {
    return {
      width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)),
      height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)),
    };
  }
  if (chunk === "VP8 ") {
    return { width: (b[26] | (b[27] << 8)) & 0x3fff, height: (b[28] | (b[29] << 8)) & 0x3fff };
  }
  if (chunk === "VP8L") {
    const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  return undefined;
}

function jpeg(b: Uint8Array): ImageSize | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = (b[at + 2] << 8) | b[at + 3];
    // Start-of-frame markers (baseline, progressive, …), not DHT (C4), JPG (C8) or DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (b[at + 5] << 8) | b[at + 6], width: (b[at + 7] << 8) | b[at + 8] };
    }
    at += 2 + length;
  }
  return undefined;
}

/** The size of a base64-encoded image, or undefined when its header is not recognised. */
export function imageSizeOf(base64: string): ImageSize | undefined {
  const head = decodeHead(base64, 64);
  if (!head) return undefined;
  const size = png(head) ?? gif(head) ?? webp(head) ??
    (head[0] === 0xff && head[1] === 0xd8 ? jpeg(decodeHead(base64, MAX_HEADER_BYTES) ?? head) : undefined);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}
