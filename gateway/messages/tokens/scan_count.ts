/**
 * The counting loops of piece_counter.ts, one per encoding: each piece is found, hashed, packed and looked up
 * in one pass over its characters — split_scan.ts's rules inlined, the hash (piece_table.ts's FNV-1a) and the
 * packed form built as the scan reads each unit, so nothing reads the piece again unless it is long or new.
 *
 * Why one loop per encoding, not one with a flag: V8 does not fold a closure's constant, and the shared loop
 * measured 10% slower than these (the flag's tests sit in the per-character loops). Why the word and
 * punctuation rules are written out here rather than called: the calls were the scan's largest cost after the
 * lookups (V8 inlines only some of them, by budget). The split stays exactly split_scan.ts's (the tests
 * compare both with the regex and the counts with tiktoken's): any character that needs the regex sends the
 * piece to it, as there.
 */
import * as table from "./piece_table.ts";
import type { PieceTable } from "./piece_table.ts";
import * as split from "./split_scan.ts";
import { contractionEnd, nonWordEnd } from "./split_scan.ts";

/*
 * The constants the loops read, as this module's own: V8 folds a module's own `const` into the code, but
 * loads an imported binding from its cell at each use (in the per-character loops: the scan measured 8% slower
 * with these imported). Their values are the other modules' (scan_count_test.ts checks each).
 */
const LOWER = 1, UPPER = 2, DIGIT = 3, NEWLINE = 4, SPACE = 5, OTHER = 6, REGEX = 7;
const NEEDS_REGEX = -1, APOSTROPHE = 39;
const FNV_PRIME = 0x01000193, PACKED_CHARS = 8, NOT_PACKED = -1;
const CLASS = split.CLASS, SEED = table.SEED;

/**
 * `String.prototype.charCodeAt`, called as `charCodeAt.call(text, i)`: `text.charCodeAt` is a property lookup
 * on the string's map, and texts come flat, concatenated, sliced, internalized, one- or two-byte — past four
 * maps the lookup is megamorphic and the optimized loop calls the method instead of reading the character
 * (after such texts the loop measured 2× slower). Called on the function itself, V8 inlines the read for
 * every kind of string.
 */
const charCodeAt = String.prototype.charCodeAt;

/**
 * UPPER and LOWER are exactly A-Z and a-z (split_scan.ts leaves every other letter to the regex), so the letter
 * loops test a range instead of loading each character's class (2–3% of the loop); scan_count_test.ts checks
 * the classes still are these ranges.
 */
export const LETTER_RANGES = { UPPER: [65, 90], LOWER: [97, 122] } as const;

/** The constants above, for the test that they are the other modules'. */
export const LOCAL_CONSTANTS = {
  LOWER,
  UPPER,
  DIGIT,
  NEWLINE,
  SPACE,
  OTHER,
  REGEX,
  NEEDS_REGEX,
  APOSTROPHE,
  FNV_PRIME,
  PACKED_CHARS,
  NOT_PACKED,
  CLASS,
  SEED,
};

/** What a loop needs from the counter. */
export interface CountSteps {
  pieces: PieceTable;
  /** Counts of the two-character ASCII pieces (1: the pair is a token, else 2), by 128 × first + second. */
  twoChars: Uint8Array | undefined;
  /** Counts the piece the split regex finds at `p`, returns its end; its count is then `counted`. */
  regexPiece(text: string, p: number): number;
  /** The count of the piece `regexPiece` found last. */
  readonly counted: number;
  /** The count of `text[p, end)` (hash `hash`) that `pieces` does not hold: kept by string, or merged. */
  unknownPiece(text: string, p: number, end: number, hash: number): number;
}

/** The end of ` ?[^\s\p{L}\p{N}]+` then `[\r\n]*` (`[\r\n/]*` with `slash`) whose first "other" is at `o`. */
function otherRunEnd(text: string, o: number, n: number, slash: boolean): number {
  let c = 0;
  for (o++; o < n; o++) {
    c = charCodeAt.call(text, o);
    if (CLASS[c] !== OTHER) break;
  }
  for (; o < n; o++) {
    c = charCodeAt.call(text, o);
    if (c !== 10 && c !== 13 && !(slash && c === 47)) break;
  }
  // A character the scanner does not know may be punctuation to the regex: it decides.
  return o < n && CLASS[c] === REGEX ? NEEDS_REGEX : o;
}

/** Where a scan stopped: `p` and `tokens` so far, and the piece it could not count (see `Stop`). */
interface Scan {
  p: number;
  tokens: number;
  end: number;
  hash: number;
}

/** Why a scan returned: the text is counted; the piece at `p` needs the regex; `[p, end)` is not held. */
const DONE = 0, NEEDS_SPLIT_REGEX = 1, UNKNOWN = 2;

