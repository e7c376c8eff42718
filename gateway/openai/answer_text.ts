/**
 * Reads an Anthropic answer's JSON text whose content is one text block without parsing the answer: the
 * text's JSON literal as the upstream wrote it (checked to be a well-formed one), the stop reason and the
 * usage. The OpenAI ingresses splice that literal into their own answer (chat_response.ts,
 * responses_response.ts) where parsing the answer and serializing theirs copied the text twice.
 */
import type { StopReason, Usage } from "../messages/types.ts";
import { jsonStringEnd } from "../messages/json_scan.ts";
import { topLevelSpans } from "../providers/json_peek.ts";

/** What the text-only fast paths read of an answer. */
export interface OneTextAnswer {
  /** The text block's `text`, as its JSON literal (quotes included). */
  literal: string;
  /** `stop_reason` (never `refusal`: a refusal goes to the parsing path). */
  stop: StopReason | null;
  /** `usage`, parsed. */
  usage: Usage;
}

/** The fields of an Anthropic answer the text-only fast path reads. */
const ANSWER_FIELDS = ["content", "stop_reason", "usage"] as const;

/** The opening of a content array of one text block, as Anthropic writes it, up to the text's quote. */
const ONE_TEXT_BLOCK = '[{"type":"text","text":"';

/** A character JSON refuses unescaped in a string. */
// deno-lint-ignore no-control-regex -- the control characters are what it looks for
const CONTROL = /[\u0000-\u001f]/;
/** One escape's characters after its backslash. */
const ESCAPE = /^(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/;

/** True when `literal` (a JSON string with its quotes, found by its closing quote) is a well-formed one. */
function wellFormedLiteral(literal: string): boolean {
  if (CONTROL.test(literal)) return false;
  for (let i = literal.indexOf("\\"); i >= 0; i = literal.indexOf("\\", i + 2)) {
    if (!ESCAPE.test(literal.slice(i + 1, i + 6))) return false;
  }
  return true;
}

/**
 * A top-level string-or-null value `text[start, end)` without escapes (every Anthropic `stop_reason`),
 * read without `JSON.parse`; undefined for anything else (the caller parses).
 */
function plainStringOrNull(text: string, start: number, end: number): string | null | undefined {
  if (end - start === 4 && text.startsWith("null", start)) return null;
  if (end - start < 2 || text.charCodeAt(start) !== 34 || text.charCodeAt(end - 1) !== 34) return undefined;
  // An escape is left to JSON.parse; a raw control character makes the answer malformed JSON (it throws there).
  for (let i = start + 1; i < end - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 || c < 32) return undefined;
  }
  return text.slice(start + 1, end - 1);
}

/**
 * The literal, stop reason and usage of an answer whose content is one well-formed text block and which is
 * not a refusal; undefined for anything else (other blocks, an unexpected layout): then the caller parses.
 * One `JSON.parse` per answer (of `usage`, which the caller keeps); the stop reason is read in place.
 */
export function oneTextAnswer(text: string): OneTextAnswer | undefined {
  const spans = topLevelSpans(text, ANSWER_FIELDS);
  const content = spans?.[0];
  const usageSpan = spans?.[2];
  if (!content || !usageSpan || !text.startsWith(ONE_TEXT_BLOCK, content[0])) return undefined;
  const open = content[0] + ONE_TEXT_BLOCK.length - 1;
  const close = jsonStringEnd(text, open);
  if (close + 3 !== content[1] || !text.startsWith('"}]', close)) return undefined;
  const literal = text.slice(open, close + 1);
  if (!wellFormedLiteral(literal)) return undefined;
  let stop: unknown = null;
  let usage: unknown;
  try {
    const stopSpan = spans[1];
    if (stopSpan) {
      stop = plainStringOrNull(text, stopSpan[0], stopSpan[1]) ??
        JSON.parse(text.slice(stopSpan[0], stopSpan[1]));
    }
    usage = JSON.parse(text.slice(usageSpan[0], usageSpan[1]));
  } catch {
    return undefined;
  }
  if ((stop !== null && typeof stop !== "string") || stop === "refusal") return undefined;
  if (!usage || typeof usage !== "object") return undefined;
  return { literal, stop: stop as StopReason | null, usage: usage as Usage };
}

/** An answer's four token counts when all are numbers with a finite sum (else the callers serialize). */
export function countsOf(
  usage: Usage,
): { input: number; output: number; read: number; written: number } | undefined {
  const { input_tokens: input, output_tokens: output } = usage;
  const read = usage.cache_read_input_tokens;
  const written = usage.cache_creation_input_tokens;
  if (
    typeof input !== "number" || typeof output !== "number" || typeof read !== "number" ||
    typeof written !== "number" || !Number.isFinite(input + output + read + written)
  ) return undefined;
  return { input, output, read, written };
}
