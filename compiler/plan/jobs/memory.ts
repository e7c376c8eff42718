/** The `update_cache_memory` job: saves the agent's cache-memory folder to the Actions cache after a good run. */
import { repoMemoryBranch } from "../agent/repo_memory.ts";
import { cacheMemoryDir, type CacheMemoryEntry, cacheMemoryKey, type GuardPolicy } from "../agent/memory.ts";
import type { JobPlan, StepPlan } from "../types.ts";
import {
  gitCredentialsStep,
  type JobCtx,
  restoreActionsFolderSteps,
  scriptBody,
  setupSteps,
  targetOf,
} from "../steps.ts";
import { dq, folded, lit, plain, sq, type YValue } from "../../yaml/writer.ts";
import { objectOf } from "../../source/values.ts";

/**
 * Builds `update_cache_memory`: for each writable cache the agent uploaded, download it and save it under the
 * same key the agent restored (same entries, same guard-policy prefix).
 */
export function updateCacheMemoryJob(
  ctx: JobCtx,
  detection: boolean,
  cacheSaveRef: string,
  entries: CacheMemoryEntry[],
  policy: GuardPolicy,
): JobPlan {
  const steps: StepPlan[] = [...setupSteps(ctx, true)];
  for (const e of entries.filter((x) => !x.restoreOnly)) {
    const dir = cacheMemoryDir(e.id);
    const stepId = e.id.replace(/-/g, "_");
    steps.push(
      {
        name: `Download cache-memory artifact (${e.id})`,
        id: `download_cache_${stepId}`,
        uses: plain(ctx.refs.download),
        "continue-on-error": true,
        with: { name: e.id === "default" ? "cache-memory" : `cache-memory-${e.id}`, path: dir },
      },
      {
        name: `Check if cache-memory folder has content (${e.id})`,
        id: `check_cache_${stepId}`,
        shell: "bash",
        run: lit(
          `if [ -d "${dir}" ] && [ "$(ls -A ${dir} 2>/dev/null)" ]; then\n` +
            '  echo "has_content=true" >> "$GITHUB_OUTPUT"\nelse\n  echo "has_content=false" >> "$GITHUB_OUTPUT"\nfi\n',
        ),
      },
      {
        name: `Save cache-memory to cache (${e.id})`,
        if: plain(`steps.check_cache_${stepId}.outputs.has_content == 'true'`),
        uses: plain(cacheSaveRef),
        with: { key: plain(cacheMemoryKey(e, policy)), path: dir },
      },
    );
  }
  return {
    needs: ["activation", "agent", ...(detection ? ["detection"] : [])],
    if: plain(
      detection
        ? "always() && needs.detection.result == 'success' && needs.agent.result == 'success'"
        : "always() && needs.agent.result == 'success'",
    ),
    "runs-on": "ubuntu-slim",
    permissions: { contents: "read" },
    env: { GH_AW_WORKFLOW_ID_SANITIZED: ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase() },
    steps,
  };
}

/** What a job that pushes to a branch starts with: the setup, a sparse checkout, the git identity. */
function branchPushPrelude(ctx: JobCtx): StepPlan[] {
  return [
    ...setupSteps(ctx, true),
    {
      name: "Checkout repository",
      uses: plain(ctx.refs.checkout),
      with: { "persist-credentials": false, "sparse-checkout": "." },
    },
    gitCredentialsStep(ctx),
  ];
}

/** Builds `push_repo_memory`: one download and push per memory of `tools.repo-memory`. */
export function pushRepoMemoryJob(ctx: JobCtx, detection: boolean, raw: unknown): JobPlan {
  const memories = repoMemories(raw);
  const steps: StepPlan[] = [
    ...branchPushPrelude(ctx),
    ...memories.flatMap(({ id, settings }) => pushMemorySteps(ctx, id, settings)),
  ];
  steps.push(...restoreActionsFolderSteps(ctx));
  // One group per set of branches written, so jobs pushing to other branches do not wait on this one.
  const branches = memories.map(({ settings }) => {
    const branch = memoryBranch(settings, ctx);
    return typeof settings["target-repo"] === "string" ? `${settings["target-repo"]}:${branch}` : branch;
  }).sort();
  const outputs: Record<string, YValue> = {};
  for (const { id } of memories) {
    for (const name of ["patch_size_exceeded", "validation_error", "validation_failed"]) {
      outputs[`${name}_${id}`] = plain(`\${{ steps.push_repo_memory_${id}.outputs.${name} }}`);
    }
  }
  return {
    needs: ["activation", "agent", ...(detection ? ["detection"] : [])],
    if: detection
      ? folded(
        "always() && (!cancelled()) && (needs.detection.result == 'success' || needs.detection.result == 'skipped') &&\nneeds.agent.result == 'success'\n",
      )
      : plain("always() && (!cancelled()) && needs.agent.result == 'success'"),
    "runs-on": "ubuntu-slim",
    permissions: { contents: "write" },
    concurrency: {
      group: dq(`push-repo-memory-\${{ github.repository }}|${branches.join("|")}`),
      "cancel-in-progress": false,
    },
    outputs: Object.fromEntries(Object.keys(outputs).sort().map((k) => [k, outputs[k]])),
    steps,
  };
}

