/**
 * Why a lock file is stale: compares the lock on disk with freshly compiled text. The runtime check only
 * covers the frontmatter hash (frontmatter, imported frontmatter, the body's `env.`/`vars.` expressions),
 * so a body-only edit is not stale unless the workflow opted into the full check (then the body is part of
 * the frontmatter hash and shows up as a frontmatter change).
 */
import type { CompiledWorkflow } from "../api.ts";
import { git } from "./git.ts";

/** The verdict for one workflow. */
export interface Staleness {
  /** `fresh` and `body-only` pass; the others fail `--check`. */
  status: "fresh" | "body-only" | "missing" | "frontmatter" | "edited" | "version";
  /** Human-readable reasons. */
  reasons: string[];
}

/** Parses the `# gh-aw-metadata: {…}` header line of a lock file. */
export function readLockMetadata(lock: string): Record<string, unknown> | undefined {
  const match = lock.match(/^# gh-aw-metadata: (\{.*\})$/m);
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]);
  } catch {
    return undefined;
  }
}

/** Text of the frontmatter block of a Markdown file (between the first two `---` lines). */
export function frontmatterText(markdown: string): string {
  const lines = markdown.replace(/\r\n/g, "\n").split("\n");
  if (lines[0]?.trim() !== "---") return "";
  const end = lines.indexOf("---", 1);
  return (end < 0 ? lines.slice(1) : lines.slice(1, end)).join("\n").trim();
}

/** Blanks what a body-only edit changes (the body hash) and heredoc tokens, for comparison. */
function normalise(lock: string): string {
  return lock
    .replace(/("body_hash":")[0-9a-f]*(")/, "$1$2")
    .replace(/(GH_AW_[A-Z0-9_]+?_)[0-9a-f]{16}(_EOF)/g, "$1NORM$2");
}

/** Classifies one workflow given the lock text on disk (undefined when missing). */
export async function assessStaleness(
  repoRoot: string,
  workflow: CompiledWorkflow,
  onDisk: string | undefined,
): Promise<Staleness> {
  const fresh = workflow.lockContent ?? "";
  if (onDisk === undefined) return { status: "missing", reasons: [`${workflow.lockPath} is missing`] };
  if (onDisk === fresh) return { status: "fresh", reasons: [] };
  const before = readLockMetadata(onDisk);
  const after = readLockMetadata(fresh);
  if (before?.frontmatter_hash !== after?.frontmatter_hash) {
    const changed = await changedFrontmatters(repoRoot, workflow);
    const reasons = changed.length > 0
      ? changed.map((file) =>
        file === workflow.source
          ? `the frontmatter of ${file} changed`
          : `the frontmatter of imported ${file} changed`
      )
      : [
        `the frontmatter of ${workflow.source}, of one of its imports, or the body's \`env.\`/\`vars.\` expressions changed`,
      ];
    return { status: "frontmatter", reasons };
  }
  if (normalise(onDisk) === normalise(fresh)) {
    return {
      status: "body-only",
      reasons: [
        `only the Markdown body of ${workflow.source} changed: not stale, the body is loaded at run time ` +
        `(workflows that opt into the full stale check report body edits as stale)`,
      ],
    };
  }
  return {
    status: "edited",
    reasons: [
      `${workflow.lockPath} differs from the compiler's output although its inputs did not change ` +
      `(edited by hand, or produced by another compiler version): run \`awc compile\``,
    ],
  };
}

/**
 * Which of the workflow's dependencies have a frontmatter different from the version committed with the
 * lock file (the last commit that touched the lock, else HEAD). Empty when git cannot tell.
 */
async function changedFrontmatters(repoRoot: string, workflow: CompiledWorkflow): Promise<string[]> {
  const rev = (await git(repoRoot, ["log", "-1", "--format=%H", "--", workflow.lockPath]))?.trim() || "HEAD";
  const changed: string[] = [];
  for (const file of workflow.dependencies) {
    const then = await git(repoRoot, ["show", `${rev}:${file}`]);
    let now: string | undefined;
    try {
      now = await Deno.readTextFile(`${repoRoot}/${file}`);
    } catch { /* deleted */ }
    if (then === undefined && now === undefined) continue;
    if (then === undefined || now === undefined || frontmatterText(then) !== frontmatterText(now)) {
      changed.push(file);
    }
  }
  return changed;
}
