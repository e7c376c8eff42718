/**
 * A small, byte-stable YAML writer with explicit scalar styles, so the lock text is reproducible and
 * matches gh-aw's layout (2-space indentation, LF, no trailing spaces except inside block scalars).
 */

/** Scalar styles. */
export type ScalarStyle = "plain" | "double" | "single" | "literal" | "folded";

/** A scalar with an explicit style. */
export class Styled {
  /** `bare`: blank lines of a block scalar carry no indentation (as goccy/go-yaml writes user steps). */
  constructor(readonly value: string, readonly style: ScalarStyle, readonly bare = false) {}
}

/** A YAML comment line emitted inside a mapping or sequence. */
export class Comment {
  constructor(readonly text: string) {}
}

/** An empty line inside a sequence (gh-aw leaves one after the block of user steps). */
export class BlankLine {}
/** An empty line inside a mapping (gh-aw leaves one after custom jobs' `permissions:`). */
export class Blank {}

/**
 * A mapping written `extra` levels deeper than its key asks for. gh-aw re-renders some job-level blocks
 * (the agent's permissions once it adds `contents: read`) at job indentation and then indents them again;
 * the value parses the same, only the bytes differ.
 */
export class DeepMapping {
  constructor(readonly value: { [key: string]: YValue }, readonly extra: number) {}
}

/**
 * A block gh-aw marshals on its own with goccy's defaults, so its sequences sit at their key's indentation
 * (`ports:\n- 6379:6379`) inside a job whose other sequences are indented.
 */
export class UnindentedSequences {
  constructor(readonly value: YValue) {}
}

/** A key/value pair rendered commented out (`# key: value # reason`), as gh-aw shows its own `on:` keys. */
export class Commented {
  constructor(readonly key: string, readonly value: YValue, readonly reason: string) {}
}

/** Values the writer understands. Objects keep insertion order. */
export type YValue =
  | string
  | number
  | boolean
  | null
  | Styled
  | Comment
  | BlankLine
  | Commented
  | Blank
  | DeepMapping
  | UnindentedSequences
  | YValue[]
  | { [key: string]: YValue };

/** Double-quoted style. */
export const dq = (v: string): Styled => new Styled(v, "double");
/** Single-quoted style. */
export const sq = (v: string): Styled => new Styled(v, "single");
/** Literal block (`|`) style. */
export const lit = (v: string): Styled => new Styled(v, "literal");
/** Folded block (`>`) style. */
export const folded = (v: string): Styled => new Styled(v, "folded");
/** Literal block whose blank lines stay empty (user steps gh-aw re-marshals). */
export const litBare = (v: string): Styled => new Styled(v, "literal", true);
/** Plain style, forced. */
export const plain = (v: string): Styled => new Styled(v, "plain");

/** A literal block followed by indentation-only lines (gh-aw writes some scripts so; the value is the same). */
export class PaddedLiteral extends Styled {
  constructor(value: string, readonly blankLines: number) {
    super(value, "literal");
  }
}
/** Literal block (`|`) with `n` trailing indentation-only lines. */
export const litPadded = (v: string, n = 1): PaddedLiteral => new PaddedLiteral(v, n);

