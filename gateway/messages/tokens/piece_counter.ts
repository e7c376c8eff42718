/**
 * Counts the tokens of a text exactly as tiktoken does (`encode_ordinary`: special-token text is ordinary
 * text), faster than gpt-tokenizer's `countTokens` on text never seen before: a count needs no token ids,
 * only the sum of each piece's token count. (gpt-tokenizer's split regex is tiktoken's pattern under
 * JavaScript's `\s`, which differs on U+FEFF and U+0085; the fallback regex here uses tiktoken's meaning.)
 * - split: by a char-code scanner that reproduces the encoding's split regex for ASCII and non-ASCII
 *   punctuation (split_scan.ts's rules, run by one loop per encoding in scan_count.ts that hashes each piece
 *   as it reads it); at any piece that involves another character, the regex itself (sticky, from that
 *   position);
 * - count: each piece the scanner found by a table keyed by a hash of its char codes, verified against the
 *   text (piece_table.ts), so a known piece costs no substring and no Map lookup by string; a single ASCII
 *   character is one token (every byte is in the vocabulary); other pieces (from the regex, or longer than
 *   the table keeps) by a Map;
 * - a piece never seen is ranked in gpt-tokenizer's vocabulary and, when it is no token itself, merged by
 *   byte_pair.ts (tiktoken's algorithm over the same ranks; gpt-tokenizer's own merge is ~20× slower for a
 *   new word and miscounts a byte-order mark).
 */
import { asciiRanksOf } from "./ascii_ranks.ts";
import { latin1, mergeAsciiPiece, mergeUtf8Piece, type Vocabulary, vocabularyFrom } from "./byte_pair.ts";
import { MAX_PIECE_CHARS, PieceTable } from "./piece_table.ts";
import { cl100kCount, type CountSteps, o200kCount } from "./scan_count.ts";

/**
 * Unicode's White_Space, which tiktoken's `\s` (Rust's regex) means; JavaScript's `\s` differs on two
 * characters: it includes U+FEFF (no White_Space) and leaves out U+0085 (NEL, White_Space).
 */
