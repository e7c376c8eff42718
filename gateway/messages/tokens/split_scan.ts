/**
 * The pre-tokenizers of `o200k_base` and `cl100k_base`, scanning char codes instead of running the encoding's
 * split regex (gpt-tokenizer's `O200K_TOKEN_SPLIT_REGEX` / `CL100K_TOKEN_SPLIT_REGEX`, tiktoken's patterns):
 * no match objects, no substrings.
 *
 * They know ASCII and the non-ASCII characters that are neither space, letter, number nor mark (punctuation
 * and symbols such as — ≈ → “ ” …, found once at load with the regex's own classes), which behave as ASCII
 * punctuation does in both patterns. Each function takes the start of a piece and returns where the regex's
 * match from there ends, or -1 when deciding it would need to look at any other character (a letter, mark,
 * Unicode space or digit outside ASCII, a surrogate): the caller then runs the regex itself from that
 * position, so the split stays exactly the regex's. A regex match only depends on the text from its start
 * onwards, and every position starts a match (each character is a letter, a number, a space or "other"), so
 * taking one piece at a time from either side yields the regex's own sequence of pieces.
 */

/** Character classes. */
export const LOWER = 1;
export const UPPER = 2;
export const DIGIT = 3;
/** `\r`, `\n`: spaces that a letter piece cannot start with. */
export const NEWLINE = 4;
/** `\t`, `\v`, `\f`, ` `: JavaScript's `\s` in ASCII, besides the newlines. */
export const SPACE = 5;
/** Everything else in ASCII, and the non-ASCII punctuation and symbols below: `[^\s\p{L}\p{N}]`. */
export const OTHER = 6;

/** Any other character: the regex decides. */
export const REGEX = 7;

/** Classes of UTF-16 code units. */
export const CLASS = new Uint8Array(65_536).fill(REGEX);
CLASS.fill(OTHER, 0, 128);
for (let c = 97; c <= 122; c++) CLASS[c] = LOWER;
for (let c = 65; c <= 90; c++) CLASS[c] = UPPER;
for (let c = 48; c <= 57; c++) CLASS[c] = DIGIT;
CLASS[10] = CLASS[13] = NEWLINE;
for (const c of [9, 11, 12, 32]) CLASS[c] = SPACE;
/** Tiktoken's `\s` (Unicode White_Space), letters, numbers and marks: everything that is not "other". */
const NOT_OTHER = /[\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\p{L}\p{N}\p{M}]/u;
/**
 * Blocks of punctuation and symbols common in prose and code (Latin-1, General Punctuation to Miscellaneous
 * Symbols and Arrows, CJK punctuation, small and full-width forms); their letters, numbers and marks are left
 * out.
 */
const PUNCTUATION_BLOCKS = [
  [0x80, 0x2ff],
  [0x2000, 0x2bff],
  [0x3000, 0x303f],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff65],
];
for (const [from, to] of PUNCTUATION_BLOCKS) {
  for (let c = from; c <= to; c++) if (!NOT_OTHER.test(String.fromCharCode(c))) CLASS[c] = OTHER;
}

/** Called as `charCodeAt.call(text, i)`: texts of every kind of string pass here (see scan_count.ts). */
const charCodeAt = String.prototype.charCodeAt;

/** Marks the end of a piece that needs the regex. */
export const NEEDS_REGEX = -1;

export const APOSTROPHE = 39;

/** The end of `'s|'t|'re|'ve|'m|'ll|'d` (either case) at `at`, `at` when none, or -1. */
export function contractionEnd(text: string, at: number, n: number): number {
  if (at + 1 >= n || charCodeAt.call(text, at) !== APOSTROPHE) return at;
  const first = charCodeAt.call(text, at + 1);
  const kind = CLASS[first];
  if (kind === REGEX) return NEEDS_REGEX;
  if (kind !== LOWER && kind !== UPPER) return at;
  const c = first | 32; // lower case
  if (c === 115 || c === 116 || c === 109 || c === 100) return at + 2; // s t m d
  const second = c === 108 ? 108 : c === 118 || c === 114 ? 101 : 0; // ll, ve, re
  if (!second || at + 2 >= n) return at;
  const c2 = charCodeAt.call(text, at + 2);
  const kind2 = CLASS[c2];
  if (kind2 === REGEX) return NEEDS_REGEX;
  return (kind2 === LOWER || kind2 === UPPER) && (c2 | 32) === second ? at + 3 : at;
}

/** The end of a run of whitespace at `p` (a space or newline), by the rules both encodings share. */
function spaceEnd(text: string, p: number, n: number, trailingRunWhole: boolean): number {
  let i = p;
  let lastNewline = -1;
  for (; i < n; i++) {
    const k = CLASS[charCodeAt.call(text, i)];
    if (k === REGEX) return NEEDS_REGEX;
    if (k === NEWLINE) lastNewline = i;
    else if (k !== SPACE) break;
  }
  if (trailingRunWhole && i === n) return n; // cl100k `\s+$`
  if (lastNewline >= 0) return lastNewline + 1; // `\s*[\r\n]+` backtracks to the last newline
  if (i === n) return n; // `\s+(?!\S)` at the end
  return i - p >= 2 ? i - 1 : p + 1; // `\s+(?!\S)` leaves the last space to the next piece; else `\s`
}

