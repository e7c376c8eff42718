/**
 * Stages 1–3 — parse, validate, resolve imports: reads one workflow, checks its frontmatter, loads and
 * merges its imports. The {@link WorkflowSource} it returns is what the planner reads.
 */
import { posix } from "node:path";
import type { Diagnostic, FileReader } from "../api.ts";
import { type ParsedFile, parseWorkflowFile } from "./parse.ts";
import { type Frontmatter, validateFrontmatter } from "./schema.ts";
import { type ResolvedImport, resolveImports } from "./imports.ts";
import { mergeImports } from "./merge.ts";
import { diagnostic } from "./diagnostics.ts";

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
  /** The file's text (the hashes are computed from it). */
  content: string;
  /** The parsed file's text split and its locator of key paths (its raw data stays in source/). */
  file: PlannedFile;
  /** The validated frontmatter: the typed model the planner reads. */
  frontmatter: Frontmatter;
  /** The resolved imports, in resolution order. */
  imports: PlannedImport[];
  /** The frontmatter merged with its imports. */
  merged: ReturnType<typeof mergeImports>;
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
  const file = parseWorkflowFile(source, content);
  diagnostics.push(...file.diagnostics);
  if (!file.split.hasFrontmatter) {
    diagnostics.push(
      diagnostic("no-frontmatter", { file: source, line: 1, column: 1 }, "the workflow has no frontmatter"),
    );
  }
  if (diagnostics.some((d) => d.severity === "error")) return undefined;
  const validated = validateFrontmatter(file, false);
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
  const { imports, diagnostics: importDiags } = await resolveImports(file, read);
  diagnostics.push(...importDiags);
  dependencies.push(...imports.map((i) => i.path));
  if (diagnostics.some((d) => d.severity === "error")) return undefined;

  const merged = mergeImports(file.data, imports, source, diagnostics);
  return { path: source, id, lockPath, content, file, frontmatter: validated.frontmatter, imports, merged };
}