/**
 * The branch one repo memory lives on, as the target release names it: `branch-name`, else (v0.87) the
 * branch prefix (`memory` by default) with the memory's explicit `id` or, without one, the workflow id;
 * v0.76.1's rule otherwise (`memory/default`, or the prefix with the workflow id).
 */
export function memoryBranch(m: Record<string, unknown>, ctx: Pick<JobCtx, "id" | "target">): string {
  if (!targetOf(ctx).jobs.repoMemoryBranchByWorkflow || m["branch-name"] !== undefined || m.wiki === true) {
    return repoMemoryBranch(m, ctx.id);
  }
  const prefix = typeof m["branch-prefix"] === "string" ? m["branch-prefix"] : "memory";
  return `${prefix}/${typeof m.id === "string" && m.id !== "" ? m.id : ctx.id}`;
}

/** The memories of `tools.repo-memory` (`true`, one object, or a list of objects with `id`), by id. */
export function repoMemories(raw: unknown): { id: string; settings: Record<string, unknown> }[] {
  const list = Array.isArray(raw) ? raw.map((v) => objectOf(v)) : [objectOf(raw)];
  return list.map((settings) => ({
    id: typeof settings.id === "string" && settings.id !== "" ? settings.id : "default",
    settings,
  }));
}

/** Downloads one memory's artifact and pushes it to its branch (or the wiki). */
function pushMemorySteps(ctx: JobCtx, id: string, memory: Record<string, unknown>): StepPlan[] {
  // A wiki memory pushes to the repository's wiki (its `master` branch) and names its steps so.
  const wiki = memory.wiki === true;
  const branch = memoryBranch(memory, ctx);
  const kind = wiki ? "wiki-memory" : "repo-memory";
  const targetRepo = wiki ? "${{ github.repository }}.wiki" : "${{ github.repository }}";
  const num = (v: unknown, d: number) => (typeof v === "number" ? v : Number(v) || d);
  const globs = Array.isArray(memory["file-glob"])
    ? memory["file-glob"].map(String)
    : typeof memory["file-glob"] === "string"
    ? [memory["file-glob"]]
    : [];
  const dir = `/tmp/gh-aw/repo-memory/${id}`;
  return [
    {
      name: `Download ${kind} artifact (${id})`,
      uses: plain(ctx.refs.download),
      "continue-on-error": true,
      with: { name: `repo-memory-${id}`, path: dir },
    },
    {
      name: `Push ${kind} changes (${id})`,
      id: `push_repo_memory_${id}`,
      if: plain("always()"),
      uses: plain(ctx.refs.githubScript),
      env: {
        GH_TOKEN: plain("${{ github.token }}"),
        GITHUB_RUN_ID: plain("${{ github.run_id }}"),
        GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
        ARTIFACT_DIR: dir,
        MEMORY_ID: id,
        TARGET_REPO: plain(targetRepo),
        BRANCH_NAME: plain(branch),
        ...(wiki ? { REPO_MEMORY_ALLOWED_REPOS: plain(targetRepo) } : {}),
        MAX_FILE_SIZE: num(memory["max-file-size"], 102400),
        MAX_FILE_COUNT: num(memory["max-file-count"], 100),
        MAX_PATCH_SIZE: num(memory["max-patch-size"], 10240),
        ALLOWED_EXTENSIONS: sq("[]"),
        ...(globs.length ? { FILE_GLOB_FILTER: dq(globs.join(" ")) } : {}),
      },
      with: {
        script: scriptBody("push_repo_memory"),
      },
    },
  ];
}

/** Builds `push_experiments_state`: persists A/B experiment assignments to the `experiments/<id>` branch. */
export function pushExperimentsStateJob(ctx: JobCtx): JobPlan {
  const sanitized = ctx.id.replace(/[^a-z0-9]/gi, "").toLowerCase();
  const steps: StepPlan[] = [
    ...branchPushPrelude(ctx),
    {
      name: "Download experiment artifact",
      uses: plain(ctx.refs.download),
      "continue-on-error": true,
      with: { name: `${sanitized}-experiment`, path: "/tmp/gh-aw/experiments" },
    },
    {
      name: "Push experiment state to git",
      id: "push_experiments_state",
      if: plain("always()"),
      uses: plain(ctx.refs.githubScript),
      env: {
        GH_TOKEN: plain("${{ github.token }}"),
        GITHUB_RUN_ID: plain("${{ github.run_id }}"),
        GITHUB_SERVER_URL: plain("${{ github.server_url }}"),
        GH_AW_EXPERIMENT_STATE_DIR: "/tmp/gh-aw/experiments",
        GH_AW_EXPERIMENT_BRANCH: `experiments/${sanitized}`,
      },
      with: {
        script: scriptBody("push_experiment_state"),
      },
    },
  ];
  steps.push(...restoreActionsFolderSteps(ctx));
  return {
    needs: "activation",
    if: plain("always() && (!cancelled()) && needs.activation.result == 'success'"),
    "runs-on": "ubuntu-slim",
    permissions: { contents: "write" },
    steps,
  };
}
