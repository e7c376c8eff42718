/**
 * Stage 1 — parse: split a workflow Markdown file into its YAML frontmatter and its body, and parse the
 * frontmatter with positions kept so later stages can point at `file:line:col`.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import type { Node as YamlNode } from "yaml";
import type { Diagnostic } from "../api.ts";
import { diagnostic } from "./diagnostics.ts";
import { isMapping } from "./values.ts";

/** The text parts of a workflow file, split exactly as gh-aw's text-based hash does. */
export interface SplitFile {
  /** Lines between the opening and closing `---` (joined with LF), or "" without frontmatter. */
  frontmatterText: string;
  /** Everything after the closing `---` line. */
  body: string;
  /** Whether the file starts with a `---` line. */
  hasFrontmatter: boolean;
  /** 1-based line of the first frontmatter line (always 2 when present). */
  frontmatterStartLine: number;
}

/** Splits text into frontmatter and body (CRLF normalised to LF). Throws when the frontmatter is unclosed. */
export function splitFrontmatter(content: string): SplitFile {
  // Scans line by line with indexOf instead of splitting the whole file and joining the body again: the
  // body is most of the text, and the split-and-join was 3% of a warm corpus compile.
  const text = content.includes("\r\n") ? content.replace(/\r\n/g, "\n") : content;
  const firstEnd = text.indexOf("\n");
  if ((firstEnd < 0 ? text : text.slice(0, firstEnd)).trim() !== "---") {
    return { frontmatterText: "", body: content, hasFrontmatter: false, frontmatterStartLine: 1 };
  }
  if (firstEnd < 0) throw new Error("frontmatter not properly closed");
  for (let start = firstEnd + 1; start <= text.length;) {
    const end = text.indexOf("\n", start);
    const line = end < 0 ? text.slice(start) : text.slice(start, end);
    if (line.trim() === "---") {
      return {
        frontmatterText: start > firstEnd + 1 ? text.slice(firstEnd + 1, start - 1) : "",
        body: end < 0 ? "" : text.slice(end + 1),
        hasFrontmatter: true,
        frontmatterStartLine: 2,
      };
    }
    if (end < 0) break;
    start = end + 1;
  }
  throw new Error("frontmatter not properly closed");
}

/** A parsed workflow file: plain data plus a locator from a key path to its source position. */
export interface ParsedFile {
  /** Repository-relative path. */
  path: string;
  /** Raw split parts. */
  split: SplitFile;
  /** Frontmatter as plain data (an object; `{}` when absent or empty). */
  data: Record<string, unknown>;
  /** Finds `[line, column]` (1-based) of the value (or key) at a path; falls back to the frontmatter start. */
  locate: (path: (string | number)[], key?: boolean) => [number, number];
  /** Parse errors. */
  diagnostics: Diagnostic[];
}

/** Parses a workflow or shared-import file. */
export function parseWorkflowFile(path: string, content: string): ParsedFile {
  const diagnostics: Diagnostic[] = [];
  let split: SplitFile;
  try {
    split = splitFrontmatter(content);
  } catch {
    split = { frontmatterText: "", body: "", hasFrontmatter: true, frontmatterStartLine: 2 };
    diagnostics.push(
      diagnostic(
        "frontmatter-unclosed",
        { file: path, line: 1, column: 1 },
        "the frontmatter starting on line 1 is never closed",
      ),
    );
  }
  const offset = split.frontmatterStartLine - 1;
  const lineCounter = new LineCounter();
  const doc = parseDocument(split.frontmatterText, { lineCounter, uniqueKeys: true, prettyErrors: false });
  for (const err of doc.errors) {
    const pos = lineCounter.linePos(err.pos[0]);
    diagnostics.push(
      diagnostic(
        "yaml-syntax",
        { file: path, line: pos.line + offset, column: pos.col },
        `invalid YAML in frontmatter: ${err.message.split("\n")[0]}`,
      ),
    );
  }
  let data: Record<string, unknown> = {};
  let expanded = doc.errors.length === 0;
  let js: unknown;
  if (expanded) {
    try {
      js = doc.toJS({ maxAliasCount: 1000 });
    } catch (error) {
      // The yaml library stops an alias that expands past maxAliasCount with a ReferenceError.
      if (!(error instanceof ReferenceError)) throw error;
      expanded = false;
      const alias = /\*[\w.-]+/.exec(split.frontmatterText);
      const pos = lineCounter.linePos(alias?.index ?? 0);
      diagnostics.push(
        diagnostic(
          "yaml-alias-limit",
          { file: path, line: pos.line + offset, column: pos.col },
          "the frontmatter's YAML aliases expand to more than 1000 nodes",
        ),
      );
    }
  }
  if (expanded) {
    if (isMapping(js)) data = js;
    else if (js !== null && js !== undefined) {
      diagnostics.push(
        diagnostic(
          "frontmatter-not-object",
          { file: path, line: split.frontmatterStartLine, column: 1 },
          "the frontmatter must be a YAML mapping",
        ),
      );
    }
  }
  const locate = (keyPath: (string | number)[], key = false): [number, number] => {
    let node: YamlNode | null | undefined = doc.contents as YamlNode | null;
    let keyNode: YamlNode | undefined;
    let last: YamlNode | undefined = node ?? undefined;
    for (const seg of keyPath) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        keyNode = pair.key as YamlNode;
        node = pair.value as YamlNode | null;
        last = (node ?? keyNode) as YamlNode;
      } else if (isSeq(node) && typeof seg === "number") {
        node = node.items[seg] as YamlNode | null;
        keyNode = undefined;
        if (!node) break;
        last = node;
      } else break;
    }
    const target = key && keyNode ? keyNode : last;
    const range = target?.range;
    if (!range) return [split.frontmatterStartLine, 1];
    const pos = lineCounter.linePos(range[0]);
    return [pos.line + offset, pos.col];
  };
  return { path, split, data, locate, diagnostics };
}