/**
 * `count(text)` from a scan that returns to it at the pieces it cannot count itself (the regex's, and pieces
 * not held), so the loop holds none of their code: V8 otherwise inlines the merge path into it, and the hot
 * loop pays for the registers that cold code takes.
 */
function counter(
  steps: CountSteps,
  scan: (text: string, p: number, tokens: number, at: Scan) => number,
): (text: string) => number {
  const at: Scan = { p: 0, tokens: 0, end: 0, hash: 0 };
  return (text: string) => {
    let p = 0, tokens = 0;
    for (;;) {
      const stop = scan(text, p, tokens, at);
      tokens = at.tokens;
      if (stop === DONE) return tokens;
      if (stop === NEEDS_SPLIT_REGEX) {
        p = steps.regexPiece(text, at.p);
        tokens += steps.counted;
      } else {
        tokens += steps.unknownPiece(text, at.p, at.end, at.hash);
        p = at.end;
      }
    }
  };
}

/**
 * The end of a run of whitespace at `p` (split_scan.ts's `spaceEnd`, here so that it is inlined):
 * `\s*[\r\n]+` to the last newline, else `\s+(?!\S)` (the run but its last space, unless at the end), else
 * `\s`; `trailingRunWhole`: cl100k's `\s+$` first.
 */
function whitespaceEnd(text: string, p: number, n: number, trailingRunWhole: boolean): number {
  let last = -1;
  let o = p;
  for (; o < n; o++) {
    const k = CLASS[charCodeAt.call(text, o)];
    if (k === NEWLINE) last = o;
    else if (k !== SPACE) {
      if (k === REGEX) return NEEDS_REGEX;
      break;
    }
  }
  if (trailingRunWhole && o === n) return n;
  if (last >= 0) return last + 1;
  if (o === n) return n;
  return o - p >= 2 ? o - 1 : p + 1;
}

/** Returns `why` with the scan's state in `at`. */
function stop(at: Scan, why: number, p: number, tokens: number, end: number, hash: number): number {
  at.p = p;
  at.tokens = tokens;
  at.end = end;
  at.hash = hash;
  return why;
}

/** `count(text)` for `o200k_base` (split_scan.ts's `o200kPieceEnd`). */
export function o200kCount(steps: CountSteps): (text: string) => number {
  const { pieces, twoChars } = steps;
  return counter(steps, function scan(text: string, p: number, tokens: number, at: Scan): number {
    const n = text.length;
    while (p < n) {
      const c0 = charCodeAt.call(text, p);
      let k = CLASS[c0];
      let h = SEED, lo = 0, hi = 0, wide = 0;
      let i = p;
      if (k > UPPER) {
        if (k === REGEX) {
          return stop(at, NEEDS_SPLIT_REGEX, p, tokens, 0, 0);
        }
        if ((k === SPACE || k === OTHER) && p + 1 < n) {
          const kn = CLASS[charCodeAt.call(text, p + 1)];
          if (kn <= UPPER) {
            // `[^\r\n\p{L}\p{N}]` before a letter is the word's.
            h = Math.imul(h ^ c0, FNV_PRIME);
            lo = wide = c0;
            i = p + 1;
            k = kn;
          } else if (kn === REGEX) {
            return stop(at, NEEDS_SPLIT_REGEX, p, tokens, 0, 0);
          }
        }
      }
      let end: number;
      if (k <= UPPER) {
        // Upper case then lower case (in ASCII the classes are apart), hashed and packed as they are read.
        let c = 0;
        for (; i < n; i++) {
          c = charCodeAt.call(text, i);
          if (c - 65 >>> 0 >= 26) break; // not A-Z (see LETTER_RANGES)
          h = Math.imul(h ^ c, FNV_PRIME);
          hi = (hi << 8) | (lo >>> 24);
          lo = (lo << 8) | c;
        }
        for (; i < n; i++) {
          c = charCodeAt.call(text, i);
          if (c - 97 >>> 0 >= 26) break; // not a-z
          h = Math.imul(h ^ c, FNV_PRIME);
          hi = (hi << 8) | (lo >>> 24);
          lo = (lo << 8) | c;
        }
        end = i;
        if (i < n) {
          if (CLASS[c] === REGEX) return stop(at, NEEDS_SPLIT_REGEX, p, tokens, 0, 0);
          if (c === APOSTROPHE) {
            end = contractionEnd(text, i, n);
            if (end === NEEDS_REGEX) return stop(at, NEEDS_SPLIT_REGEX, p, tokens, 0, 0);
            for (; i < end; i++) {
              c = charCodeAt.call(text, i);
              h = Math.imul(h ^ c, FNV_PRIME);
              hi = (hi << 8) | (lo >>> 24);
              lo = (lo << 8) | c;
            }
          }
        }
      } else {
        const other = k === OTHER
          ? p
          : c0 === 32 && p + 1 < n && CLASS[charCodeAt.call(text, p + 1)] === OTHER
          ? p + 1
          : -1;
        end = other >= 0
          ? otherRunEnd(text, other, n, true)
          : k === DIGIT
          ? nonWordEnd(text, p, n, k, true, false)
          : whitespaceEnd(text, p, n, false);
        if (end === NEEDS_REGEX) return stop(at, NEEDS_SPLIT_REGEX, p, tokens, 0, 0);
        const length = end - p;
        if (length === 1 && c0 < 128) {
          tokens++; // every byte is a token
          p = end;
          continue;
        }
        if (length === 2 && twoChars && (c0 | charCodeAt.call(text, p + 1)) < 128) {
          tokens += twoChars[c0 * 128 + charCodeAt.call(text, p + 1)]; // one token or two bytes
          p = end;
          continue;
        }
        for (; i < end; i++) {
          const c = charCodeAt.call(text, i);
          h = Math.imul(h ^ c, FNV_PRIME);
          hi = (hi << 8) | (lo >>> 24);
          lo = (lo << 8) | c;
          wide |= c;
        }
      }
      if (end - p > PACKED_CHARS || wide >= 128) lo = NOT_PACKED;
      const known = pieces.find(text, p, end, h, lo, hi);
      if (known < 0) return stop(at, UNKNOWN, p, tokens, end, h);
      tokens += known;
      p = end;
    }
    return stop(at, DONE, p, tokens, 0, 0);
  });
}

