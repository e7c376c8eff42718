/**
 * `tools.repo-memory` in the agent job: a git branch (or the repository wiki) cloned into a folder before the
 * run, then sanitised and uploaded for the `push_repo_memory` job, which pushes it only after a good run.
 */
import type { StepPlan } from "../types.ts";
import { Comment, plain } from "../../yaml/writer.ts";
import { mappingOf } from "../../source/values.ts";

/** One configured memory. */
export interface RepoMemoryEntry {
  id: string;
  branch: string;
  wiki: boolean;
  createOrphan: boolean;
  targetRepo?: string;
}

/**
 * Reads `tools.repo-memory` (`true`, an object, or a list of objects with `id`); empty when disabled. `branchOf`
 * names a memory's branch as the target release does (default: {@link repoMemoryBranch}).
 */
export function repoMemoryEntries(
  raw: unknown,
  workflowId: string,
  branchOf: (settings: Record<string, unknown>) => string = (o) => repoMemoryBranch(o, workflowId),
): RepoMemoryEntry[] {
  if (raw === undefined || raw === false) return [];
  const one = (v: unknown, fallbackId: string): RepoMemoryEntry => {
    const o = mappingOf(v);
    const id = typeof o.id === "string" && o.id !== "" ? o.id : fallbackId;
    const wiki = o.wiki === true;
    return {
      id,
      // Same branch the activation prompt and the push job name (the wiki's only branch is master).
      branch: branchOf(o),
      wiki,
      createOrphan: !wiki && o["create-orphan"] !== false,
      targetRepo: typeof o["target-repo"] === "string" ? o["target-repo"] : undefined,
    };
  };
  if (Array.isArray(raw)) return raw.map((v) => one(v, "default"));
  return [one(raw, "default")];
}

function kind(e: RepoMemoryEntry): string {
  return e.wiki ? "wiki-memory" : "repo-memory";
}

/** The folder of one memory. */
export function repoMemoryDir(id: string): string {
  return `/tmp/gh-aw/repo-memory/${id}`;
}

/** Steps before the run: clone each memory branch into its folder. */
export function repoMemoryCloneSteps(entries: RepoMemoryEntry[]): (StepPlan | Comment)[] {
  if (entries.length === 0) return [];
  return [
    new Comment("Repo memory git-based storage configuration from frontmatter processed below"),
    ...entries.map((e): StepPlan => ({
      name: `Clone ${kind(e)} branch (${e.id})`,
      env: {
        GH_TOKEN: plain("${{ github.token }}"),
        GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
        BRANCH_NAME: plain(e.branch),
        TARGET_REPO: plain(`${e.targetRepo ?? "${{ github.repository }}"}${e.wiki ? ".wiki" : ""}`),
        MEMORY_DIR: repoMemoryDir(e.id),
        CREATE_ORPHAN: e.createOrphan,
      },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/clone_repo_memory_branch.sh"'),
    })),
  ];
}

/** Steps after the run: sanitise file names and upload each memory for the push job. */
export function repoMemoryUploadSteps(entries: RepoMemoryEntry[], upload: string): (StepPlan | Comment)[] {
  if (entries.length === 0) return [];
  const out: (StepPlan | Comment)[] = [new Comment("Upload repo memory as artifacts for push job")];
  for (const e of entries) {
    out.push({
      name: `Sanitize ${kind(e)} filenames (${e.id})`,
      if: plain("always()"),
      "continue-on-error": true,
      env: { MEMORY_DIR: repoMemoryDir(e.id) },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/sanitize_repo_memory_filenames.sh"'),
    });
    out.push({
      name: `Upload ${kind(e)} artifact (${e.id})`,
      if: plain("always()"),
      uses: plain(upload),
      with: {
        name: `repo-memory-${e.id}`,
        path: repoMemoryDir(e.id),
        "retention-days": 1,
        "if-no-files-found": "ignore",
      },
    });
  }
  return out;
}

/** The branch a single repo memory lives on: `branch-name`, else `<branch-prefix>/<workflow id>`. */
export function repoMemoryBranch(m: Record<string, unknown>, workflowId: string): string {
  if (m["branch-name"] !== undefined) return String(m["branch-name"]);
  if (typeof m["branch-prefix"] === "string") return `${m["branch-prefix"]}/${workflowId}`;
  return m.wiki === true ? "master" : "memory/default";
}
