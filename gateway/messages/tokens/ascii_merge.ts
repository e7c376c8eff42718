/**
 * Byte-pair merging of an ASCII piece, counting the tokens it ends as (tiktoken's algorithm: repeatedly merge
 * the adjacent pair of lowest rank, the leftmost on a tie, until no pair is in the vocabulary). In ASCII a
 * character is a byte, so the ranks are looked up by the string of a pair (gpt-tokenizer's map of string to
 * rank) — gpt-tokenizer's own merge decodes bytes to a string with a TextDecoder for each pair it ranks, about
 * 20 µs for a word it has not seen; this takes about 1 µs.
 */

/** The token count of `piece` (ASCII, 2 or more characters, not itself a token) by `ranks`. */
export function mergeAsciiPiece(piece: string, ranks: Map<string, number>): number {
  const n = piece.length;
  // Part i spans [starts[i], starts[i + 1]); pair i joins parts i and i + 1, ranked in pairRanks[i].
  const starts: number[] = [];
  const pairRanks: number[] = [];
  for (let i = 0; i <= n; i++) starts.push(i);
  for (let i = 0; i < n - 1; i++) pairRanks.push(ranks.get(piece.slice(i, i + 2)) ?? Infinity);
  const rankOf = (part: number) =>
    part + 2 < starts.length ? ranks.get(piece.slice(starts[part], starts[part + 2])) ?? Infinity : Infinity;
  while (pairRanks.length > 0) {
    let lowest = Infinity;
    let at = -1;
    for (let i = 0; i < pairRanks.length; i++) {
      if (pairRanks[i] < lowest) {
        lowest = pairRanks[i];
        at = i;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
    pairRanks.splice(at, 1);
    if (at < pairRanks.length) pairRanks[at] = rankOf(at); // unless the merged pair was the last
    if (at > 0) pairRanks[at - 1] = rankOf(at - 1);
  }
  return starts.length - 1;
}
