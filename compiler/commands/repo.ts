/** Locating the repository a command works on. */
import { resolve } from "node:path";
import type { CliDeps } from "../cli/context.ts";
import { gitRoot, originUrl, slugFromRemote } from "./git.ts";

/** `--dir` when given (relative to the working directory), else the git root, else the working directory. */
export async function resolveRepoRoot(deps: CliDeps, dir: string | undefined): Promise<string> {
  if (dir) return resolve(deps.cwd, dir);
  return (await gitRoot(deps.cwd)) ?? deps.cwd;
}

/** `owner/repo` from `--repo`, else `GITHUB_REPOSITORY`, else the origin remote; undefined when unknown. */
export async function resolveRepoSlug(deps: CliDeps, root: string, flag: string | undefined) {
  if (flag) return /^[^/\s]+\/[^/\s]+$/.test(flag) ? flag : undefined;
  if (deps.env.GITHUB_REPOSITORY) return deps.env.GITHUB_REPOSITORY;
  const url = await originUrl(root);
  return url ? slugFromRemote(url) : undefined;
}
