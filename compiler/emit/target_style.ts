/**
 * How a target release writes the lock text where it differs from v0.76.1's, applied to the emitted text
 * (compiler/targets/ `EmitStyle`): helper `require`s through `path.join(actionsDir, …)`, no trailing
 * whitespace.
 */
import type { EmitStyle } from "../targets/mod.ts";

const RUNNER_TEMP_REQUIRE = /require\('\$\{\{ runner\.temp \}\}\/gh-aw\/actions\/([\w.-]+\.cjs)'\)/g;

/**
 * `script: |` blocks that load helpers from `${{ runner.temp }}/gh-aw/actions/` load them through
 * `path.join(actionsDir, 'x.cjs')`, with `path` and `actionsDir` declared first in the block.
 */
export function pathJoinRequires(text: string): string {
  if (!text.includes("require('${{ runner.temp }}/gh-aw/actions/")) return text;
  return pathJoinLines(text.split("\n")).join("\n");
}

/** {@link pathJoinRequires} over the lines of a text. */
function pathJoinLines(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
    // Cheap test first: most lines hold no `script:` key.
    if (!lines[i].includes("script: |")) continue;
    const header = /^( *)(?:- )?script: \|[-+]?$/.exec(lines[i]);
    if (!header) continue;
    // The block: the following lines indented deeper than `script:` (blank lines included).
    const keyIndent = lines[i].indexOf("script:");
    let end = i + 1;
    while (end < lines.length && (lines[end].trim() === "" || lines[end].search(/\S/) > keyIndent)) end++;
    while (end > i + 1 && lines[end - 1].trim() === "") end--;
    const block = lines.slice(i + 1, end);
    if (!block.some((l) => RUNNER_TEMP_REQUIRE.test(l))) continue;
    RUNNER_TEMP_REQUIRE.lastIndex = 0;
    const indent = " ".repeat(block.find((l) => l.trim() !== "")!.search(/\S/));
    out.push(
      `${indent}const path = require('path');`,
      `${indent}const actionsDir = path.join(process.env.RUNNER_TEMP, 'gh-aw', 'actions');`,
    );
    for (const l of block) out.push(l.replace(RUNNER_TEMP_REQUIRE, "require(path.join(actionsDir, '$1'))"));
    i = end - 1;
  }
  return out;
}

/** The lock text as the target release writes it. */
export function applyEmitStyle(text: string, style: EmitStyle | undefined): string {
  if (!style) return text;
  let out = text;
  const pathJoin = style.helperRequire === "path-join" &&
    text.includes("require('${{ runner.temp }}/gh-aw/actions/");
  if (pathJoin || style.trimTrailingWhitespace) {
    // One split and one join for both rewrites (the split of a whole lock is not cheap).
    let lines = out.split("\n");
    if (pathJoin) lines = pathJoinLines(lines);
    if (style.trimTrailingWhitespace) trimLines(lines);
    out = lines.join("\n");
  }
  if (style.noFinalBlankLine) {
    let end = out.length;
    while (end > 1 && out.charCodeAt(end - 1) === 10 && out.charCodeAt(end - 2) === 10) end--;
    out = out.slice(0, end);
  }
  return out;
}

const isBlank = (c: number) => c === 32 || c === 9;

/**
 * The text without spaces and tabs at the end of its lines. By hand: `/[ \t]+$/gm` retries at every
 * position of each line's indentation, a tenth of a v0.87.4 compile.
 */
export function trimLineEnds(text: string): string {
  const lines = text.split("\n");
  trimLines(lines);
  return lines.join("\n");
}

/** Trims spaces and tabs from the end of each line, in place. */
function trimLines(lines: string[]): void {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    let end = l.length;
    while (end > 0 && isBlank(l.charCodeAt(end - 1))) end--;
    if (end < l.length) lines[i] = l.slice(0, end);
  }
}
