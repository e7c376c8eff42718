/**
 * `tools.cache-memory` in the agent job: a folder the agent may read and write across runs, restored from the
 * Actions cache before the run, committed to a git repository inside the folder (integrity branches), and
 * uploaded for the `update_cache_memory` job (which saves it only after threat detection passed) — or saved
 * by `actions/cache` itself when there is no detection.
 */
import { sha256Hex } from "@switchyard/lib/crypto.ts";
import type { StepPlan } from "../types.ts";
import { Comment, lit, plain, sq } from "../../yaml/writer.ts";
import { isMapping, mappingOf } from "../../source/values.ts";

/** One configured cache. */
export interface CacheMemoryEntry {
  id: string;
  key?: string;
  restoreOnly: boolean;
  allowedExtensions: string[];
  retentionDays?: number;
}

/** Reads `tools.cache-memory` (`true`, an object, or a list of objects with `id`); empty when disabled. */
export function cacheMemoryEntries(raw: unknown): CacheMemoryEntry[] {
  if (raw === undefined || raw === false) return [];
  const one = (v: unknown, fallbackId: string): CacheMemoryEntry => {
    const o = mappingOf(v);
    return {
      id: typeof o.id === "string" && o.id !== "" ? o.id : fallbackId,
      key: typeof o.key === "string" && o.key !== "" ? o.key : undefined,
      restoreOnly: o["restore-only"] === true,
      allowedExtensions: Array.isArray(o["allowed-extensions"]) ? o["allowed-extensions"].map(String) : [],
      retentionDays: typeof o["retention-days"] === "number" ? o["retention-days"] : undefined,
    };
  };
  if (Array.isArray(raw)) return raw.map((v, i) => one(v, i === 0 ? "default" : `cache-${i}`));
  return [one(raw, "default")];
}

/**
 * The cache memories a workflow runs with: its own `tools.cache-memory` setting wins over an imported one (even
 * `true` over an object), so the agent's restore and the `update_cache_memory` save use the same keys.
 */
export function effectiveCacheMemory(
  ownTools: Readonly<Record<string, unknown>>,
  mergedTools: Readonly<Record<string, unknown>>,
): CacheMemoryEntry[] {
  return cacheMemoryEntries(
    "cache-memory" in ownTools ? ownTools["cache-memory"] : mergedTools["cache-memory"],
  );
}

/** The GitHub tool's guard policy, which namespaces cache keys so memories never cross integrity levels. */
export interface GuardPolicy {
  minIntegrity?: string;
  repos?: unknown;
  blockedUsers?: unknown;
  trustedUsers?: unknown;
}

/** Reads the guard policy fields of `tools.github`. */
export function guardPolicyOf(github: unknown): GuardPolicy {
  if (!isMapping(github)) return {};
  const g = github;
  return {
    minIntegrity: typeof g["min-integrity"] === "string" ? g["min-integrity"] : undefined,
    repos: g["allowed-repos"] ?? g.repos,
    blockedUsers: g["blocked-users"],
    trustedUsers: g["trusted-users"],
  };
}

function canonicalList(v: unknown): string {
  if (typeof v === "string") return v.toLowerCase();
  if (!Array.isArray(v)) return "";
  return [...new Set(v.map((x) => String(x).toLowerCase()))].sort().join("\n");
}

/** First 8 hex digits of the SHA-256 of the canonical policy text, or `nopolicy` without min-integrity. */
export function policyHash(p: GuardPolicy): string {
  if (!p.minIntegrity) return "nopolicy";
  const users = canonicalList(p.trustedUsers);
  const canonical = `blocked-users:${canonicalList(p.blockedUsers)}\nmin-integrity:${p.minIntegrity}\n` +
    `repos:${canonicalList(p.repos)}\ntrusted-bots:\ntrusted-users:\n${users ? users + "\n" : ""}`;
  return sha256Hex(canonical).slice(0, 8);
}

const RUN_ID = "-${{ github.run_id }}";

/** The cache key of one entry: `memory-{integrity}-{policy}-{key or [id-]workflow}-{run id}`. */
export function cacheMemoryKey(entry: CacheMemoryEntry, policy: GuardPolicy): string {
  const prefix = `memory-${policy.minIntegrity ?? "none"}-${policyHash(policy)}-`;
  if (entry.key) return prefix + (entry.key.endsWith(RUN_ID) ? entry.key : entry.key + RUN_ID);
  const id = entry.id === "default" ? "" : `${entry.id}-`;
  return `${prefix}${id}\${{ env.GH_AW_WORKFLOW_ID_SANITIZED }}${RUN_ID}`;
}

/** The folder of one cache. */
export function cacheMemoryDir(id: string): string {
  return id === "default" ? "/tmp/gh-aw/cache-memory" : `/tmp/gh-aw/cache-memory-${id}`;
}

/** Pinned action references the steps use. */
export interface CacheMemoryRefs {
  cache: string;
  cacheRestore: string;
  upload: string;
  githubScript: string;
}