/** `count(text)` for `cl100k_base` (split_scan.ts's `cl100kPieceEnd`: contractions first, `\p{L}+` words). */
export function cl100kCount(steps: CountSteps): (text: string) => number {
  const { pieces, twoChars } = steps;
  return counter(steps, function scan(text: string, p: number, tokens: number, at: Scan): number {
    const n = text.length;
    while (p < n) {
      const c0 = charCodeAt.call(text, p);
      let k = CLASS[c0];
      let h = SEED, lo = 0, hi = 0, wide = 0;
      let i = p;
      let end = 0; // not found yet (no piece ends at 0)
      if (k > UPPER) {
        if (k === REGEX) end = NEEDS_REGEX;
        else if (c0 === APOSTROPHE) {
          const contraction = contractionEnd(text, p, n);
          if (contraction !== p) end = contraction; // or NEEDS_REGEX
        }
        if (end === 0 && (k === SPACE || k === OTHER) && p + 1 < n) {
          const kn = CLASS[charCodeAt.call(text, p + 1)];
          if (kn <= UPPER) {
            h = Math.imul(h ^ c0, FNV_PRIME);
            lo = wide = c0;
            i = p + 1;
            k = kn;
          } else if (kn === REGEX) end = NEEDS_REGEX;
        }
      }
      if (end !== 0) {
        // A contraction (hashed below), or the regex's.
      } else if (k <= UPPER) {
        let c = 0;
        for (; i < n; i++) {
          c = charCodeAt.call(text, i);
          if ((c | 32) - 97 >>> 0 >= 26) break; // not A-Z or a-z
          h = Math.imul(h ^ c, FNV_PRIME);
          hi = (hi << 8) | (lo >>> 24);
          lo = (lo << 8) | c;
        }
        end = i < n && CLASS[c] === REGEX ? NEEDS_REGEX : i;
      } else {
        const other = k === OTHER
          ? p
          : c0 === 32 && p + 1 < n && CLASS[charCodeAt.call(text, p + 1)] === OTHER
          ? p + 1
          : -1;
        end = other >= 0 ? otherRunEnd(text, other, n, false) : nonWordEnd(text, p, n, k, false, true);
      }
      if (end === NEEDS_REGEX) {
        return stop(at, NEEDS_SPLIT_REGEX, p, tokens, 0, 0);
      }
      const length = end - p;
      if (i === p) {
        if (length === 1 && c0 < 128) {
          tokens++;
          p = end;
          continue;
        }
        if (length === 2 && twoChars && (c0 | charCodeAt.call(text, p + 1)) < 128) {
          tokens += twoChars[c0 * 128 + charCodeAt.call(text, p + 1)];
          p = end;
          continue;
        }
      }
      for (; i < end; i++) {
        const c = charCodeAt.call(text, i);
        h = Math.imul(h ^ c, FNV_PRIME);
        hi = (hi << 8) | (lo >>> 24);
        lo = (lo << 8) | c;
        wide |= c;
      }
      if (length > PACKED_CHARS || wide >= 128) lo = NOT_PACKED;
      const known = pieces.find(text, p, end, h, lo, hi);
      if (known < 0) return stop(at, UNKNOWN, p, tokens, end, h);
      tokens += known;
      p = end;
    }
    return stop(at, DONE, p, tokens, 0, 0);
  });
}
