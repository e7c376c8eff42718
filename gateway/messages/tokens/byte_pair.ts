/**
 * Byte-pair merging of one piece, counting the tokens it ends as: tiktoken's algorithm (repeatedly merge the
 * adjacent pair of lowest rank, the leftmost on a tie, until no adjacent pair is a token), over
 * gpt-tokenizer's vocabulary.
 *
 * Why not gpt-tokenizer's own merge: it ranks every candidate pair by decoding its bytes with a TextDecoder
 * (about 20 µs for a word it has not seen; ranking ASCII spans in place here, ascii_ranks.ts: about 1.3 µs),
 * and that decoder drops a leading U+FEFF, so a piece holding a byte-order mark is merged wrongly (U+FEFF alone is one
 * token in o200k_base, gpt-tokenizer counts 2; tiktoken 1).
 */
import { asciiRanksOf } from "./ascii_ranks.ts";

/** The vocabulary: ranks by the token's text, and by its bytes (as Latin-1) for tokens kept as bytes. */
export interface Vocabulary {
  strings: Map<string, number>;
  bytes: Map<string, number>;
  /** No token is longer than this many bytes (a bound: longer spans are not looked up). */
  longest: number;
}

/** The vocabulary of gpt-tokenizer's maps (`strings`: by text; `bytes`: by Latin-1 of the bytes). */
export function vocabularyFrom(strings: Map<string, number>, bytes: Map<string, number>): Vocabulary {
  let longest = 0;
  for (const key of strings.keys()) longest = Math.max(longest, key.length * 3); // ≤ 3 UTF-8 bytes per unit
  for (const key of bytes.keys()) longest = Math.max(longest, key.length);
  return { strings, bytes, longest };
}

/** Pieces longer than this merge by a heap (n log n), not by scanning every pair for each merge (n²). */
const LONG_PIECE = 128;
const POSITION = 2 ** 32;

/** Tokens of a piece of `length` units whose span [start, end) ranks `rankOf(start, end)` (or Infinity). */
function mergeCount(length: number, rankOf: (start: number, end: number) => number): number {
  return length > LONG_PIECE ? mergeCountByHeap(length, rankOf) : mergeCountByScan(length, rankOf);
}

/**
 * The same merge for long pieces (a run of 100k spaces is one piece): parts in a linked list, pairs in a
 * min-heap keyed by rank then position (the leftmost lowest pair first, as the scan picks it); an entry whose
 * pair has changed since it was pushed is skipped when it comes up.
 */
function mergeCountByHeap(length: number, rankOf: (start: number, end: number) => number): number {
  // Part i (a position where a part starts) spans [i, next[i]); pairRank[i] ranks it with the part after it.
  const next = new Int32Array(length);
  const prev = new Int32Array(length);
  const pairRank = new Float64Array(length).fill(Infinity);
  const heap: number[] = [];
  const push = (key: number) => {
    let at = heap.push(key) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (heap[parent] <= key) break;
      heap[at] = heap[parent];
      at = parent;
    }
    heap[at] = key;
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      let at = 0;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= heap.length) break;
        if (child + 1 < heap.length && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[at] = heap[child];
        at = child;
      }
      heap[at] = last;
    }
    return top;
  };
  const rankPair = (left: number) => {
    const right = next[left];
    pairRank[left] = right < length ? rankOf(left, next[right]) : Infinity;
    if (pairRank[left] !== Infinity) push(pairRank[left] * POSITION + left);
  };
  for (let i = 0; i < length; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  for (let i = 0; i < length - 1; i++) rankPair(i);
  let parts = length;
  while (heap.length > 0) {
    const key = pop();
    const left = key % POSITION;
    if (pairRank[left] !== (key - left) / POSITION) continue; // stale: the pair changed or its part is gone
    const right = next[left];
    next[left] = next[right];
    if (next[right] < length) prev[next[right]] = left;
    pairRank[right] = Infinity;
    parts--;
    rankPair(left);
    if (left > 0) rankPair(prev[left]);
  }
  return parts;
}

/** Scratch for mergeCountByScan (pieces up to LONG_PIECE units; the merge never re-enters itself). */
const starts = new Int32Array(LONG_PIECE + 2);
const pairRanks = new Float64Array(LONG_PIECE + 1);

