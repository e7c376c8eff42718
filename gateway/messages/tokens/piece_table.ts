/**
 * Token counts of pieces of text, looked up by a hash of their char codes in place — no substring is made
 * to look one up. Open addressing with linear probing over one Int32Array of slots of four fields: the hash;
 * the piece's count and length; the piece itself when it is short ASCII (packed, see `PACKED_CHARS`), else
 * -1 and its offset in a pool of UTF-16 code units. So a probe touches one cache line, and a hit on a short
 * piece (90% of them in prose and code) is verified by two compares of the packed piece the scanner built
 * as it went; a longer one is verified character by character against the pool. A hash collision can cost
 * a probe, never a wrong count.
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
export const SEED = crypto.getRandomValues(new Int32Array(1))[0] | 1;

/** Probes a lookup or insertion makes at most: a piece beyond them is not held here (piece_counter.ts keeps it by string). */
export const MAX_PROBES = 32;

/** Called as `charCodeAt.call(text, i)`: texts of every kind of string pass here (see scan_count.ts). */
const charCodeAt = String.prototype.charCodeAt;

/** FNV-1a's 32-bit prime. */
export const FNV_PRIME = 0x01000193;

/** FNV-1a over `text[start, end)`'s UTF-16 code units, from a per-process random start. */
export function hashOf(text: string, start: number, end: number): number {
  let h = SEED;
  for (let i = start; i < end; i++) h = Math.imul(h ^ charCodeAt.call(text, i), FNV_PRIME);
  return h;
}

/** Int32 fields per slot: hash; count × 512 + length (0: empty); low and high packed units, or -1 and offset. */
const STRIDE = 4;
const LENGTH_BITS = 9;
const LENGTH_MASK = (1 << LENGTH_BITS) - 1;

/**
 * Pieces of at most this many code units, all ASCII, are held packed in their slot, one byte per unit (the
 * last unit lowest): `lo` the last four, `hi` the four before. With the length that is the piece itself, so
 * checking a hit is two compares instead of a loop over the pool (a loop whose exit mispredicts as often as
 * the scan's own). No packed piece has -1 as `lo` (its top byte is below 128).
 */
export const PACKED_CHARS = 8;
/** `lo` of a piece that is not packed. */
export const NOT_PACKED = -1;

/** `lo` of `text[start, end)` packed, or NOT_PACKED. */
export function packedLo(text: string, start: number, end: number): number {
  if (end - start > PACKED_CHARS) return NOT_PACKED;
  let lo = 0;
  for (let i = start; i < end; i++) {
    const c = charCodeAt.call(text, i);
    if (c >= 128) return NOT_PACKED;
    lo = (lo << 8) | c;
  }
  return lo;
}

/** `hi` of `text[start, end)` packed (its units before the last four), when `packedLo` is not NOT_PACKED. */
export function packedHi(text: string, start: number, end: number): number {
  let hi = 0;
  for (let i = start; i < end - 4; i++) hi = (hi << 8) | charCodeAt.call(text, i);
  return hi;
}

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
    /** Pool size at most (code units of the pieces that are not packed). */
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
    const lo = packedLo(text, start, end);
    return this.find(text, start, end, hash, lo, lo === NOT_PACKED ? 0 : packedHi(text, start, end));
  }

  /**
   * `get` for a caller that packed the piece as it scanned it: `lo` and `hi` as `packedLo` and `packedHi`
   * give them (`hi` is not read when `lo` is NOT_PACKED).
   */
  find(text: string, start: number, end: number, hash: number, lo: number, hi: number): number {
    const slots = this.#slots;
    const length = end - start;
    const first = this.#slotOf(hash) * STRIDE;
    const info = slots[first + 1];
    // Most lookups are a short piece held in its first slot: one branch for it (rarely mispredicted), not one
    // per field compared.
    const differs = (slots[first] ^ hash) | (slots[first + 2] ^ lo) | (slots[first + 3] ^ hi) |
      ((info ^ length) & LENGTH_MASK);
    if (differs === 0 && lo !== NOT_PACKED) return info >>> LENGTH_BITS;
    return this.#probe(text, start, end, hash, lo, hi);
  }

  #probe(text: string, start: number, end: number, hash: number, lo: number, hi: number): number {
    const mask = this.#mask, slots = this.#slots;
    const length = end - start;
    for (let slot = this.#slotOf(hash), probes = 0; probes < MAX_PROBES; slot = (slot + 1) & mask, probes++) {
      const at = slot * STRIDE;
      const info = slots[at + 1];
      if (info === 0) return -1;
      if ((info & LENGTH_MASK) !== length || slots[at] !== hash || slots[at + 2] !== lo) continue;
      if (lo !== NOT_PACKED) {
        if (slots[at + 3] === hi) return info >>> LENGTH_BITS;
        continue;
      }
      const pool = this.#pool, offset = slots[at + 3];
      let i = 0;
      while (i < length && pool[offset + i] === charCodeAt.call(text, start + i)) i++;
      if (i === length) return info >>> LENGTH_BITS;
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
    if ((this.#size + 1) * 2 > this.#mask + 1) {
      if (this.#mask + 1 < this.maxSlots) this.#resize((this.#mask + 1) * 2);
      else this.#restart();
    }
    const lo = packedLo(text, start, end);
    if (lo !== NOT_PACKED) {
      if (!this.#insert(hash, count * (LENGTH_MASK + 1) + length, lo, packedHi(text, start, end))) {
        return false;
      }
    } else {
      if (this.#used + length > this.#pool.length) {
        if (this.#pool.length >= this.poolChars) this.#restart();
        else {
          const pool = new Uint16Array(Math.min(this.poolChars, this.#pool.length * 2));
          pool.set(this.#pool.subarray(0, this.#used));
          this.#pool = pool;
        }
      }
      const offset = this.#used;
      if (!this.#insert(hash, count * (LENGTH_MASK + 1) + length, NOT_PACKED, offset)) return false;
      for (let i = 0; i < length; i++) this.#pool[offset + i] = charCodeAt.call(text, start + i);
      this.#used += length;
    }
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

  /** Puts a slot's fields in the first free slot of `hash`'s run; false when none is free within MAX_PROBES. */
  #insert(hash: number, info: number, lo: number, hi: number): boolean {
    const mask = this.#mask, slots = this.#slots;
    let slot = this.#slotOf(hash);
    for (let probes = 0; slots[slot * STRIDE + 1] !== 0; probes++) {
      if (probes + 1 >= MAX_PROBES) return false;
      slot = (slot + 1) & mask;
    }
    slots[slot * STRIDE] = hash;
    slots[slot * STRIDE + 1] = info;
    slots[slot * STRIDE + 2] = lo;
    slots[slot * STRIDE + 3] = hi;
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
      if (old[at + 1] !== 0 && this.#insert(old[at], old[at + 1], old[at + 2], old[at + 3])) size_++;
    }
    this.#size = size_;
  }
}
