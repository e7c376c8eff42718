/**
 * The template-injection guard: GitHub expands `${{ … }}` inside a `run:` or `script:` before the shell or
 * Node sees it, so an expression reading event data (an issue title, a dispatch input, a branch name) that
 * the compiler copies from the workflow's text into a script it generates becomes code an attacker writes.
 * The prompt passes body expressions through `env:`; this check refuses any path that still copies one into
 * a generated script (the author's own `steps:` scripts are theirs to write and are left alone).
 */
import type { Diagnostic } from "../api.ts";
import { diagnostic } from "../source/diagnostics.ts";
import type { JobPlan } from "./types.ts";
import { Styled, type YValue } from "../yaml/writer.ts";
import { isObject, objectOf } from "../source/values.ts";

/** A file whose text the author controls: the workflow or one of its imports. */
export interface AuthorText {
  path: string;
  frontmatterText: string;
  body: string;
  frontmatterStartLine: number;
  /** The file's typed frontmatter, searched for the author's own `run:` and `script:` texts. */
  frontmatter: unknown;
}

/** Contexts whose values someone other than the workflow's author can choose. */
const UNTRUSTED =
  /\b(github\.event\b|github\.head_ref\b|inputs\.|needs\.[\w-]+\.outputs\.|steps\.[\w-]+\.outputs\.)/;
const EXPRESSION = /\$\{\{\s*([^}]+?)\s*\}\}/g;

/** Error diagnostics for author-written untrusted expressions found in scripts the compiler generated. */
export function scriptExpressionProblems(jobs: Record<string, JobPlan>, files: AuthorText[]): Diagnostic[] {
  const written = new Set<string>();
  for (const f of files) {
    for (const m of `${f.frontmatterText}\n${f.body}`.matchAll(EXPRESSION)) {
      if (UNTRUSTED.test(m[1])) written.add(m[1]);
    }
  }
  if (written.size === 0) return [];
  const ownScripts = new Set(files.flatMap((f) => scriptTexts(f.frontmatter)).map((t) => t.trim()));
  const problems: Diagnostic[] = [];
  const reported = new Set<string>();
  for (const [jobName, job] of Object.entries(jobs)) {
    for (const step of job.steps ?? []) {
      for (
        const script of [textOf(step.run), textOf(objectOf<YValue>(step.with).script)]
      ) {
        if (script === undefined || ownScripts.has(script.trim())) continue;
        for (const m of script.matchAll(EXPRESSION)) {
          if (!written.has(m[1])) continue;
          const at = locateExpression(
            files,
            m[1],
            script.slice(0, m.index),
            script.slice(m.index + m[0].length),
          );
          const key = `${jobName}/${step.name ?? step.id}@${at.line}:${at.column}`;
          if (reported.has(key)) continue;
          reported.add(key);
          const where = step.name ?? step.id ?? "(unnamed)";
          problems.push(
            diagnostic(
              "expression-in-script",
              at,
              `\`\${{ ${
                m[1]
              } }}\` would be expanded inside the script of step "${where}" in job "${jobName}"`,
            ),
          );
        }
      }
    }
  }
  return problems;
}

/** Every `run:` and `script:` string of a frontmatter value, at any depth (steps, jobs, safe-output jobs). */
function scriptTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(scriptTexts);
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    (k === "run" || k === "script") && typeof v === "string" ? [v] : scriptTexts(v)
  );
}

function textOf(v: YValue | undefined): string | undefined {
  if (typeof v === "string") return v;
  return v instanceof Styled ? v.value : undefined;
}

/**
 * Where the author wrote the expression found in a script between `head` and `tail`: the occurrence whose
 * neighbouring characters agree longest with the script's (a value is copied with its surroundings).
 */
function locateExpression(files: AuthorText[], expr: string, head: string, tail: string) {
  let best = { at: { file: files[0].path, line: 1, column: 1 }, score: -1 };
  for (const f of files) {
    const fmLines = f.frontmatterText.split("\n");
    const bodyStart = f.frontmatterText === "" ? 1 : f.frontmatterStartLine + fmLines.length + 1;
    const candidates: [string[], number][] = [[fmLines, f.frontmatterStartLine], [
      f.body.split("\n"),
      bodyStart,
    ]];
    for (const [lines, firstLine] of candidates) {
      for (const [index, line] of lines.entries()) {
        for (const m of line.matchAll(EXPRESSION)) {
          if (m[1] !== expr) continue;
          const score = commonSuffix(line.slice(0, m.index), head) +
            commonPrefix(line.slice(m.index + m[0].length), tail);
          if (score > best.score) {
            best = { at: { file: f.path, line: firstLine + index, column: m.index + 1 }, score };
          }
        }
      }
    }
  }
  return best.at;
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function commonSuffix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}