const WHITE_SPACE = String.raw`\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;

/** `regex` (gpt-tokenizer's split pattern) with `\s` and `\S` meaning what they mean to tiktoken (sticky). */
export function tiktokenSplitRegex(regex: RegExp, flags = "uy"): RegExp {
  const source = regex.source
    .replaceAll(String.raw`[^\s`, `[^${WHITE_SPACE}`)
    .replaceAll(String.raw`\s`, `[${WHITE_SPACE}]`)
    .replaceAll(String.raw`\S`, `[^${WHITE_SPACE}]`);
  return new RegExp(source, flags);
}

/** A count would merge more never-seen text than its budget allows (the caller falls back to an estimate). */
export class MergeBudgetExceeded extends Error {
  constructor() {
    super("token count: never-seen text beyond the merge budget");
  }
}

/** Pieces kept by string at most and their characters (then the map starts over), and the longest kept. */
const MAX_OTHER_PIECES = 50_000;
const MAX_OTHER_CHARS = 4_000_000;
const MAX_OTHER_PIECE_CHARS = 65_536;

/** What the counter reads of gpt-tokenizer's byte-pair encoder (`BytePairEncodingCore`, 4.0.0). */
interface BytePairCore {
  /** Rank by the token's text, for the tokens gpt-tokenizer keeps as text. */
  bytePairStringRankEncoder: Map<string, number>;
  /** Bytes by rank, for the tokens it keeps as bytes (not valid UTF-8, or with a byte-order mark). */
  bytePairNonUtfRankDecoder: Map<number, Uint8Array>;
}

/** An encoding as gpt-tokenizer's module exposes it. */
export interface EncodingApi {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/** The counting function of an encoding and its caches. */
export interface PieceCounter {
  /** The count of `text`; throws MergeBudgetExceeded when it would merge more never-seen text than allowed. */
  count(text: string): number;
  /**
   * Characters of never-seen pieces the counts from now on may merge in all (Infinity: no limit). Merging is
   * the one cost that grows with how unusual the text is (a long run of one non-ASCII character, text with no
   * spaces): a request past the budget is estimated instead of blocking the event loop for seconds.
   */
  setMergeBudget(chars: number): void;
  /** Forgets every piece's count (the bench's truly cold case). */
  clear(): void;
  readonly pieces: PieceTable;
  /** True when pieces are merged here over gpt-tokenizer's vocabulary (false: through its `countTokens`). */
  readonly direct: boolean;
}

/** The vocabulary inside a gpt-tokenizer encoding, when this version keeps it where we know. */
function vocabularyOf(api: unknown): Vocabulary | undefined {
  const core =
    (api as { bytePairEncodingCoreProcessor?: Partial<BytePairCore> }).bytePairEncodingCoreProcessor;
  if (!(core?.bytePairStringRankEncoder instanceof Map) || !(core.bytePairNonUtfRankDecoder instanceof Map)) {
    return undefined;
  }
  const bytes = new Map<string, number>();
  for (const [rank, token] of core.bytePairNonUtfRankDecoder) bytes.set(latin1(token, 0, token.length), rank);
  return vocabularyFrom(core.bytePairStringRankEncoder, bytes);
}

function twoCharCounts(ranks: Map<string, number>): Uint8Array {
  const counts = new Uint8Array(128 * 128);
  for (let a = 0; a < 128; a++) {
    for (let b = 0; b < 128; b++) counts[a * 128 + b] = ranks.has(String.fromCharCode(a, b)) ? 1 : 2;
  }
  return counts;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 128) return false;
  return true;
}

/**
 * A counter for `encoding` over gpt-tokenizer's `api` and the encoding's split regex (`splitRegex`, as
 * gpt-tokenizer has it).
 */
export function createPieceCounter(
  encoding: "o200k_base" | "cl100k_base",
  api: EncodingApi,
  splitRegex: RegExp,
): PieceCounter {
  const sticky = tiktokenSplitRegex(splitRegex);
  const vocabulary = vocabularyOf(api);
  const options = { disallowedSpecial: new Set<string>() };
  const encoder = new TextEncoder();
  // Without the vocabulary (another gpt-tokenizer version): a piece of the split is its own split.
  const merge = vocabulary
    ? (piece: string) => vocabulary.strings.has(piece) ? 1 : mergeUtf8Piece(encoder.encode(piece), vocabulary)
    : (piece: string) => api.countTokens(piece, options);
  const ranks = vocabulary?.strings;
  /** An ASCII piece's count: a token itself, else merged by its characters. */
  const asciiRanks = ranks && asciiRanksOf(ranks);
  const mergeAscii = ranks && asciiRanks
    ? (piece: string) =>
      asciiRanks.rankOf(piece, 0, piece.length) >= 0 ? 1 : mergeAsciiPiece(piece, ranks, vocabulary.longest)
    : merge;
  const pieces = new PieceTable();
  /** Counts of the two-character ASCII pieces (1: the pair is a token, else 2), by 128 × first + second. */
  const twoChars = ranks ? twoCharCounts(ranks) : undefined;
  let otherPieces = new Map<string, number>();
  /** Pieces the table refused and `otherPieces` keeps since it last started over (0: none to look for). */
  let refused = 0;
  let otherChars = 0;
  /** The count of the piece `regexPiece` found last. */
  let counted = 0;

  /** Characters of never-seen pieces this count may still merge (see `setMergeBudget`). */
  let budget = Infinity;

  /** A never-seen piece of `chars` characters is about to be merged: within the budget, or throws. */
  function charge(chars: number): void {
    budget -= chars;
    if (budget < 0) throw new MergeBudgetExceeded();
  }

  /** Keeps a piece's count by string (bounded: past the bounds the map starts over). */
  function keep(piece: string, tokens: number): void {
    if (piece.length > MAX_OTHER_PIECE_CHARS) return; // not kept: memory stays bounded
    if (otherPieces.size >= MAX_OTHER_PIECES || otherChars + piece.length > MAX_OTHER_CHARS) {
      otherPieces = new Map();
      otherChars = 0;
      refused = 0;
    }
    otherPieces.set(piece, tokens);
    otherChars += piece.length;
  }

  /** The count of a piece kept by string (from the regex, too long for the table, or refused by it). */
  function byString(piece: string): number {
    let tokens = otherPieces.get(piece);
    if (tokens === undefined) {
      charge(piece.length);
      tokens = isAscii(piece) ? mergeAscii(piece) : merge(piece);
      keep(piece, tokens);
    }
    return tokens;
  }

  function regexPiece(text: string, p: number): number {
    sticky.lastIndex = p;
    const match = sticky.exec(text);
    // Every position starts a match (see split_scan.ts); a miss would be a bug in that reasoning.
    if (!match || match.index !== p) throw new Error(`split regex found no piece at ${p}`);
    const piece = match[0];
    const tokens = byString(piece);
    counted = tokens;
    return p + piece.length;
  }

  /** The count of a piece the table does not hold: kept by string, or merged (and then kept). */
  function unknownPiece(text: string, p: number, end: number, hash: number): number {
    const piece = text.slice(p, end);
    // Long runs (rare), and pieces the table could not hold (their slot's run was full), by string.
    let known = end - p > MAX_PIECE_CHARS ? byString(piece) : refused > 0 ? otherPieces.get(piece) ?? -1 : -1; // no piece was refused: a new word's string is not hashed for a Map lookup that cannot hit
    if (known < 0) {
      charge(piece.length);
      known = isAscii(piece) ? mergeAscii(piece) : merge(piece);
      if (!pieces.set(text, p, end, hash, known)) {
        keep(piece, known);
        refused++;
      }
    }
    return known;
  }

  const steps: CountSteps = {
    pieces,
    twoChars,
    regexPiece,
    get counted() {
      return counted;
    },
    unknownPiece,
  };
  const count = encoding === "o200k_base" ? o200kCount(steps) : cl100kCount(steps);

  return {
    count,
    setMergeBudget(chars: number) {
      budget = chars;
    },
    clear() {
      pieces.clear();
      otherPieces = new Map();
      otherChars = 0;
      refused = 0;
    },
    pieces,
    direct: vocabulary !== undefined,
  };
}
