/**
 * The Markdown passes gh-aw applies to prompt text it embeds at compile time (imports with inputs, and every
 * import and the body under `inlined-imports: true`): HTML comments removed, `{{#if …}}` conditions wrapped
 * as expressions, and each `${{ … }}` expression replaced by the `__GH_AW_…__` placeholder of the env var
 * that carries its value.
 */
import { sha256Hex } from "@switchyard/lib/crypto.ts";

/** Env-var name for an expression: `GH_AW_<CHAIN>` for simple property chains, else a hashed name. */
export function exprEnvName(expr: string): string {
  const e = expr.trim();
  if (/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(e)) {
    return "GH_AW_" + e.replace(/\./g, "_").toUpperCase();
  }
  return "GH_AW_EXPR_" + sha256Hex(e).slice(0, 8).toUpperCase();
}

/** A fenced-code marker (three or more backticks or tildes) at the start of a trimmed line, or "". */
function fenceMarker(trimmed: string): string {
  return /^(`{3,}|~{3,})/.exec(trimmed)?.[1] ?? "";
}

/** Whether `trimmed` closes a fence opened by `open` (same character, at least as long). */
function closesFence(trimmed: string, open: string): boolean {
  const m = fenceMarker(trimmed);
  return m !== "" && m[0] === open[0] && m.length >= open.length;
}

/** Removes the `<!-- … -->` parts of one line; returns the rest and whether a comment is still open. */
function stripLineComments(line: string, inComment: boolean): [string, boolean] {
  let rest = line;
  for (;;) {
    if (inComment) {
      const close = rest.indexOf("-->");
      if (close < 0) return ["", true];
      rest = rest.slice(close + 3);
      inComment = false;
      continue;
    }
    const open = rest.indexOf("<!--");
    if (open < 0) return [rest, false];
    const close = rest.indexOf("-->", open);
    if (close < 0) return [rest.slice(0, open), true];
    rest = rest.slice(0, open) + rest.slice(close + 3);
  }
}

/**
 * HTML comments removed outside fenced code (gh-aw's `removeXMLComments`): a line that opens a multi-line
 * comment keeps its text before it and leaves one empty line, the lines inside go, the closing line keeps
 * its text after the comment (nothing when that is blank).
 */
export function removeHtmlComments(text: string): string {
  const out: string[] = [];
  let fence = "";
  let inComment = false;
  for (const line of text.split("\n")) {
    if (fence) {
      if (closesFence(line.trim(), fence)) fence = "";
      out.push(line);
      continue;
    }
    const was = inComment;
    const [rest, now] = stripLineComments(line, inComment);
    inComment = now;
    if (was && now) continue;
    const marker = fenceMarker(rest.trim());
    if (marker) {
      fence = marker;
      out.push(rest);
      continue;
    }
    if (!was && !now) out.push(rest);
    else if (!was && now) {
      if (rest.trim() !== "") out.push(rest);
      out.push("");
    } else if (rest.trim() !== "") out.push(rest);
  }
  return out.join("\n");
}

/** Whether a template condition is already an expression, an env reference or a placeholder. */
function keepsCondition(expr: string): boolean {
  return expr.startsWith("${") || expr.startsWith("__");
}

/** `{{#if cond}}` (and `{#if cond}`) become `{{#if ${{ cond }} }}`, so the condition is extracted like any expression. */
export function wrapTemplateConditionals(text: string): string {
  const double = text.replace(/\{\{#if\s+([^}]+)\}\}/g, (all, raw: string) => {
    const expr = raw.trim();
    return keepsCondition(expr) ? all : `{{#if \${{ ${expr} }} }}`;
  });
  return double.replace(/(^|[^{])\{#if\s+([^}]+)\}(?=[^}]|$)/g, (all, before: string, raw: string) => {
    const expr = raw.trim();
    return keepsCondition(expr) ? all : `${before}{#if \${{ ${expr} }} }`;
  });
}

/** The rewrites gh-aw applies to an expression before naming it (deprecated outputs, experiment values). */
export function transformExpression(expr: string): string {
  let e = expr.replace(
    /needs\.activation\.outputs\.(text|title|body)(?![\w])/g,
    "steps.sanitized.outputs.$1",
  );
  const simple = /^experiments\.([A-Za-z_]\w*)$/.exec(e);
  if (simple) return `steps.pick-experiment.outputs.${simple[1]}`;
  const cmp = /^experiments\.([A-Za-z_]\w*)([ \t]*(?:!==?|===?)[ \t]*(?:"[^"]*"|'[^']*')[ \t]*)$/.exec(e);
  if (cmp) e = `steps.pick-experiment.outputs.${cmp[1]}${cmp[2].replace(/"/g, "'")}`;
  return e;
}

/** One `${{ … }}` occurrence: its text, env var and (transformed) expression. */
export interface ExprMapping {
  original: string;
  name: string;
  expr: string;
}

/**
 * The expressions of one text as gh-aw's extractor lists them: each distinct `${{ … }}` once, ordered by
 * its text (byte order). `secrets.` and `vars.` are never passed to the prompt.
 */
export function extractExpressions(text: string): ExprMapping[] {
  const seen = new Map<string, ExprMapping>();
  for (const m of text.matchAll(/\$\{\{\s*([^}]+?)\s*\}\}/g)) {
    if (seen.has(m[0]) || /^(secrets|vars)\./.test(m[1])) continue;
    const expr = transformExpression(m[1]);
    seen.set(m[0], { original: m[0], name: exprEnvName(expr), expr });
  }
  return [...seen.values()].sort((a, b) => (a.original < b.original ? -1 : a.original > b.original ? 1 : 0));
}

/** Each extracted expression replaced by its placeholder, longest text first (as gh-aw). */
export function replaceExpressions(text: string, mappings: ExprMapping[]): string {
  let out = text;
  for (const m of [...mappings].sort((a, b) => b.original.length - a.original.length)) {
    out = out.split(m.original).join(`__${m.name}__`);
  }
  return out;
}

/**
 * A text embedded in the prompt: comments removed, conditions wrapped, the expressions `keep` accepts
 * extracted and replaced by their placeholders (the others stay as written).
 */
export function embedPromptText(
  text: string,
  keep: (m: ExprMapping) => boolean = () => true,
): { text: string; exprs: ExprMapping[] } {
  const wrapped = wrapTemplateConditionals(removeHtmlComments(text));
  const exprs = extractExpressions(wrapped).filter(keep);
  return { text: replaceExpressions(wrapped, exprs), exprs };
}
