/**
 * The `ActionResolver` given to the compiler core when a token is available: the GitHub API first, and
 * when that fails (a limited token, no network) a cached `actions-lock.json` ref of the same action whose
 * version matches the requested tag, with a warning. Failures are memoised per run.
 */
import type { ActionResolver } from "../api.ts";
import type { GitHubClient } from "../github/client.ts";
import { actionBaseRepo, resolveTagSha } from "../github/refs.ts";
import type { ActionsLock } from "./actions_lock.ts";

/** Creates the resolver; `warn` receives one line per fallback or failure. */
export function createActionResolver(
  client: GitHubClient,
  cache: ActionsLock | undefined,
  warn: (message: string) => void,
): ActionResolver {
  const memo = new Map<string, Promise<string | undefined>>();
  return (repo, version) => {
    const key = `${repo}@${version}`;
    let pending = memo.get(key);
    if (!pending) {
      pending = (async () => {
        try {
          return await resolveTagSha(client, actionBaseRepo(repo), version);
        } catch (error) {
          const cached = cachedRef(cache, repo, version);
          if (cached) {
            warn(
              `cannot resolve ${key} through the GitHub API (${(error as Error).message}); ` +
                `reusing the cached ref ${cached.version} (${cached.sha}) from actions-lock.json`,
            );
            return cached.sha;
          }
          warn(`cannot resolve ${key} through the GitHub API: ${(error as Error).message}`);
          return undefined;
        }
      })();
      memo.set(key, pending);
    }
    return pending;
  };
}

/** A cached entry of the same action whose version equals or refines the requested one (`v6` → `v6.0.2`). */
export function cachedRef(
  cache: ActionsLock | undefined,
  repo: string,
  version: string,
): { version: string; sha: string } | undefined {
  if (!cache) return undefined;
  const candidates = Object.values(cache.entries).filter((e) =>
    e.repo === repo && (e.version === version || e.version.startsWith(version + "."))
  );
  candidates.sort((a, b) => b.version.localeCompare(a.version, "en", { numeric: true }));
  return candidates[0] ? { version: candidates[0].version, sha: candidates[0].sha } : undefined;
}
