/**
 * gh-aw's run-step sanitizer for the steps of custom `jobs:`: every `${{ … }}` a `run:` script would hand to
 * the shell as source moves to the step's `env:` under its `GH_AW_…` name, and the script reads `$GH_AW_…`
 * instead. What the shell does not execute is left alone: heredoc bodies (written to a file or stdin) and `#`
 * comments are not scanned, and a quoted heredoc (`<<'EOF'`, where `$VAR` would not expand) keeps its
 * expressions even when the same expression is replaced elsewhere in the script.
 */
import { exprEnvName } from "./prompt_markdown.ts";
import { isMapping, objectOf } from "../../source/values.ts";

const EXPRESSION = /\$\{\{\s*([\s\S]*?)\s*\}\}/g;

/** The heredoc a line opens (`<<`, `<<-`; not `<<<` or a shift), with whether its delimiter is quoted. */
function heredocOpened(line: string): { delimiter: string; quoted: boolean } | undefined {
  const at = line.indexOf("<<");
  if (at < 0) return undefined;
  let after = line.slice(at + 2);
  if (after.startsWith("<")) return undefined;
  if (after.startsWith("-")) after = after.slice(1);
  const rest = after.trim();
  const quote = rest[0];
  if (quote === "'" || quote === '"') {
    const end = rest.indexOf(quote, 1);
    return end > 1 ? { delimiter: rest.slice(1, end), quoted: true } : undefined;
  }
  const token = (rest.split(/\s+/)[0] ?? "").replace(/[|;&]+$/, "");
  return /^[A-Za-z_]\w*$/.test(token) ? { delimiter: token, quoted: false } : undefined;
}

/** The script's lines, each marked by whether it is a heredoc body and whether that heredoc is quoted. */
function classifyLines(script: string): { line: string; body: boolean; quoted: boolean }[] {
  const out: { line: string; body: boolean; quoted: boolean }[] = [];
  let open: { delimiter: string; quoted: boolean } | undefined;
  for (const line of script.split("\n")) {
    if (open) {
      out.push({ line, body: true, quoted: open.quoted });
      if (line.trim() === open.delimiter) open = undefined;
      continue;
    }
    out.push({ line, body: false, quoted: false });
    open = heredocOpened(line);
  }
  return out;
}

/** A line without its shell `#` comment (a `#` that starts a word outside quotes). */
function withoutComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "\\" && quote !== "'") i++;
    else if (quote) quote = c === quote ? "" : quote;
    else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
  }
  return line;
}

/**
 * One raw step with the expressions of its `run:` script moved to `env:` (an existing variable of the same
 * name and a different value keeps its name; the expression takes `<name>_2`, `_3`…). Other steps unchanged.
 */
export function sanitizeRunStep(step: unknown): unknown {
  if (!isMapping(step)) return step;
  const s = step;
  if (typeof s.run !== "string" || !s.run.includes("${{")) return step;
  const lines = classifyLines(s.run);
  const executable = lines.filter((l) => !l.body).map((l) => withoutComment(l.line)).join("\n");
  const found = [...new Map([...executable.matchAll(EXPRESSION)].map((m) => [m[0], m[1]])).entries()];
  if (found.length === 0) return step;
  const env: Record<string, unknown> = { ...objectOf(s.env) };
  const names = new Map<string, string>();
  for (const [original, content] of found) {
    let name = exprEnvName(content);
    for (let n = 2; env[name] !== undefined && env[name] !== original && n <= 100; n++) {
      name = `${exprEnvName(content)}_${n}`;
    }
    env[name] = original;
    names.set(original, name);
  }
  // Longest first, so an expression that is part of another is not replaced inside it.
  const order = [...names.keys()].sort((a, b) => b.length - a.length);
  const run = lines.map(({ line, body, quoted }) => {
    if (body && quoted) return line;
    let out = line;
    for (const original of order) out = out.split(original).join("$" + names.get(original));
    return out;
  }).join("\n");
  return { ...s, run, env };
}
