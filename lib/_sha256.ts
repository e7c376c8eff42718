/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes as lowercase hex or base64url, synchronously, for
 * lib/crypto.ts's `sha256Hex` and `sha256Base64url` (the only importer): int32 arithmetic throughout (V8 keeps every value unboxed) and, for short
 * ASCII input such as an API key, no allocation. Why not `node:crypto` for this one case: the gateway hashes the
 * presented key on every request, and at c=1 (one request at a time, caches cold between requests) CPU
 * profiles put `createHash().update().digest()` (a `Hash` stream object and three native calls) at ≈ 4–8 µs per
 * request against ≈ 1.5–2.5 µs for this (docs/gateway.md, "The c=1 gap, leg by leg"); hot, in a loop, the two
 * differ by under 1 µs. lib/crypto_test.ts checks both against Web Crypto for every length around the block
 * boundaries and for non-ASCII text.
 */

const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = [
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
];

const encoder = new TextEncoder();
const W = new Int32Array(64);
const H = new Int32Array(8);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function compress(block: Uint8Array, offset: number): void {
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    W[i] = (block[j] << 24) | (block[j + 1] << 16) | (block[j + 2] << 8) | block[j + 3];
  }
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15];
    const w2 = W[i - 2];
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0] + a) | 0;
  H[1] = (H[1] + b) | 0;
  H[2] = (H[2] + c) | 0;
  H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0;
  H[5] = (H[5] + f) | 0;
  H[6] = (H[6] + g) | 0;
  H[7] = (H[7] + h) | 0;
}

/** Reused for short ASCII input (API keys): no allocation on the hot path. */
const SHORT = new Uint8Array(128);

/** The message padded to whole 64-byte blocks (FIPS 180-4 §5.1.1), and its padded length. */
function pad(text: string): [Uint8Array, number] {
  let ascii = text.length + 9 <= SHORT.length;
  for (let i = 0; ascii && i < text.length; i++) if (text.charCodeAt(i) > 0x7f) ascii = false;
  let buffer: Uint8Array;
  let length: number;
  if (ascii) {
    buffer = SHORT;
    buffer.fill(0);
    length = text.length;
    for (let i = 0; i < length; i++) buffer[i] = text.charCodeAt(i);
  } else {
    const data = encoder.encode(text);
    length = data.length;
    buffer = new Uint8Array(length + 72);
    buffer.set(data);
  }
  const end = (((length + 8) >> 6) + 1) << 6;
  buffer[length] = 0x80;
  const bits = length * 8;
  buffer[end - 5] = Math.floor(bits / 2 ** 32) & 0xff; // lengths below 2^40 bits
  buffer[end - 4] = (bits >>> 24) & 0xff;
  buffer[end - 3] = (bits >>> 16) & 0xff;
  buffer[end - 2] = (bits >>> 8) & 0xff;
  buffer[end - 1] = bits & 0xff;
  return [buffer, end];
}

/** Leaves the SHA-256 of the UTF-8 encoding of `text` in H. */
function digestText(text: string): void {
  const [padded, end] = pad(text);
  H.set(INITIAL);
  for (let offset = 0; offset < end; offset += 64) compress(padded, offset);
}

const DIGEST = new Uint8Array(32);

/** base64url (no padding) SHA-256 of the UTF-8 encoding of `text`. */
export function sha256Base64urlOfText(text: string): string {
  digestText(text);
  for (let i = 0; i < 8; i++) {
    const v = H[i];
    DIGEST[i * 4] = v >>> 24;
    DIGEST[i * 4 + 1] = v >>> 16;
    DIGEST[i * 4 + 2] = v >>> 8;
    DIGEST[i * 4 + 3] = v;
  }
  return DIGEST.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text`. */
export function sha256HexOfText(text: string): string {
  digestText(text);
  let hex = "";
  for (let i = 0; i < 8; i++) {
    const v = H[i];
    hex += HEX[v >>> 24] + HEX[(v >>> 16) & 0xff] + HEX[(v >>> 8) & 0xff] + HEX[v & 0xff];
  }
  return hex;
}
