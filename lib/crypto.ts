/**
 * The one home of the suite's small cryptographic primitives: SHA-256 as hex or base64url, HMAC-SHA256,
 * base64url and a timing-safe comparison. Each has exactly one implementation, here; services import these instead of
 * writing their own.
 *
 * No dependency: SHA-256, HMAC and the comparison from `node:crypto` (synchronous — the gateway hashes the
 * presented API key on every request and the compiler derives heredoc delimiters inside synchronous planners,
 * so Web Crypto's promise-only `digest`/`sign` do not fit), except a string's SHA-256 as hex or base64url:
 * _sha256.ts, the gateway's per-request key hash (≈ 3–5 µs less than `node:crypto` per request at c=1;
 * docs/gateway.md, "The c=1 gap, leg by leg") and the auth service's four token and secret hashes per refresh
 * (docs/auth.md, "Ninth pass"), base64url from `Uint8Array.prototype.toBase64` (ES2026). bench/sha256_bench.ts
 * and docs/gateway.md ("Keys") record why `@noble/hashes` is not used.
 */
import { createHash, createHmac, timingSafeEqual as nodeTimingSafeEqual } from "node:crypto";
import { sha256Base64urlOfText, sha256HexOfText } from "./_sha256.ts";

const encoder = new TextEncoder();

function toBytes(input: string | Uint8Array): Uint8Array {
  return typeof input === "string" ? encoder.encode(input) : input;
}

/**
 * Lowercase hex SHA-256 of `input` (a string is hashed as its UTF-8 bytes). A string goes through the int32
 * implementation of _sha256.ts (the gateway's per-request key hash: fewer µs at c=1 than `node:crypto`).
 */
export function sha256Hex(input: string | Uint8Array): string {
  return typeof input === "string"
    ? sha256HexOfText(input)
    : createHash("sha256").update(input).digest("hex");
}

/**
 * base64url (no padding) SHA-256 of `input` (a string as its UTF-8 bytes): the form OAuth stores token hashes
 * in (Better Auth's stored secrets, codes and tokens) and PKCE's S256 challenge (RFC 7636 §4.2). A string goes
 * through _sha256.ts, as for `sha256Hex`.
 */
export function sha256Base64url(input: string | Uint8Array): string {
  return typeof input === "string"
    ? sha256Base64urlOfText(input)
    : createHash("sha256").update(input).digest("base64url");
}

/** HMAC-SHA256 (RFC 2104) of `data` under `key` (strings as UTF-8), the 32-byte tag. */
export function hmacSha256(key: string | Uint8Array, data: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHmac("sha256", key).update(data).digest());
}

/** Lowercase hex HMAC-SHA256 of `data` under `key` (strings as UTF-8). */
export function hmacSha256Hex(key: string | Uint8Array, data: string | Uint8Array): string {
  return createHmac("sha256", key).update(data).digest("hex");
}

/** base64url without padding (RFC 4648 §5) of `input` (a string as its UTF-8 bytes). */
export function base64urlEncode(input: string | Uint8Array): string {
  return toBytes(input).toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * The bytes of base64url text (padding optional); undefined when `text` is not base64url (standard-alphabet
 * `+`/`/`, whitespace or stray characters), so callers treat it as any other bad input.
 */
export function base64urlDecode(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return undefined;
  try {
    return Uint8Array.fromBase64(text, { alphabet: "base64url", lastChunkHandling: "loose" });
  } catch {
    return undefined;
  }
}

/**
 * Whether `a` and `b` hold the same bytes (strings as UTF-8), in time independent of where they differ.
 * Lengths are compared first (a length is not a secret for MACs and hashes of fixed size).
 */
export function timingSafeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const left = toBytes(a);
  const right = toBytes(b);
  if (left.length !== right.length) return false;
  return nodeTimingSafeEqual(left, right);
}
