/**
 * How the service makes its opaque access and refresh tokens and the form it stores them in (docs/auth.md,
 * "Seventh pass"). Every token the service issues — from the code exchange (Better Auth, configured in
 * auth/better_auth/mod.ts), a rotation (refresh_grant.ts) or the device flow — is 40 letters: the first 8
 * its creation time in milliseconds (base 52, in the letters' byte order), the other 32 random, as many as
 * the 32-letter tokens of Better Auth 1.6.23 (182 bits). It is stored as those 8 letters followed by the
 * base64url SHA-256 of the whole token, so the unique `token` indexes of `oauth_access_token` and
 * `oauth_refresh_token` and `svc_grant_token`'s key grow at their right edge: a rotation no longer dirties a
 * random index page for each of them (each written to the log at commit and copied again by the checkpoint).
 * The prefix is the time, never part of the random secret, and the hash covers the whole token.
 *
 * Any other token (the 32-letter tokens issued before this form, or anything else presented) is stored and
 * looked up as its plain base64url SHA-256, as before: the form follows from the token itself, so every
 * lookup path — the service's own and Better Auth's — computes it with {@link storedTokenHash}.
 */
import { sha256Base64url } from "@switchyard/lib/crypto.ts";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Letters of the creation time at the head of an issued token or a sortable id. */
const TIME_LETTERS = 8;
/** Length of the tokens {@link issueOpaqueToken} makes: the time, then 32 random letters. */
export const ISSUED_TOKEN_LENGTH = 40;
const ISSUED_TOKEN = /^[A-Za-z]{40}$/;

/** The letters' character codes, by index. */
const LETTER_CODES = Uint8Array.from(LETTERS, (c) => c.charCodeAt(0));
/**
 * Random bytes drawn a page at a time (one `getRandomValues` per few dozen tokens instead of one per token);
 * each byte is zeroed as it is taken, so the pool never holds a byte that went into a token.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

/** A random string of `length` letters (unbiased: 256 is not a multiple of 52), as 1.6.23 makes tokens. */
export function randomToken(length = 32): string {
  const codes = new Array<number>(length);
  let n = 0;
  while (n < length) {
    if (poolAt === pool.length) {
      crypto.getRandomValues(pool);
      poolAt = 0;
    }
    const byte = pool[poolAt];
    pool[poolAt++] = 0;
    if (byte < 208) codes[n++] = LETTER_CODES[byte % 52];
  }
  return String.fromCharCode(...codes);
}

/** `now` (milliseconds) as 8 letters whose byte order is the time order (up to 52^8 ms, year 3604). */
function timeLetters(now: number): string {
  let time = "";
  for (let rest = Math.floor(now), i = 0; i < TIME_LETTERS; i++, rest = Math.floor(rest / 52)) {
    time = LETTERS[rest % 52] + time;
  }
  return time;
}

/**
 * A row id for a token the service stores: 32 letters like {@link randomToken}'s, the first 8 the creation
 * time in milliseconds, the other 24 random (137 bits). Ids of rows made together sort together, so their
 * primary-key index (and `oauth_access_token.refresh_id`'s) grows at its right edge. An id is never a
 * credential (the stored token is the hash column).
 */
export function sortableId(now = Date.now()): string {
  return timeLetters(now) + randomToken(24);
}

/** A new opaque access or refresh token: 8 letters of creation time, then 32 random letters. */
export function issueOpaqueToken(now = Date.now()): string {
  return timeLetters(now) + randomToken(ISSUED_TOKEN_LENGTH - TIME_LETTERS);
}

/**
 * The stored form of an access or refresh token: for a token {@link issueOpaqueToken} made, its 8 time
 * letters then its base64url SHA-256 (51 characters); for any other token its base64url SHA-256 alone (43),
 * the form Better Auth 1.6.23 stores by default. The two forms never collide (their lengths differ).
 */
export function storedTokenHash(token: string): string {
  const hash = sha256Base64url(token);
  return ISSUED_TOKEN.test(token) ? token.slice(0, TIME_LETTERS) + hash : hash;
}
