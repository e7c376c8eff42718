/**
 * Reads one top-level string field of a JSON object without parsing the document: the Anthropic
 * pass-through only needs the answer's `model` to decide whether the upstream bytes can go back as they
 * are, and a full `JSON.parse` of every answer was its largest remaining cost. The scan follows JSON's
 * structure (strings with escapes, nesting), so a `"model"` inside content or a nested object never
 * matches, and a repeated key resolves to its last occurrence as in `JSON.parse`. Anything it is not sure
 * about yields `undefined`, and the caller falls back to a full parse.
 */
import { jsonStringEnd } from "../messages/json_scan.ts";

const QUOTE = 34;

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return i;
    i++;
  }
}

/** True when `text[start, end)` holds a backslash (a key with escapes: the caller parses instead). */
function hasEscape(text: string, start: number, end: number): boolean {
  for (let j = start; j < end; j++) if (text.charCodeAt(j) === 92) return true;
  return false;
}

/** True when `text[start, end)` is `key` (compared in place: no string is cut out per key). */
function isKey(text: string, start: number, end: number, key: string): boolean {
  return end - start === key.length && text.startsWith(key, start);
}

/** Index of the closing quote of the string opening at `i`, or -1. */
const stringEnd = jsonStringEnd;

/** Index just past the value starting at `i`, or -1 when it is unterminated. */
function valueEnd(text: string, i: number): number {
  const first = text.charCodeAt(i);
  if (first === QUOTE) {
    const end = stringEnd(text, i);
    return end < 0 ? -1 : end + 1;
  }
  if (first === 123 || first === 91) { // { or [
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) {
        j = stringEnd(text, j);
        if (j < 0) return -1;
      } else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 44 || c === 125 || c === 93 || c === 32 || c === 9 || c === 10 || c === 13) break;
  }
  return j > i ? j : -1;
}

/**
 * Where the value of the top-level field `key` of the JSON object `text` lies (`[start, end)`); `null` when
 * the field is absent; `undefined` when the text is not a well-formed-looking object or uses escapes in keys.
 */
function topLevelSpan(text: string, key: string): [number, number] | null | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 123) return undefined;
  i = skipSpace(text, i + 1);
  let found: [number, number] | null = null;
  if (text.charCodeAt(i) === 125) return skipSpace(text, i + 1) === text.length ? null : undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyClose = stringEnd(text, i);
    if (keyClose < 0) return undefined;
    if (hasEscape(text, i + 1, keyClose)) return undefined;
    const named = isKey(text, i + 1, keyClose, key);
    i = skipSpace(text, keyClose + 1);
    if (text.charCodeAt(i) !== 58) return undefined; // :
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    if (named) found = [i, end];
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 125) return skipSpace(text, i + 1) === text.length ? found : undefined;
    if (c !== 44) return undefined; // ,
    i = skipSpace(text, i + 1);
  }
}

/**
 * The value of the top-level string field `key` of the JSON object `text`; `null` when the field is
 * absent or not a string; `undefined` when the text is not a well-formed-looking object or uses escapes
 * in keys (then parse it).
 */
export function topLevelString(text: string, key: string): string | null | undefined {
  const span = topLevelSpan(text, key);
  if (!span) return span;
  const [start, end] = span;
  if (text.charCodeAt(start) !== QUOTE) return null;
  const raw = text.slice(start + 1, end - 1);
  return raw.includes("\\") ? JSON.parse(text.slice(start, end)) as string : raw;
}

/** The parsed value of the top-level field `key` of the JSON object `text` (undefined when absent or unsure). */
export function topLevelValue(text: string, key: string): unknown {
  const span = topLevelSpan(text, key);
  if (!span) return undefined;
  try {
    return JSON.parse(text.slice(span[0], span[1]));
  } catch {
    return undefined;
  }
}

/**
 * Where the values of the top-level fields `keys` of the JSON object `text` lie, in one pass: `[start, end)`
 * per key, `null` for an absent one (a repeated key: its last occurrence); `undefined` when the text is not
 * a well-formed-looking object or uses escapes in keys.
 */
export function topLevelSpans(
  text: string,
  keys: readonly string[],
): Array<[number, number] | null> | undefined {
  const found: Array<[number, number] | null> = keys.map(() => null);
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 123) return undefined;
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === 125) return skipSpace(text, i + 1) === text.length ? found : undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyClose = stringEnd(text, i);
    if (keyClose < 0) return undefined;
    if (hasEscape(text, i + 1, keyClose)) return undefined;
    const keyStart = i + 1;
    i = skipSpace(text, keyClose + 1);
    if (text.charCodeAt(i) !== 58) return undefined; // :
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    for (let k = 0; k < keys.length; k++) {
      if (isKey(text, keyStart, keyClose, keys[k])) found[k] = [i, end];
    }
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === 125) return skipSpace(text, i + 1) === text.length ? found : undefined;
    if (c !== 44) return undefined; // ,
    i = skipSpace(text, i + 1);
  }
}
