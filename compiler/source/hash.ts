/**
 * Frontmatter and body hashes exactly as gh-aw's runtime stale check ("Check workflow lock file")
 * recomputes them: text based (no YAML parse), so a lock's metadata is reproducible from the `.md` files
 * alone. Also the HMAC-derived heredoc delimiters.
 */
import { posix } from "node:path";
import { hmacSha256Hex, sha256Hex } from "@switchyard/lib/crypto.ts";
import { splitFrontmatter } from "./parse.ts";
import type { FileReader } from "../api.ts";
import { isObject } from "./values.ts";

/** CRLF → LF, then trim (gh-aw's `normalizeFrontmatterText`). */
export function normalizeText(text: string): string {
  return text.replace(/\r\n/g, "\n").trim();
}

/** Import paths named in a frontmatter's `imports:` block (line scan, quotes stripped). */
export function extractImportsFromText(frontmatterText: string): string[] {
  const out: string[] = [];
  let inImports = false;
  let baseIndent = 0;
  for (const line of frontmatterText.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("#")) continue;
    if (!inImports && trimmed.startsWith("imports:") && line.search(/\S/) === 0) {
      inImports = true;
      baseIndent = 0;
      continue;
    }
    if (!inImports) continue;
    const indent = line.search(/\S/);
    if (indent <= baseIndent) break;
    if (trimmed.startsWith("-")) {
      let item = trimmed.slice(1).trim();
      item = item.replace(/^["']|["']$/g, "");
      if (item) out.push(item);
    }
  }
  return out;
}

/** Template expressions `${{ … }}` of a body that mention `env.` or `vars.`, unique and sorted. */
export function extractRelevantExpressions(body: string): string[] {
  const found = new Set<string>();
  for (const m of body.matchAll(/\$\{\{([^}]+)\}\}/g)) {
    const inner = m[1].trim();
    if (inner.includes("env.") || inner.includes("vars.")) found.add(m[0]);
  }
  return [...found].sort(compareStrings);
}

/** Byte-order string comparison (Go's sort.Strings on ASCII/UTF-8). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON with recursively sorted keys, compact. */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "[" + value.map(canonicalJson).join(",") + "]";
  if (isObject(value)) {
    const obj = value;
    return "{" + Object.keys(obj).sort(compareStrings).map((k) =>
      JSON.stringify(k) + ":" + canonicalJson(obj[k])
    )
      .join(",") +
      "}";
  }
  return JSON.stringify(value);
}

interface ImportWalk {
  files: string[];
  texts: string[];
  bodies: string[];
}

async function walkImports(
  frontmatterText: string,
  dir: string,
  read: FileReader,
  visited: Set<string>,
  acc: ImportWalk,
): Promise<void> {
  const items = extractImportsFromText(frontmatterText).sort(compareStrings);
  for (const item of items) {
    const full = posix.join(dir, item.split("#")[0]);
    if (visited.has(full)) continue;
    visited.add(full);
    const content = await read(full);
    if (content === undefined) continue;
    let split;
    try {
      split = splitFrontmatter(content);
    } catch {
      continue;
    }
    acc.files.push(item);
    acc.texts.push(split.frontmatterText);
    acc.bodies.push(split.body);
    await walkImports(split.frontmatterText, posix.dirname(full), read, visited, acc);
  }
}

/**
 * The frontmatter hash of a workflow (`path` relative to the root; `read` reads root-relative paths).
 * Covers the frontmatter text, imported frontmatters and the body's `env.`/`vars.` expressions (or the
 * whole body when `inlined-imports: true`).
 */
export async function computeFrontmatterHash(
  path: string,
  content: string,
  read: FileReader,
): Promise<string> {
  const split = splitFrontmatter(content);
  const acc: ImportWalk = { files: [], texts: [], bodies: [] };
  await walkImports(split.frontmatterText, posix.dirname(path), read, new Set(), acc);
  const canonical: Record<string, unknown> = { "frontmatter-text": normalizeText(split.frontmatterText) };
  if (acc.files.length > 0) canonical.imports = [...acc.files].sort(compareStrings);
  if (acc.texts.length > 0) {
    canonical["imported-frontmatters"] = acc.texts.map(normalizeText).sort(compareStrings).join("\n---\n");
  }
  if (/^inlined-imports:\s*true\s*$/m.test(split.frontmatterText)) {
    canonical["body-text"] = normalizeText(split.body);
  } else {
    const exprs = extractRelevantExpressions(split.body);
    if (exprs.length > 0) canonical["template-expressions"] = exprs;
  }
  return sha256Hex(canonicalJson(canonical));
}

/** The body hash: the main body followed by the sorted bodies of every import, joined by `\n---\n`. */
export async function computeBodyHash(path: string, content: string, read: FileReader): Promise<string> {
  const split = splitFrontmatter(content);
  const acc: ImportWalk = { files: [], texts: [], bodies: [] };
  await walkImports(split.frontmatterText, posix.dirname(path), read, new Set(), acc);
  const parts = [normalizeText(split.body), ...acc.bodies.map(normalizeText).sort(compareStrings)];
  return sha256Hex(parts.join("\n---\n"));
}

/** Heredoc delimiter `GH_AW_<NAME>_<16 hex of HMAC-SHA256(frontmatter hash, NAME)>_EOF`. */
export function heredocDelimiter(name: string, frontmatterHash: string): string {
  const mac = hmacSha256Hex(frontmatterHash, name).slice(0, 16);
  return `GH_AW_${name}_${mac}_EOF`;
}
