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

/**
 * The hash's start, random per process: the table is shared by every request, so pieces that collide must
 * not be computable in advance (with a fixed start, a body of pieces sharing their slot bits — found offline
 * in seconds — made every count 45× slower for every user).
 */
const SEED = crypto.getRandomValues(new Int32Array(1))[0] | 1;

/** Probes a lookup or insertion makes at most: a piece beyond them is not held here (piece_counter.ts keeps it by string). */
export const MAX_PROBES = 32;

/** FNV-1a over `text[start, end)`'s UTF-16 code units, from a per-process random start. */
export function hashOf(text: string, start: number, end: number): number {
  let h = SEED;
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
  /** 32 − log2(slots): a slot is the top bits of the mixed hash (every bit of it counts, not only the low ones). */
  #shift: number;
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
    this.#shift = 32 - Math.log2(initialSlots);
    this.#slots = new Int32Array(initialSlots * STRIDE);
    this.#pool = new Uint16Array(1 << 16);
  }

  #slotOf(hash: number): number {
    return Math.imul(hash, 0x9e3779b1) >>> this.#shift;
  }

  /** Pieces held. */
  get size(): number {
    return this.#size;
  }

  /** The count of `text[start, end)` whose hash is `hash`, or -1 when it is not held. */
  get(text: string, start: number, end: number, hash: number): number {
    const mask = this.#mask, slots = this.#slots, pool = this.#pool;
    const length = end - start;
    for (let slot = this.#slotOf(hash), probes = 0; probes < MAX_PROBES; slot = (slot + 1) & mask, probes++) {
      const at = slot * STRIDE;
      const where = slots[at + 1];
      if (where === 0) return -1;
      if ((where & LENGTH_MASK) !== length || slots[at] !== hash) continue;
      const offset = where >>> LENGTH_BITS;
      let i = 0;
      while (i < length && pool[offset + 1 + i] === text.charCodeAt(start + i)) i++;
      if (i === length) return pool[offset];
    }
    return -1;
  }

  /**
   * Keeps `count` for `text[start, end)` (not held yet, 1 to MAX_PIECE_CHARS long) whose hash is `hash`;
   * false when it is not kept (too long, or its slot's run is MAX_PROBES long).
   */
  set(text: string, start: number, end: number, hash: number, count: number): boolean {
    const length = end - start;
    if (length < 1 || length > MAX_PIECE_CHARS) return false;
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
    if (!this.#insert(hash, offset * (LENGTH_MASK + 1) + length)) return false;
    this.#pool[offset] = count;
    for (let i = 0; i < length; i++) this.#pool[offset + 1 + i] = text.charCodeAt(start + i);
    this.#used += length + 1;
    this.#size++;
    return true;
  }

  /** Forgets every piece (and shrinks back to the initial size). */
  clear(): void {
    this.#mask = this.initialSlots - 1;
    this.#shift = 32 - Math.log2(this.initialSlots);
    this.#slots = new Int32Array(this.initialSlots * STRIDE);
    this.#pool = new Uint16Array(1 << 16);
    this.#used = 0;
    this.#size = 0;
  }

  #restart(): void {
    this.clear();
    this.resets++;
  }

  /** Puts `where` in the first free slot of `hash`'s run; false when none is free within MAX_PROBES. */
  #insert(hash: number, where: number): boolean {
    const mask = this.#mask, slots = this.#slots;
    let slot = this.#slotOf(hash);
    for (let probes = 0; slots[slot * STRIDE + 1] !== 0; probes++) {
      if (probes + 1 >= MAX_PROBES) return false;
      slot = (slot + 1) & mask;
    }
    slots[slot * STRIDE] = hash;
    slots[slot * STRIDE + 1] = where;
    return true;
  }

  #resize(size: number): void {
    const old = this.#slots;
    this.#mask = size - 1;
    this.#shift = 32 - Math.log2(size);
    this.#slots = new Int32Array(size * STRIDE);
    let size_ = 0;
    for (let at = 0; at < old.length; at += STRIDE) {
      // A piece that no longer fits within MAX_PROBES is dropped (a cache: it is merged again if it comes back).
      if (old[at + 1] !== 0 && this.#insert(old[at], old[at + 1])) size_++;
    }
    this.#size = size_;
  }
}