/** The end of ` ?[^\s\p{L}\p{N}]+` then `[\r\n]*` (`[\r\n/]*` with `slash`) from `start`. */
function otherEnd(text: string, start: number, n: number, slash: boolean): number {
  let i = start;
  for (; i < n; i++) {
    const k = CLASS[charCodeAt.call(text, i)];
    if (k === REGEX) return NEEDS_REGEX;
    if (k !== OTHER) break;
  }
  for (; i < n; i++) {
    const c = charCodeAt.call(text, i);
    if (c !== 10 && c !== 13 && !(slash && c === 47)) {
      if (CLASS[c] === REGEX) return NEEDS_REGEX;
      break;
    }
  }
  return i;
}

/** The end of `\p{N}{1,3}` at `p`. */
function digitsEnd(text: string, p: number, n: number): number {
  let i = p + 1;
  for (; i < n && i < p + 3; i++) {
    const k = CLASS[charCodeAt.call(text, i)];
    if (k === REGEX) return NEEDS_REGEX;
    if (k !== DIGIT) return i;
  }
  return i;
}

/** `wordStart`'s answer when the piece at `p` is no word. */
const NO_WORD = -2;

/**
 * Where the letters of a word piece at `p` start (`[^\r\n\p{L}\p{N}]?` then a letter, the same in both
 * encodings): `p` or `p + 1`; NO_WORD, or NEEDS_REGEX when the next character needs the regex.
 */
function wordStart(text: string, p: number, n: number, k: number): number {
  if (k === LOWER || k === UPPER) return p;
  if ((k === SPACE || k === OTHER) && p + 1 < n) {
    const kn = CLASS[charCodeAt.call(text, p + 1)];
    if (kn === REGEX) return NEEDS_REGEX;
    if (kn === LOWER || kn === UPPER) return p + 1;
  }
  return NO_WORD;
}

/**
 * The end of a piece at `p` that is no word: `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+` then newlines (and `/` with
 * `slash`), or a run of whitespace (`trailingRunWhole`: cl100k's `\s+$`).
 */
export function nonWordEnd(
  text: string,
  p: number,
  n: number,
  k: number,
  slash: boolean,
  trailingRunWhole: boolean,
): number {
  if (k === DIGIT) return digitsEnd(text, p, n);
  if (k === OTHER) return otherEnd(text, p, n, slash);
  if (charCodeAt.call(text, p) === 32 && p + 1 < n) {
    const kn = CLASS[charCodeAt.call(text, p + 1)];
    if (kn === REGEX) return NEEDS_REGEX;
    if (kn === OTHER) return otherEnd(text, p + 1, n, slash);
  }
  return spaceEnd(text, p, n, trailingRunWhole);
}

/**
 * Where the `o200k_base` piece at `p` ends, or -1. The pattern's alternatives, first match wins:
 * `[^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+(contraction)?`,
 * `[^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]*(contraction)?`, `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
 * `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`.
 */
export function o200kPieceEnd(text: string, p: number, n: number): number {
  const k = CLASS[charCodeAt.call(text, p)];
  if (k === REGEX) return NEEDS_REGEX;
  const letters = wordStart(text, p, n, k);
  if (letters === NEEDS_REGEX) return NEEDS_REGEX;
  if (letters === NO_WORD) return nonWordEnd(text, p, n, k, true, false);
  // Upper case then lower case: one piece in either alternative (in ASCII the two classes are apart).
  let i = letters;
  while (i < n && CLASS[charCodeAt.call(text, i)] === UPPER) i++;
  while (i < n && CLASS[charCodeAt.call(text, i)] === LOWER) i++;
  if (i === n) return i;
  const stop = charCodeAt.call(text, i);
  if (CLASS[stop] === REGEX) return NEEDS_REGEX;
  return stop === APOSTROPHE ? contractionEnd(text, i, n) : i;
}

/**
 * Where the `cl100k_base` piece at `p` ends, or -1. The pattern's alternatives, first match wins (as
 * gpt-tokenizer writes it): `'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])`,
 * `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n]*`, `\s+$`, `\s*[\r\n]`,
 * `\s+(?!\S)`, `\s`.
 */
export function cl100kPieceEnd(text: string, p: number, n: number): number {
  const c = charCodeAt.call(text, p);
  const k = CLASS[c];
  if (k === REGEX) return NEEDS_REGEX;
  if (c === APOSTROPHE) {
    const end = contractionEnd(text, p, n);
    if (end !== p) return end;
  }
  const letters = wordStart(text, p, n, k);
  if (letters === NEEDS_REGEX) return NEEDS_REGEX;
  if (letters === NO_WORD) return nonWordEnd(text, p, n, k, false, true);
  let i = letters;
  let kx = CLASS[charCodeAt.call(text, i)];
  while (kx === LOWER || kx === UPPER) kx = ++i < n ? CLASS[charCodeAt.call(text, i)] : 0;
  return kx === REGEX ? NEEDS_REGEX : i;
}
