/**
 * Scans over JSON text without parsing it: where a string ends, how deep arrays and objects nest. Strings
 * (most of a request's bytes: the conversation) are skipped with `indexOf`, which is native and far faster
 * than a loop over the characters; only the structure between strings is looked at one character at a time.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index of the closing quote of the string whose opening quote is at `i`, or -1 when it is unterminated. */
export function jsonStringEnd(text: string, i: number): number {
  let j = i;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return -1;
    // Escaped when an odd number of backslashes precede it (the opening quote stops the walk back).
    let k = j - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j;
  }
}

/** True when `text`'s brackets outside strings nest deeper than `limit` (one pass, no allocation). */
export function nestingDepthOver(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = jsonStringEnd(text, i);
      if (i < 0) return false; // unterminated: JSON.parse refuses it
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
