/**
 * Token counts of pieces of text, looked up by a hash of their char codes in place — no substring is made
 * to look one up. Open addressing with linear probing over one Int32Array of slots (the hash; the offset
 * and length of the piece in a pool of UTF-16 code units, whose first unit is the piece's count), so a probe
 * touches one cache line and a hit one more; every hit is verified character by character against the
 * stored piece, so a hash collision can cost a probe, never a wrong count.
 *
 * Bounded: the table doubles up to `maxSlots` and, once half full at that size (or its pool full), starts
 * over empty (pieces are words and their neighbours: the ones a workload uses come back within a request).
 */

/** Pieces longer than this are not kept (long runs of spaces or punctuation: rare). */
export const MAX_PIECE_CHARS = 256;

/** FNV-1a over `text[start, end)`'s UTF-16 code units. */
export function hashOf(text: string, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** Int32 fields per slot: hash, then offset × 512 + length (0: empty). */
const STRIDE = 2;
const LENGTH_BITS = 9;
const LENGTH_MASK = (1 << LENGTH_BITS) - 1;

/** Counts of pieces keyed by their text, found by (text, start, end, hash). */
export class PieceTable {
  #mask: number;
  #slots: Int32Array;
  #pool: Uint16Array;
  #used = 0;
  #size = 0;
  /** How many times the table started over at its full size. */
  resets = 0;

  constructor(
    readonly initialSlots = 1 << 14,
    readonly maxSlots = 1 << 18,
    /** Pool size at most: offsets must fit 22 bits (offset × 512 + length in an Int32). */
    readonly poolChars = 1 << 22,
  ) {
    this.#mask = initialSlots - 1;
    this.#slots = new Int32Array(initialSlots * STRIDE);
    this.#pool = new Uint16Array(1 << 16);
  }

  /** Pieces held. */
  get size(): number {
    return this.#size;
  }

  /** The count of `text[start, end)` whose hash is `hash`, or -1 when it is not held. */
  get(text: string, start: number, end: number, hash: number): number {
    const mask = this.#mask, slots = this.#slots, pool = this.#pool;
    const length = end - start;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const at = slot * STRIDE;
      const where = slots[at + 1];
      if (where === 0) return -1;
      if ((where & LENGTH_MASK) !== length || slots[at] !== hash) continue;
      const offset = where >>> LENGTH_BITS;
      let i = 0;
      while (i < length && pool[offset + 1 + i] === text.charCodeAt(start + i)) i++;
      if (i === length) return pool[offset];
    }
  }

  /** Keeps `count` for `text[start, end)` (not held yet, 1 to MAX_PIECE_CHARS long) whose hash is `hash`. */
  set(text: string, start: number, end: number, hash: number, count: number): void {
    const length = end - start;
    if (length < 1 || length > MAX_PIECE_CHARS) return;
    if (this.#used + length + 1 > this.#pool.length) {
      if (this.#pool.length >= this.poolChars) this.#restart();
      else {
        const pool = new Uint16Array(Math.min(this.poolChars, this.#pool.length * 2));
        pool.set(this.#pool.subarray(0, this.#used));
        this.#pool = pool;
      }
    }
    if ((this.#size + 1) * 2 > this.#mask + 1) {
      if (this.#mask + 1 < this.maxSlots) this.#resize((this.#mask + 1) * 2);
      else this.#restart();
    }
    const offset = this.#used;
    this.#pool[offset] = count;
    for (let i = 0; i < length; i++) this.#pool[offset + 1 + i] = text.charCodeAt(start + i);
    this.#used += length + 1;
    this.#insert(hash, offset * (LENGTH_MASK + 1) + length);
    this.#size++;
  }

  /** Forgets every piece (and shrinks back to the initial size). */
  clear(): void {
    this.#mask = this.initialSlots - 1;
    this.#slots = new Int32Array(this.initialSlots * STRIDE);
    this.#pool = new Uint16Array(1 << 16);
    this.#used = 0;
    this.#size = 0;
  }

  #restart(): void {
    this.clear();
    this.resets++;
  }

  #insert(hash: number, where: number): void {
    const mask = this.#mask, slots = this.#slots;
    let slot = hash & mask;
    while (slots[slot * STRIDE + 1] !== 0) slot = (slot + 1) & mask;
    slots[slot * STRIDE] = hash;
    slots[slot * STRIDE + 1] = where;
  }

  #resize(size: number): void {
    const old = this.#slots;
    this.#mask = size - 1;
    this.#slots = new Int32Array(size * STRIDE);
    for (let at = 0; at < old.length; at += STRIDE) {
      if (old[at + 1] !== 0) this.#insert(old[at], old[at + 1]);
    }
  }
}
