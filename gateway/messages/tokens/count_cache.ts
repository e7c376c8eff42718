/**
 * Token counts of whole strings, for the strings Claude Code sends again on every call (its system prompt,
 * tools and history). Found by a fingerprint — the string's length, its first and last 16 code units and 32
 * more at evenly spaced places, mixed from a start random per process — and confirmed by comparing the whole
 * string, so a count is exact and a miss costs 64 reads: a Map keyed by the string itself hashed every
 * character of every new string first (≈ 0.1 ms per 20k-token request, which is then counted anyway).
 *
 * Strings that differ only between the sampled places (text from one template, with a different word in the
 * middle) share a fingerprint: they share a bucket of at most BUCKET_SIZE entries, newest first, so they do not evict each
 * other; past that, the oldest of the bucket goes (a cache loss, never a wrong count).
 *
 * LRU by bucket: a hit moves its bucket to the end of the Map's insertion order, and the oldest buckets go
 * first once the characters held or the entries pass their bounds.
 */

/** Characters of cached strings kept, and entries, by default. */
const DEFAULT_MAX_CHARS = 8_000_000;
const DEFAULT_MAX_ENTRIES = 50_000;

/** Code units a fingerprint reads spread over the string, and at each end. */
const SPREAD = 32;
const ENDS = 16;

/** Strings kept per fingerprint at most. */
export const BUCKET_SIZE = 32;

/** The fingerprint's start, random per process (collisions cannot be prepared offline for every gateway). */
const SEED = crypto.getRandomValues(new Int32Array(1))[0];

/** The length, the first and last ENDS code units and SPREAD more spread over `text`, mixed. */
export function fingerprintOf(text: string): number {
  const n = text.length;
  let h = Math.imul(SEED ^ n, 0x9e3779b1);
  const ends = Math.min(ENDS, n);
  for (let i = 0; i < ends; i++) {
    h = Math.imul(h ^ text.charCodeAt(i) ^ (text.charCodeAt(n - 1 - i) << 16), 0x85ebca6b);
  }
  const step = n / SPREAD;
  for (let i = 0; i < SPREAD && n > 2 * ENDS; i++) {
    h = Math.imul(h ^ text.charCodeAt(Math.floor(i * step)), 0x85ebca6b);
    h ^= h >>> 15;
  }
  return h ^ (h >>> 13);
}

/** The strings of one fingerprint and their counts, newest first. */
interface Bucket {
  texts: string[];
  tokens: number[];
  chars: number;
}

/** An LRU of token counts of strings. */
export class CountCache {
  #buckets = new Map<number, Bucket>();
  #chars = 0;
  #entries = 0;
  hits = 0;
  misses = 0;

  constructor(readonly maxChars = DEFAULT_MAX_CHARS, readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /** The count of `text`, from the cache or from `count` (then kept). */
  get(text: string, count: (text: string) => number): number {
    const key = fingerprintOf(text);
    const bucket = this.#buckets.get(key);
    if (bucket !== undefined) {
      const at = bucket.texts.indexOf(text); // compares whole strings (`===`)
      if (at >= 0) {
        this.hits++;
        // Most recently used last: the Map's insertion order is the eviction order.
        this.#buckets.delete(key);
        this.#buckets.set(key, bucket);
        return bucket.tokens[at];
      }
    }
    this.misses++;
    const tokens = count(text);
    if (text.length > this.maxChars) return tokens;
    if (bucket === undefined) {
      this.#buckets.set(key, { texts: [text], tokens: [tokens], chars: text.length });
    } else {
      if (bucket.texts.length >= BUCKET_SIZE) {
        const dropped = bucket.texts.pop()!.length;
        bucket.tokens.pop();
        bucket.chars -= dropped;
        this.#chars -= dropped;
        this.#entries--;
      }
      bucket.texts.unshift(text);
      bucket.tokens.unshift(tokens);
      bucket.chars += text.length;
      this.#buckets.delete(key);
      this.#buckets.set(key, bucket);
    }
    this.#chars += text.length;
    this.#entries++;
    if (this.#chars > this.maxChars || this.#entries > this.maxEntries) this.#evict();
    return tokens;
  }

  /** Drops the least recently used buckets until both bounds hold. */
  #evict(): void {
    for (const [oldest, bucket] of this.#buckets) {
      if (this.#chars <= this.maxChars && this.#entries <= this.maxEntries) break;
      this.#buckets.delete(oldest);
      this.#chars -= bucket.chars;
      this.#entries -= bucket.texts.length;
    }
  }

  /** Entries and characters held. */
  get size(): { entries: number; chars: number } {
    return { entries: this.#entries, chars: this.#chars };
  }

  clear(): void {
    this.#buckets.clear();
    this.#chars = 0;
    this.#entries = 0;
  }
}
