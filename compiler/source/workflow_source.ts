/**
 * Stages 1–3 — parse, validate, resolve imports: reads one workflow, checks its frontmatter, loads and
 * merges its imports. The {@link WorkflowSource} it returns is what the planner reads.
 */
import { posix } from "node:path";
import type { Diagnostic, FileReader } from "../api.ts";
import { parseWorkflowFile } from "./parse.ts";
import { validateFrontmatter } from "./schema.ts";
import { resolveImports } from "./imports.ts";
import { mergeImports } from "./merge.ts";
import { diagnostic } from "./diagnostics.ts";

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
  /** The parsed file: frontmatter, body, and a locator of key paths. */
  file: ReturnType<typeof parseWorkflowFile>;
  /** The validated frontmatter. */
  frontmatter: Record<string, unknown>;
  /** The resolved imports, in resolution order. */
  imports: Awaited<ReturnType<typeof resolveImports>>["imports"];
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
  const data = file.data;
  diagnostics.push(...validateFrontmatter(file, false));
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

  const merged = mergeImports(data, imports, source, diagnostics);
  return { path: source, id, lockPath, content, file, frontmatter: data, imports, merged };
}