function mergeCountByScan(length: number, rankOf: (start: number, end: number) => number): number {
  // Part i spans [starts[i], starts[i + 1]); pair i joins parts i and i + 1, ranked in pairRanks[i]. Typed
  // scratch arrays, shifted in place: a new word allocates nothing.
  for (let i = 0; i <= length; i++) starts[i] = i;
  let pairs = length - 1;
  for (let i = 0; i < pairs; i++) pairRanks[i] = rankOf(i, i + 2);
  while (pairs > 0) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < pairs; i++) {
      if (pairRanks[i] < lowest) {
        lowest = pairRanks[i];
        at = i;
      }
    }
    if (at < 0) break;
    starts.copyWithin(at + 1, at + 2, pairs + 2); // part at + 1 joins part at
    pairRanks.copyWithin(at, at + 1, pairs);
    pairs--;
    if (at < pairs) pairRanks[at] = rankOf(starts[at], starts[at + 2]); // unless it was the last
    if (at > 0) pairRanks[at - 1] = rankOf(starts[at - 1], starts[at + 1]);
  }
  return pairs + 1;
}

/** Ranks of the two-character ASCII tokens, by 128 × first + second (Infinity: none), per vocabulary. */
const pairTables = new WeakMap<Map<string, number>, Float64Array>();

function pairTableOf(ranks: Map<string, number>): Float64Array {
  let table = pairTables.get(ranks);
  if (!table) {
    table = new Float64Array(128 * 128).fill(Infinity);
    for (let a = 0; a < 128; a++) {
      for (let b = 0; b < 128; b++) table[a * 128 + b] = ranks.get(String.fromCharCode(a, b)) ?? Infinity;
    }
    pairTables.set(ranks, table);
  }
  return table;
}

/** The token count of `piece`, ASCII, 2 or more characters and not itself a token (a character is a byte). */
export function mergeAsciiPiece(piece: string, ranks: Map<string, number>, longest = Infinity): number {
  // Most rankings are of two characters (every pair at the start): a table lookup instead of a Map's.
  const pairs = pairTableOf(ranks);
  const table = asciiRanksOf(ranks);
  const rankOfSpan = (start: number, end: number) => {
    if (end - start === 2) return pairs[piece.charCodeAt(start) * 128 + piece.charCodeAt(start + 1)];
    if (end - start > longest) return Infinity;
    const rank = table.rankOf(piece, start, end);
    return rank < 0 ? Infinity : rank;
  };
  if (!isRun(piece)) return mergeCount(piece.length, rankOfSpan);
  // A run of one character (a long stretch of spaces or dashes): a span's rank depends on its length only.
  const byLength: number[] = [];
  return mergeCount(piece.length, (start, end) => byLength[end - start] ??= rankOfSpan(start, end));
}

/** Whether `piece` repeats one character. */
function isRun(piece: string): boolean {
  const first = piece.charCodeAt(0);
  for (let i = 1; i < piece.length; i++) if (piece.charCodeAt(i) !== first) return false;
  return true;
}

/** `bytes[start, end)` decoded as UTF-8 (a leading U+FEFF kept), or undefined when it is not valid UTF-8. */
function decodeUtf8(bytes: Uint8Array, start: number, end: number): string | undefined {
  let text = "";
  let i = start;
  while (i < end) {
    const b = bytes[i];
    let need: number, point: number, min: number;
    if (b < 0x80) {
      text += String.fromCharCode(b);
      i++;
      continue;
    } else if (b >= 0xc2 && b < 0xe0) [need, point, min] = [1, b & 0x1f, 0x80];
    else if (b >= 0xe0 && b < 0xf0) [need, point, min] = [2, b & 0x0f, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, point, min] = [3, b & 0x07, 0x10000];
    else return undefined;
    if (i + need >= end) return undefined;
    for (let j = 1; j <= need; j++) {
      const c = bytes[i + j];
      if ((c & 0xc0) !== 0x80) return undefined;
      point = (point << 6) | (c & 0x3f);
    }
    if (point < min || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return undefined;
    text += String.fromCodePoint(point);
    i += need + 1;
  }
  return text;
}

/** `bytes[start, end)` as a string of one character per byte (a key for the tokens kept as bytes). */
export function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = "";
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]);
  return text;
}

/** The rank of the token `bytes[start, end)`, Infinity when it is none. */
function rankOfBytes(bytes: Uint8Array, start: number, end: number, vocabulary: Vocabulary): number {
  if (end - start > vocabulary.longest) return Infinity;
  const text = decodeUtf8(bytes, start, end);
  const rank = text !== undefined ? vocabulary.strings.get(text) : undefined;
  return rank ?? vocabulary.bytes.get(latin1(bytes, start, end)) ?? Infinity;
}

/** The token count of the UTF-8 `bytes` of a piece. */
export function mergeUtf8Piece(bytes: Uint8Array, vocabulary: Vocabulary): number {
  if (rankOfBytes(bytes, 0, bytes.length, vocabulary) !== Infinity) return 1;
  return mergeCount(bytes.length, (start, end) => rankOfBytes(bytes, start, end, vocabulary));
}
