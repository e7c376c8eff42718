/** Reading workflow Markdown frontmatter for the commands that need a little of it (dispatch, logs). */
import { parse } from "yaml";
import { frontmatterText } from "./staleness.ts";
import { isObject } from "../source/values.ts";

/** A workflow source with its parsed frontmatter. */
export interface WorkflowSource {
  /** Path relative to the root (`.github/workflows/x.md`). */
  path: string;
  /** Name without extension (`x`). */
  id: string;
  /** Parsed frontmatter; empty object when unreadable. */
  frontmatter: Record<string, unknown>;
}

/** Every `.md` workflow directly in `.github/workflows` (shared imports in subfolders are skipped). */
export async function readWorkflowSources(root: string): Promise<WorkflowSource[]> {
  const list: WorkflowSource[] = [];
  try {
    for await (const entry of Deno.readDir(`${root}/.github/workflows`)) {
      if (!entry.isFile || !entry.name.endsWith(".md") || entry.name.toLowerCase() === "readme.md") continue;
      const text = await Deno.readTextFile(`${root}/.github/workflows/${entry.name}`);
      let frontmatter: Record<string, unknown> = {};
      try {
        const parsed = parse(frontmatterText(text));
        if (isObject(parsed)) frontmatter = parsed;
      } catch { /* the compiler reports bad YAML */ }
      list.push({ path: `.github/workflows/${entry.name}`, id: entry.name.slice(0, -3), frontmatter });
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return list.sort((a, b) => a.path.localeCompare(b.path));
}

/** The `repository_dispatch` types a workflow declares (`on.repository_dispatch.types`). */
export function dispatchTypes(frontmatter: Record<string, unknown>): string[] {
  const on = frontmatter.on;
  if (!isObject(on)) return [];
  const dispatch = on.repository_dispatch;
  if (!isObject(dispatch)) return [];
  const types = dispatch.types;
  return Array.isArray(types) ? types.filter((t): t is string => typeof t === "string") : [];
}
