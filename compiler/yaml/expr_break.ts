/**
 * gh-aw's line breaking of long `if:` conditions: written as a folded block, broken after `&&`/`||` once a
 * line exceeds 100 characters (never inside quotes), over-long lines then broken after a closing
 * parenthesis followed by an operator.
 */

/** Conditions longer than this are written as folded blocks. */
export const MAX_EXPRESSION_LINE = 120;
const BREAK_THRESHOLD = 100;

/** Splits a long condition into the lines gh-aw writes (joined by spaces they give back the condition). */
export function breakLongExpression(expr: string): string[] {
  if (expr.length <= MAX_EXPRESSION_LINE) return [expr];
  const lines: string[] = [];
  let cur = "";
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i];
    if (ch === "'" || ch === '"' || ch === "`") {
      cur += ch;
      i++;
      while (i < expr.length) {
        cur += expr[i];
        if (expr[i] === ch) {
          i++;
          break;
        }
        if (expr[i] === "\\" && i + 1 < expr.length) {
          i++;
          cur += expr[i];
        }
        i++;
      }
      continue;
    }
    const two = expr.slice(i, i + 2);
    if (two === "||" || two === "&&") {
      cur += two;
      i += 2;
      if (cur.trim().length > BREAK_THRESHOLD) {
        lines.push(cur.trim());
        cur = "";
        while (i < expr.length && (expr[i] === " " || expr[i] === "\t")) i++;
      }
      continue;
    }
    cur += ch;
    i++;
  }
  if (cur.trim()) lines.push(cur.trim());
  return lines.flatMap((l) => (l.length > MAX_EXPRESSION_LINE ? breakAtParentheses(l) : [l]));
}

function breakAtParentheses(expr: string): string[] {
  const lines: string[] = [];
  let cur = "";
  let depth = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    cur += ch;
    if (ch === "(") depth++;
    else if (ch === ")") {
      depth--;
      if (depth === 0 && cur.length > 80 && i < expr.length - 1) {
        let j = i + 1;
        while (j < expr.length && (expr[j] === " " || expr[j] === "\t")) j++;
        const op = expr.slice(j, j + 2);
        if (j + 1 < expr.length && (op === "||" || op === "&&")) {
          cur += expr.slice(i + 1, j + 2);
          lines.push(cur.trim());
          cur = "";
          i = j + 1;
          while (i + 1 < expr.length && (expr[i + 1] === " " || expr[i + 1] === "\t")) i++;
        }
      }
    }
  }
  if (cur.trim()) lines.push(cur.trim());
  return lines;
}
