/**
 * Stages 1–3 — parse, validate, resolve imports: reads one workflow, checks its frontmatter, loads and
 * merges its imports. The {@link WorkflowSource} it returns is what the planner reads.
 */
import { posix } from "node:path";
import type { Diagnostic, FileReader } from "../api.ts";
import { type ParsedFile, parseWorkflowFile, splitFrontmatter } from "./parse.ts";
import { bodyBeforeInlineSections } from "./inline_sections.ts";
import { type Frontmatter, validateFrontmatter } from "./schema.ts";
import { type ResolvedImport, resolveImports } from "./imports.ts";
import { mergeImports } from "./merge.ts";
import { diagnostic } from "./diagnostics.ts";
import { clonePlain } from "./clone_plain.ts";
import { computeBodyHash, computeFrontmatterHash } from "./hash.ts";

/** A parsed file as the planner sees it: text split and locator, not the raw data. */
export type PlannedFile = Omit<ParsedFile, "data">;
/** An import as the planner sees it: its typed frontmatter, not its raw data. */
export type PlannedImport = Omit<ResolvedImport, "file"> & { file: PlannedFile };

/** A workflow read, validated and merged with its imports. */
export interface WorkflowSource {
  /** Path of the `.md` file, relative to the repository root. */
  path: string;
  /** The workflow id (file name without `.md`). */
  id: string;
  /** Path of its `.lock.yml`. */
  lockPath: string;
  /** The hashes of the runtime stale check, computed from the text when the workflow is loaded. */
  hashes: { frontmatter: string; body: string };
  /** The parsed file's text split and its locator of key paths (its raw data stays in source/). */
  file: PlannedFile;
  /** The validated frontmatter: the typed model the planner reads. */
  frontmatter: Frontmatter;
  /** The resolved imports, in resolution order. */
  imports: PlannedImport[];
  /** The frontmatter merged with its imports. */
  merged: ReturnType<typeof mergeImports>;
  /**
   * With `inlined-imports: true`, the Markdown (frontmatter removed) of each file a body
   * `{{#runtime-import …}}` macro names that is not an import: gh-aw embeds it at compile time.
   */
  macroBodies: Record<string, string>;
}

/**
 * Workflow parses by path and text (bounded): a process that compiles again (a watch, a warm benchmark, an
 * editor) parses only what changed. Each caller gets its own copy of the data; the parse itself (split,
 * locator) is read-only.
 */
const parsedWorkflows = new Map<string, ParsedFile>();
const PARSE_MEMO_LIMIT = 512;

function parsedWorkflow(path: string, content: string): ParsedFile {
  const key = `${path}\0${content}`;
  let hit = parsedWorkflows.get(key);
  if (!hit) {
    hit = parseWorkflowFile(path, content);
    if (parsedWorkflows.size >= PARSE_MEMO_LIMIT) {
      parsedWorkflows.delete(parsedWorkflows.keys().next().value!);
    }
    parsedWorkflows.set(key, hit);
  }
  return { ...hit, data: clonePlain(hit.data), diagnostics: hit.diagnostics.map((d) => ({ ...d })) };
}

/**
 * Loads a workflow; undefined when it cannot be planned (its diagnostics are in `diagnostics`). Every file
 * read is added to `dependencies`.
 */
export async function loadWorkflowSource(
  source: string,
  read: FileReader,
  diagnostics: Diagnostic[],
  dependencies: string[],
  /** Top-level keys the target release supports beyond v0.76.1's (`GhAwTarget.frontmatterKeys`). */
  extraKeys: readonly string[] = [],
  /** Why the target refuses each newer key (`newerKeyRefusals`); default: v0.76.1's. */
  refusals?: Readonly<Record<string, string>>,
): Promise<WorkflowSource | undefined> {
  const lockPath = source.replace(/\.md$/, ".lock.yml");
  const id = posix.basename(source, ".md");
  const content = await read(source);
  if (content === undefined) {
    diagnostics.push(
      diagnostic("not-found", { file: source, line: 1, column: 1 }, `workflow ${source} not found`),
    );
    return undefined;
  }
  const file = parsedWorkflow(source, content);
  diagnostics.push(...file.diagnostics);
  if (!file.split.hasFrontmatter) {
    diagnostics.push(
      diagnostic("no-frontmatter", { file: source, line: 1, column: 1 }, "the workflow has no frontmatter"),
    );
  }
  if (diagnostics.some((d) => d.severity === "error")) return undefined;
  const validated = validateFrontmatter(file, false, extraKeys, refusals);
  diagnostics.push(...validated.diagnostics);
  if (!file.split.body.trim()) {
    diagnostics.push(
      diagnostic(
        "empty-body",
        { file: source, line: 1, column: 1 },
        "the workflow body (instructions for the agent) is empty",
      ),
    );
  }
  const { imports, diagnostics: importDiags } = await resolveImports(file, read, extraKeys, refusals);
  diagnostics.push(...importDiags);
  dependencies.push(...imports.map((i) => i.path));
  if (diagnostics.some((d) => d.severity === "error")) return undefined;

  const merged = mergeImports(file.data, validated.frontmatter, imports, source, diagnostics);
  const macroBodies = file.data["inlined-imports"] === true
    ? await readMacroBodies(file.split.body, imports.map((i) => i.path), read, dependencies)
    : {};
  const hashes = {
    frontmatter: await computeFrontmatterHash(source, content, read),
    body: await computeBodyHash(source, content, read),
  };
  return {
    path: source,
    id,
    lockPath,
    hashes,
    file,
    frontmatter: validated.frontmatter,
    imports,
    merged,
    macroBodies,
  };
}

/** Repository path of a `{{#runtime-import …}}` macro's file (relative to `.github/workflows` unless under `.github/`). */
export function macroPath(spec: string): string {
  return spec.startsWith(".github/") ? spec : posix.normalize(posix.join(".github/workflows", spec));
}

/** The bodies of the files the body's runtime-import macros name, imports excepted (missing files skipped). */
async function readMacroBodies(
  body: string,
  importPaths: string[],
  read: FileReader,
  dependencies: string[],
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const m of bodyBeforeInlineSections(body).matchAll(/^\{\{#runtime-import\s+([^}\s]+)\s*\}\}/gm)) {
    const path = macroPath(m[1]);
    if (importPaths.includes(path) || path in out) continue;
    const text = await read(path);
    if (text === undefined) continue;
    dependencies.push(path);
    try {
      out[path] = splitFrontmatter(text).body;
    } catch {
      out[path] = text; // an unclosed frontmatter: gh-aw embeds the file as it is
    }
  }
  return out;
}
