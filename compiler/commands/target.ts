/**
 * The gh-aw release a repository compiles for (`--gh-aw-version`, else what its locks agree on, else the
 * newest supported) and the target's action pins recorded in `actions-lock.json` by `awc upgrade`.
 */
import type { CompileResult } from "../api.ts";
import { type GhAwTarget, type RepoTarget, repoTarget } from "../targets/mod.ts";
import { ACTIONS_LOCK_PATH, type ActionsLock, formatActionsLock, readActionsLock } from "./actions_lock.ts";

const WORKFLOWS = ".github/workflows";

/** The text of every `.lock.yml` directly in `.github/workflows` (none when the folder is absent). */
export async function existingLocks(repoRoot: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  try {
    for await (const e of Deno.readDir(`${repoRoot}/${WORKFLOWS}`)) {
      if (!e.isFile || !e.name.endsWith(".lock.yml")) continue;
      const path = `${WORKFLOWS}/${e.name}`;
      out.push({ path, text: await Deno.readTextFile(`${repoRoot}/${path}`) });
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** The repository's target given `--gh-aw-version` (undefined when not given), or why there is none. */
export async function chooseTarget(
  repoRoot: string,
  flag: string | undefined,
): Promise<RepoTarget | { error: string }> {
  return repoTarget(flag, (await existingLocks(repoRoot)).map((l) => l.text));
}

/**
 * Records in `actions-lock.json` the target's pins of the actions the compiled locks reference (added or
 * moved to the target's commit); returns the keys changed. Nothing is written when none changed.
 */
export async function recordTargetPins(
  repoRoot: string,
  target: GhAwTarget,
  result: CompileResult,
): Promise<string[]> {
  const used = new Set<string>();
  for (const w of result.workflows) {
    for (const m of (w.lockContent ?? "").matchAll(/uses: ([\w.-]+\/[\w./-]+)@[0-9a-f]{40} # (v[\w.-]+)/g)) {
      used.add(`${m[1]}@${m[2]}`);
    }
  }
  const lock: ActionsLock = (await readActionsLock(repoRoot)) ?? { entries: {} };
  const changed: string[] = [];
  for (const [key, sha] of Object.entries(target.pins)) {
    if (!used.has(key) || lock.entries[key]?.sha === sha) continue;
    const at = key.lastIndexOf("@");
    lock.entries[key] = { ...lock.entries[key], repo: key.slice(0, at), version: key.slice(at + 1), sha };
    changed.push(key);
  }
  if (changed.length > 0) {
    await Deno.mkdir(`${repoRoot}/.github/aw`, { recursive: true });
    await Deno.writeTextFile(`${repoRoot}/${ACTIONS_LOCK_PATH}`, formatActionsLock(lock));
  }
  return changed.sort();
}
