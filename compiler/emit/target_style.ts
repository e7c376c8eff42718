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
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]);
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
  return out.join("\n");
}

/** The lock text as the target release writes it. */
export function applyEmitStyle(text: string, style: EmitStyle | undefined): string {
  if (!style) return text;
  let out = text;
  if (style.helperRequire === "path-join") out = pathJoinRequires(out);
  if (style.trimTrailingWhitespace) out = out.replace(/[ \t]+$/gm, "");
  if (style.noFinalBlankLine) out = out.replace(/\n+$/, "\n");
  return out;
}
