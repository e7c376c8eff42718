/** Reading workflow Markdown frontmatter for the commands that need a little of it (dispatch, logs). */
import { parse } from "yaml";
import { frontmatterText } from "./staleness.ts";

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
        if (parsed && typeof parsed === "object") frontmatter = parsed as Record<string, unknown>;
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
  if (!on || typeof on !== "object") return [];
  const dispatch = (on as Record<string, unknown>).repository_dispatch;
  if (!dispatch || typeof dispatch !== "object") return [];
  const types = (dispatch as Record<string, unknown>).types;
  return Array.isArray(types) ? types.filter((t): t is string => typeof t === "string") : [];
}