function single(entries: CacheMemoryEntry[]): boolean {
  return entries.length === 1 && entries[0].id === "default";
}

/** Steps before the run: create the folder, restore it from the cache, set up its git repository. */
export function cacheMemorySetupSteps(
  entries: CacheMemoryEntry[],
  policy: GuardPolicy,
  detection: boolean,
  refs: CacheMemoryRefs,
  /** Whether each restore step gets an id (`restore_cache_memory_N`) for the job's outputs. */
  restoreIds = false,
): (StepPlan | Comment)[] {
  if (entries.length === 0) return [];
  const compat = single(entries);
  const out: (StepPlan | Comment)[] = [
    new Comment("Cache memory file share configuration from frontmatter processed below"),
  ];
  for (const [index, e] of entries.entries()) {
    const dir = cacheMemoryDir(e.id);
    const suffix = compat ? "" : ` (${e.id})`;
    out.push(
      compat
        ? {
          name: "Create cache-memory directory",
          run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/create_cache_memory_dir.sh"'),
        }
        : { name: `Create cache-memory directory${suffix}`, run: lit(`mkdir -p ${dir}\n`) },
    );
    const key = cacheMemoryKey(e, policy);
    out.push({
      name: `Restore cache-memory file share data${suffix}`,
      ...(restoreIds ? { id: `restore_cache_memory_${index}` } : {}),
      uses: plain(e.restoreOnly || detection ? refs.cacheRestore : refs.cache),
      with: { key: plain(key), path: dir, "restore-keys": lit(key.slice(0, -RUN_ID.length) + "-\n") },
    });
    const env: Record<string, ReturnType<typeof plain> | string> = {
      GH_AW_CACHE_DIR: dir,
      GH_AW_MIN_INTEGRITY: policy.minIntegrity ?? "none",
    };
    if (e.allowedExtensions.length > 0) {
      env.GH_AW_ALLOWED_EXTENSIONS = sq(e.allowedExtensions.join(":"));
    }
    out.push({
      name: `Setup cache-memory git repository${suffix}`,
      env,
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/setup_cache_memory_git.sh"'),
    });
  }
  return out;
}

/** Steps after the run: commit, validate file types, check git integrity, upload for the save job. */
export function cacheMemoryPostSteps(
  entries: CacheMemoryEntry[],
  detection: boolean,
  refs: CacheMemoryRefs,
): StepPlan[] {
  const compat = single(entries);
  const out: StepPlan[] = [];
  const writable = entries.filter((e) => !e.restoreOnly);
  for (const e of writable) {
    out.push({
      name: `Commit cache-memory changes${compat ? "" : ` (${e.id})`}`,
      if: plain("always()"),
      env: { GH_AW_CACHE_DIR: cacheMemoryDir(e.id) },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/commit_cache_memory_git.sh"'),
    });
  }
  for (const e of writable) {
    if (e.allowedExtensions.length === 0) continue;
    const list = e.allowedExtensions.join(", ");
    out.push({
      name: `Validate cache-memory file types${compat ? "" : ` (${e.id})`}`,
      if: plain("always()"),
      uses: plain(refs.githubScript),
      with: {
        script: lit(
          "const { setupGlobals } = require('${{ runner.temp }}/gh-aw/actions/setup_globals.cjs');\n" +
            "setupGlobals(core, github, context, exec, io, getOctokit);\n" +
            "const { validateMemoryFiles } = require('${{ runner.temp }}/gh-aw/actions/validate_memory_files.cjs');\n" +
            `const allowedExtensions = ${JSON.stringify(e.allowedExtensions)};\n` +
            `const result = validateMemoryFiles('${cacheMemoryDir(e.id)}', 'cache', allowedExtensions);\n` +
            "if (!result.valid) {\n" +
            `  core.setFailed(\`File type validation failed: Found $\${result.invalidFiles.length} file(s) with invalid extensions. Only ${list} are allowed.\`);\n` +
            "}\n",
        ),
      },
    });
  }
  if (!detection) return out;
  for (const e of writable) {
    const suffix = compat ? "" : ` (${e.id})`;
    const dir = cacheMemoryDir(e.id);
    out.push({
      name: `Check cache-memory git integrity${suffix}`,
      if: plain("always()"),
      "continue-on-error": true,
      env: { GH_AW_CACHE_DIR: dir },
      run: plain('bash "${RUNNER_TEMP}/gh-aw/actions/check_cache_memory_git_integrity.sh"'),
    });
    out.push({
      name: `Upload cache-memory data as artifact${suffix}`,
      uses: plain(refs.upload),
      if: plain("always()"),
      with: {
        name: compat ? "cache-memory" : `cache-memory-${e.id}`,
        "include-hidden-files": true,
        path: dir,
        ...(e.retentionDays !== undefined ? { "retention-days": e.retentionDays } : {}),
      },
    });
  }
  return out;
}
