/**
 * The small JSON dialect of the MCP gateway configuration heredoc: 2-space indentation, one array item
 * per line, strings written without escaping backslashes (the heredoc keeps `\${VAR}` for the gateway to
 * expand), raw tokens (`$MCP_GATEWAY_PORT`, `${{ steps.x.outputs.y }}`) and a few inline arrays.
 */

/** A value written verbatim (no quotes). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A string array written on one line (`["a", "b"]`). */
export class InlineJson {
  constructor(readonly items: string[]) {}
}

/** An object whose entries are written one level shallower than its key (Codex's custom servers). */
export class ShallowJson {
  constructor(readonly value: { [key: string]: JsonValue }) {}
}

/** Values the writer understands. Objects keep insertion order. */
export type JsonValue = string | number | boolean | RawJson | InlineJson | ShallowJson | JsonValue[] | {
  [key: string]: JsonValue;
};

function str(s: string): string {
  return `"${s.replace(/"/g, '\\"')}"`;
}

/** Renders a value; nested lines are indented by `indent` plus two spaces per level. */
export function renderJson(v: JsonValue, indent = ""): string {
  if (typeof v === "string") return str(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof RawJson) return v.text;
  if (v instanceof InlineJson) return `[${v.items.map(str).join(", ")}]`;
  if (v instanceof ShallowJson) {
    const body = renderJson(v.value, indent.slice(2));
    return `${body.slice(0, body.lastIndexOf("\n"))}\n${indent}}`;
  }
  const inner = indent + "  ";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return `[\n${v.map((x) => inner + renderJson(x, inner)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return "{}";
  return `{\n${
    entries.map(([k, x]) => `${inner}${str(k)}: ${renderJson(x, inner)}`).join(",\n")
  }\n${indent}}`;
}
