/**
 * The ranks of a vocabulary's ASCII tokens, looked up by a span of a string in place: the byte-pair merge of a
 * piece never seen ranks a new span at each step, and a Map keyed by strings needed a substring per lookup and
 * hashed it (56% of a new word's merge in a profile). Open addressing with linear probing over one Int32Array
 * (hash, offset × 256 + length, rank per slot) and a pool of the tokens' bytes; a hit is verified byte by
 * byte, so a collision costs a probe, never a wrong rank. Built once per vocabulary; read-only after that, so
 * text cannot lengthen its probe runs.
 */

const STRIDE = 3;
const LENGTH_BITS = 8;
/** ASCII tokens longer than this are left out (none in o200k_base or cl100k_base comes close). */
const MAX_TOKEN_CHARS = (1 << LENGTH_BITS) - 1;

/** FNV-1a over `text[start, end)`'s code units. */
function hashOf(text: string, start: number, end: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** Ranks of ASCII tokens by their text. */
export class AsciiRanks {
  readonly #slots: Int32Array;
  readonly #mask: number;
  /** 32 − log2(slots): a slot is the top bits of the mixed hash. */
  readonly #shift: number;
  readonly #pool: Uint8Array;
  /** Tokens held. */
  readonly size: number;

  /** The ASCII tokens of `ranks` (token text → rank). */
  constructor(ranks: Map<string, number>) {
    const tokens: Array<[string, number]> = [];
    let chars = 0;
    for (const [token, rank] of ranks) {
      if (token.length === 0 || token.length > MAX_TOKEN_CHARS || !isAscii(token)) continue;
      tokens.push([token, rank]);
      chars += token.length;
    }
    let slots = 1 << 10;
    while (slots < tokens.length * 2) slots *= 2;
    this.#mask = slots - 1;
    this.#shift = 32 - Math.log2(slots);
    this.#slots = new Int32Array(slots * STRIDE);
    this.#pool = new Uint8Array(chars);
    let offset = 0;
    for (const [token, rank] of tokens) {
      const hash = hashOf(token, 0, token.length);
      let slot = this.#slotOf(hash);
      while (this.#slots[slot * STRIDE + 1] !== 0) slot = (slot + 1) & this.#mask;
      this.#slots[slot * STRIDE] = hash;
      this.#slots[slot * STRIDE + 1] = offset * (1 << LENGTH_BITS) + token.length;
      this.#slots[slot * STRIDE + 2] = rank;
      for (let i = 0; i < token.length; i++) this.#pool[offset + i] = token.charCodeAt(i);
      offset += token.length;
    }
    this.size = tokens.length;
  }

  #slotOf(hash: number): number {
    return Math.imul(hash, 0x9e3779b1) >>> this.#shift;
  }

  /** The rank of the token `text[start, end)` (ASCII), or -1 when it is none. */
  rankOf(text: string, start: number, end: number): number {
    const length = end - start;
    if (length < 1 || length > MAX_TOKEN_CHARS) return -1;
    const hash = hashOf(text, start, end);
    const slots = this.#slots, pool = this.#pool, mask = this.#mask;
    for (let slot = this.#slotOf(hash);; slot = (slot + 1) & mask) {
      const at = slot * STRIDE;
      const where = slots[at + 1];
      if (where === 0) return -1;
      if ((where & MAX_TOKEN_CHARS) !== length || slots[at] !== hash) continue;
      const offset = where >>> LENGTH_BITS;
      let i = 0;
      while (i < length && pool[offset + i] === text.charCodeAt(start + i)) i++;
      if (i === length) return slots[at + 2];
    }
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 128) return false;
  return true;
}

const tables = new WeakMap<Map<string, number>, AsciiRanks>();

/** The AsciiRanks of `ranks`, built on first use. */
export function asciiRanksOf(ranks: Map<string, number>): AsciiRanks {
  let table = tables.get(ranks);
  if (!table) tables.set(ranks, table = new AsciiRanks(ranks));
  return table;
}
