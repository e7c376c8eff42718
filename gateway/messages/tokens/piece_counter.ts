/**
 * Counts the tokens of a text exactly as gpt-tokenizer's `countTokens` does (with no special tokens), faster
 * on text never seen before: a count needs no token ids, only the sum of each piece's token count.
 * - split: ASCII runs by a char-code scanner that reproduces the encoding's split regex (ascii_split.ts); at
 *   any piece that involves a non-ASCII character, the regex itself (sticky, from that position);
 * - count: each ASCII piece by a table keyed by a hash of its char codes, verified against the text
 *   (piece_table.ts), so a known piece costs no substring and no Map lookup by string; a single ASCII
 *   character is one token (every byte is in the vocabulary); pieces from the regex by a Map;
 * - a piece never seen is ranked by gpt-tokenizer's vocabulary and, when it is no token itself, merged: an
 *   ASCII piece by ascii_merge.ts (the same algorithm over the same ranks, ~20× faster for a new word), any
 *   other by gpt-tokenizer's own byte-pair encoder.
 */
import { hashOf, MAX_PIECE_CHARS, PieceTable } from "./piece_table.ts";
import { mergeAsciiPiece } from "./ascii_merge.ts";
import { cl100kPieceEnd, NEEDS_REGEX, o200kPieceEnd } from "./ascii_split.ts";

/** Non-ASCII pieces kept at most (then the map starts over). */
const MAX_REGEX_PIECES = 50_000;

/** What the counter needs of gpt-tokenizer's byte-pair encoder (`BytePairEncodingCore`, 4.0.0). */
export interface BytePairCore {
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): number[];
  /** Rank by the token's text, for the tokens that are valid UTF-8. */
  bytePairStringRankEncoder: Map<string, number>;
}

/** An encoding as gpt-tokenizer's module exposes it. */
export interface EncodingApi {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/** The counting function of an encoding and its caches. */
export interface PieceCounter {
  count(text: string): number;
  /** Forgets every piece's count (the bench's truly cold case). */
  clear(): void;
  readonly pieces: PieceTable;
  /** True when pieces are merged by gpt-tokenizer's encoder directly (false: through `countTokens`). */
  readonly direct: boolean;
}

/** The byte-pair encoder inside a gpt-tokenizer encoding, when this version has the one we know. */
function coreOf(api: unknown): BytePairCore | undefined {
  const core =
    (api as { bytePairEncodingCoreProcessor?: Partial<BytePairCore> }).bytePairEncodingCoreProcessor;
  return core && typeof core.getBpeRankFromString === "function" &&
      typeof core.bytePairEncode === "function" &&
      core.bytePairStringRankEncoder instanceof Map
    ? core as BytePairCore
    : undefined;
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
  const pieceEnd = encoding === "o200k_base" ? o200kPieceEnd : cl100kPieceEnd;
  const sticky = new RegExp(splitRegex.source, "uy");
  const core = coreOf(api);
  const options = { disallowedSpecial: new Set<string>() };
  // A piece of the split is its own split (the regex is applied to each piece alone by countTokens).
  const merge = core
    ? (piece: string) =>
      core.getBpeRankFromString(piece) !== undefined ? 1 : core.bytePairEncode(piece).length
    : (piece: string) => api.countTokens(piece, options);
  const ranks = core?.bytePairStringRankEncoder;
  /** An ASCII piece's count: a token itself, else merged here (exact, see ascii_merge.ts). */
  const mergeAscii = ranks
    ? (piece: string) => ranks.get(piece) !== undefined ? 1 : mergeAsciiPiece(piece, ranks)
    : merge;
  const pieces = new PieceTable();
  let regexPieces = new Map<string, number>();
  /** The count of the piece `regexPiece` found last. */
  let counted = 0;

  function regexPiece(text: string, p: number): number {
    sticky.lastIndex = p;
    const match = sticky.exec(text);
    // Every position starts a match (see ascii_split.ts); a miss would be a bug in that reasoning.
    if (!match || match.index !== p) throw new Error(`split regex found no piece at ${p}`);
    const piece = match[0];
    let tokens = regexPieces.get(piece);
    if (tokens === undefined) {
      tokens = merge(piece);
      if (regexPieces.size >= MAX_REGEX_PIECES) regexPieces = new Map();
      regexPieces.set(piece, tokens);
    }
    counted = tokens;
    return p + piece.length;
  }

  function count(text: string): number {
    const n = text.length;
    let tokens = 0;
    let p = 0;
    while (p < n) {
      const end = pieceEnd(text, p, n);
      if (end === NEEDS_REGEX) {
        p = regexPiece(text, p);
        tokens += counted;
        continue;
      }
      if (end - p === 1) tokens++;
      else {
        const hash = hashOf(text, p, end);
        let known = pieces.get(text, p, end, hash);
        if (known < 0) {
          if (end - p <= MAX_PIECE_CHARS) {
            known = mergeAscii(text.slice(p, end));
            pieces.set(text, p, end, hash, known);
          } else known = merge(text.slice(p, end)); // long runs: gpt-tokenizer keeps them in its merge cache
        }
        tokens += known;
      }
      p = end;
    }
    return tokens;
  }

  return {
    count,
    clear() {
      pieces.clear();
      regexPieces = new Map();
    },
    pieces,
    direct: core !== undefined,
  };
}