const RESERVED = /^(?:true|false|yes|no|on|off|null|~|y|n)$/i;
const NUMBER =
  /^[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$|^0x[0-9a-fA-F]+$|^0o[0-7]+$|^[-+]?\.(?:inf|nan)$/i;

/** Characters that open a YAML indicator when they start a plain scalar. */
const INDICATOR_START = "?:,[]{}#&*!|>'\"%@`";
const WHITESPACE = /\s/;
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const CONTROL = /[\x00-\x1f]/;

/**
 * Whether a string must be quoted to stay a string in plain YAML. Written with index checks rather than
 * one regular expression per rule: the writer asks this of every key and scalar of every lock, and the
 * unanchored `\s$` test and a loop over code points were most of its cost.
 */
export function needsQuotes(s: string): boolean {
  const n = s.length;
  if (n === 0) return true;
  if (RESERVED.test(s) || NUMBER.test(s)) return true;
  const first = s[0];
  if (WHITESPACE.test(first) || WHITESPACE.test(s[n - 1])) return true;
  if (INDICATOR_START.includes(first)) return true;
  // A leading dash is plain unless it reads as a sequence entry or a document marker: "-x" and "--flag"
  // (as goccy writes service `options:`) stay plain; "-", "- x", "-- x" and "---" are quoted.
  if (first === "-") {
    if (n === 1 || WHITESPACE.test(s[1])) return true;
    if (s[1] === "-" && (n === 2 || WHITESPACE.test(s[2]) || s[2] === "-")) return true;
  }
  if (s.includes(": ") || s.includes(" #") || s.endsWith(":")) return true;
  return CONTROL.test(s);
}

/** What Go's `strconv.IsPrint` accepts beyond ASCII: letters, marks, numbers, punctuation and symbols. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/**
 * Go-style double-quoted string, as `strconv.Quote` writes it: printable characters as they are, the others
 * (a zero-width joiner inside an emoji, a non-breaking space) as `\u` escapes.
 */
export function goQuote(s: string): string {
  // Most values are printable ASCII without a quote or backslash: they are written as they are.
  return '"' + (NEEDS_ESCAPE.test(s) ? s.replace(ESCAPED, goEscape) : s) + '"';
}

/** Any character {@link goQuote} may write differently (all but printable ASCII, `"` and `\\`). */
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;
/** Each such code point (a lone surrogate on its own). */
const ESCAPED = /[^\x20\x21\x23-\x5b\x5d-\x7e]/gu;

/** One code point as `strconv.Quote` writes it. */
function goEscape(ch: string): string {
  const c = ch.codePointAt(0)!;
  if (ch === '"') return '\\"';
  if (ch === "\\") return "\\\\";
  if (ch === "\n") return "\\n";
  if (ch === "\t") return "\\t";
  if (ch === "\r") return "\\r";
  if (c < 0x20 || c === 0x7f) return "\\x" + c.toString(16).padStart(2, "0");
  if (c < 0x80 || GO_PRINTABLE.test(ch)) return ch;
  if (c < 0x10000) return "\\u" + c.toString(16).padStart(4, "0");
  return "\\U" + c.toString(16).padStart(8, "0");
}

function scalar(v: string | number | boolean | null | Styled): string {
  if (v === null) return "";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v === "string") return needsQuotes(v) ? goQuote(v) : v;
  switch (v.style) {
    case "plain":
      return v.value;
    case "double":
      return goQuote(v.value);
    case "single":
      return "'" + v.value.replace(/'/g, "''") + "'";
    default:
      return "";
  }
}

function isBlock(v: YValue): v is Styled {
  return v instanceof Styled && (v.style === "literal" || v.style === "folded");
}

function blockLines(v: Styled, indent: string): string[] {
  const text = v.value;
  const chomp = text.endsWith("\n") ? (text.endsWith("\n\n") ? "+" : "") : "-";
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  // YAML takes a block's indentation from its first non-empty line; when that line starts with a space, or a
  // blank line before it holds spaces, the reader would guess wrong (or refuse the file): state it (the
  // content sits two spaces in from its key or dash).
  const leading = /^((?:[ \t]*\n)*)([^\n]*)/.exec(body)!;
  const needsIndicator = /^[ \t]/.test(leading[2]) || /[ \t]/.test(leading[1]);
  const head = (v.style === "literal" ? "|" : ">") + (needsIndicator ? "2" : "") + chomp;
  // gh-aw keeps the block indentation on blank lines; we do the same for byte parity.
  const lines = body.split("\n").map((l) => (v.bare && l === "" ? "" : indent + l));
  if (v instanceof PaddedLiteral) { for (let i = 0; i < v.blankLines; i++) lines.push(indent); }
  return [head, ...lines];
}

/** Indentation by level (the writer asks for it once per mapping and sequence). */
const PADS = Array.from({ length: 16 }, (_, i) => "  ".repeat(i));

/** Keys as written (quoted when they must be), remembered: locks repeat the same few hundred keys. */
const keyTexts = new Map<string, string>();
function keyText(k: string): string {
  let text = keyTexts.get(k);
  if (text === undefined) {
    text = needsQuotes(k) ? goQuote(k) : k;
    if (keyTexts.size >= 4096) keyTexts.clear();
    keyTexts.set(k, text);
  }
  return text;
}

/** Options of {@link writeYaml}. */
export interface WriteOptions {
  /** Indent sequence items under their key (`key:\n  - a`) — true for jobs, false for goccy-style `on:`. */
  indentSequences: boolean;
  /** A comment entry of a mapping ends the line before it (`key: v  # text`) instead of a line of its own. */
  trailingComments?: boolean;
  /** Every line of a {@link Commented} entry stands at its key's indentation (`# key:` then `# nested: v`). */
  flatCommented?: boolean;
}

/** Renders a mapping's entries at an indentation level. */
export function writeYaml(
  value: YValue,
  level = 0,
  opts: WriteOptions = { indentSequences: true },
): string[] {
  const out: string[] = [];
  writeYamlInto(out, value, level, opts);
  return out;
}

/**
 * {@link writeYaml} appending to `out`: nested values write into the one array, so a line is never copied
 * once per level of nesting (the copying cost more than the rendering on large locks).
 */
export function writeYamlInto(
  out: string[],
  value: YValue,
  level = 0,
  opts: WriteOptions = { indentSequences: true },
): void {
  const pad = PADS[level] ?? "  ".repeat(level);
  if (Array.isArray(value)) {
    for (const item of value) {
      // Strings are most items: written before the class checks below.
      if (typeof item === "string") {
        out.push(`${pad}- ${needsQuotes(item) ? goQuote(item) : item}`);
        continue;
      }
      if (item instanceof Comment) {
        out.push(`${pad}# ${item.text}`.trimEnd());
        continue;
      }
      if (item instanceof BlankLine) {
        out.push("");
        continue;
      }
      if (item !== null && typeof item === "object" && !(item instanceof Styled) && !Array.isArray(item)) {
        const start = out.length;
        writeYamlInto(out, item, level + 1, opts);
        if (out.length === start) out.push(`${pad}- {}`);
        else out[start] = `${pad}- ${out[start].slice(pad.length + 2)}`;
      } else if (Array.isArray(item)) {
        out.push(`${pad}-`);
        writeYamlInto(out, item, level + 1, opts);
      } else if (isBlock(item)) {
        const [head, ...rest] = blockLines(item, "  ".repeat(level + 1));
        out.push(`${pad}- ${head}`);
        for (const line of rest) out.push(line);
      } else out.push(`${pad}- ${scalar(item as string)}`);
    }
    return;
  }
  if (
    value !== null && typeof value === "object" && !(value instanceof Styled) &&
    !(value instanceof Comment) &&
    !(value instanceof Commented)
  ) {
    const map = value as { [key: string]: YValue };
    for (const k in map) {
      const v = map[k];
      // Strings are most values: written before the class checks below. A plain string never ends in white
      // space (needsQuotes) and a quoted one ends in `"`, so the line needs no trimming.
      if (typeof v === "string") {
        out.push(`${pad}${keyText(k)}: ${needsQuotes(v) ? goQuote(v) : v}`);
        continue;
      }
      if (v instanceof Blank) {
        out.push("");
        continue;
      }
      if (v instanceof Comment) {
        if (opts.trailingComments && out.length > 0) out[out.length - 1] += `  # ${v.text}`.trimEnd();
        else out.push(`${pad}# ${v.text}`.trimEnd());
        continue;
      }
      if (v instanceof Commented) {
        // The commented-out text keeps the compact sequence style, whatever the section around it uses.
        const inner = writeYaml({ [v.key]: v.value }, level, { ...opts, indentSequences: false });
        const keyWs = /^ */.exec(inner[0] ?? "")![0];
        inner.forEach((line, i) => {
          const ws = /^ */.exec(line)![0];
          let l = `${opts.flatCommented ? keyWs : ws}# ${line.slice(ws.length)}`;
          // The reason follows the key and its own list items, not lists nested deeper.
          if (i === 0 || (/^\s*- (?!.*: )/.test(line) && ws === keyWs)) l += ` # ${v.reason}`;
          out.push(l);
        });
        continue;
      }
      const key = keyText(k);
      if (v instanceof DeepMapping) {
        out.push(`${pad}${key}:`);
        writeYamlInto(out, v.value, level + 1 + v.extra, opts);
        continue;
      }
      if (v instanceof UnindentedSequences) {
        out.push(`${pad}${key}:`);
        writeYamlInto(out, v.value, level + 1, { ...opts, indentSequences: false });
        continue;
      }
      if (Array.isArray(v)) {
        if (v.length === 0) out.push(`${pad}${key}: []`);
        else {
          out.push(`${pad}${key}:`);
          writeYamlInto(out, v, opts.indentSequences ? level + 1 : level, opts);
        }
      } else if (v !== null && typeof v === "object" && !(v instanceof Styled)) {
        if (Object.keys(v).length === 0) out.push(`${pad}${key}: {}`);
        else {
          out.push(`${pad}${key}:`);
          writeYamlInto(out, v, level + 1, opts);
        }
      } else if (isBlock(v)) {
        const [head, ...rest] = blockLinesOf(v, "  ".repeat(level + 1));
        out.push(`${pad}${key}: ${head}`);
        for (const line of rest) out.push(line);
      } else if (v === undefined) continue;
      else out.push(`${pad}${key}: ${scalar(v)}`.trimEnd());
    }
    return;
  }
  out.push(pad + scalar(value as string));
}

/** A literal block some of whose blank lines gh-aw writes without indentation (the value is the same). */
export class BareBlankLiteral extends Styled {
  constructor(value: string, readonly bareLines: ReadonlySet<number>) {
    super(value, "literal");
  }
}
/** Literal block (`|`) whose blank lines at the given 0-based indices carry no indentation. */
export const litBareBlanks = (v: string, lines: Iterable<number>): BareBlankLiteral =>
  new BareBlankLiteral(v, new Set(lines));

/** A literal block with a comment after its indicator (`run: | # zizmor: …`); the value is the same. */
export class NotedLiteral extends Styled {
  constructor(value: string, readonly note: string) {
    super(value, "literal");
  }
}
/** Literal block (`|`) whose indicator line ends with `# note`. */
export const litNoted = (v: string, note: string): NotedLiteral => new NotedLiteral(v, note);

function blockLinesOf(v: Styled, indent: string): string[] {
  const [indicator, ...lines] = blockLines(v, indent);
  const head = v instanceof NotedLiteral ? `${indicator} # ${v.note}` : indicator;
  if (!(v instanceof BareBlankLiteral)) return [head, ...lines];
  return [head, ...lines.map((l, i) => (v.bareLines.has(i) && l.trim() === "" ? "" : l))];
}
