/**
 * The gh-aw releases awc compiles for, and how a repository's target is chosen: `--gh-aw-version`, else the
 * release its existing locks agree on (when supported), else the newest supported release.
 */
import { type GhAwTarget, lockCompilerVersion } from "./target.ts";
import { V0_76_1 } from "./v0_76_1.ts";
import { V0_87_4 } from "./v0_87_4.ts";

export {
  type EmitStyle,
  type EngineRelease,
  type GhAwTarget,
  type JobStyle,
  lockCompilerVersion,
  type ManifestMcpServers,
  type SafeOutputsJobStyle,
} from "./target.ts";

/** Supported targets, oldest first. */
export const TARGETS: readonly GhAwTarget[] = [V0_76_1, V0_87_4];
/** The newest supported target. */
export const NEWEST_TARGET: GhAwTarget = TARGETS[TARGETS.length - 1];
/** The library's default (what `compile()` uses without `ghAwVersion`): the release awc first reproduced. */
export const DEFAULT_TARGET: GhAwTarget = V0_76_1;

const parse = (v: string) => /^v?(\d+)\.(\d+)\.(\d+)$/.exec(v.trim())?.slice(1).map(Number);
const cmp = (a: number[], b: number[]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** gh-aw refuses at activation the locks compiled by these releases (inclusive). */
export const BLOCKED_RANGE = ["v0.82.8", "v0.85.3"] as const;

/** The supported releases, for messages ("v0.76.1, v0.87.4"). */
export const SUPPORTED_VERSIONS: string = TARGETS.map((t) => t.version).join(", ");

/** The target for a version string (`v0.87.4` or `0.87.4`), or why there is none. */
export function targetFor(version: string): { target: GhAwTarget } | { error: string } {
  const v = parse(version);
  if (!v) return { error: `"${version}" is not a gh-aw release (vX.Y.Z); supported: ${SUPPORTED_VERSIONS}` };
  const target = TARGETS.find((t) => cmp(parse(t.version)!, v) === 0);
  if (target) return { target };
  const [lo, hi] = BLOCKED_RANGE.map((b) => parse(b)!);
  if (cmp(v, lo) >= 0 && cmp(v, hi) <= 0) {
    return {
      error:
        `gh-aw ${version} is blocked: gh-aw refuses at activation the locks compiled by ${
          BLOCKED_RANGE[0]
        }–` +
        `${BLOCKED_RANGE[1]}; supported: ${SUPPORTED_VERSIONS}`,
    };
  }
  return { error: `gh-aw ${version} is not supported by this awc; supported: ${SUPPORTED_VERSIONS}` };
}

/** How the repository's target was chosen, for messages. */
export interface RepoTarget {
  target: GhAwTarget;
  /** `flag`, `locks` (they agree on a supported release) or `newest` (no agreement, none, or unsupported). */
  from: "flag" | "locks" | "newest";
  /** The releases the existing locks name (sorted, without repeats). */
  lockVersions: string[];
}

/** The target of a repository given `--gh-aw-version` (if any) and the text of its existing locks. */
export function repoTarget(flag: string | undefined, lockTexts: string[]): RepoTarget | { error: string } {
  const lockVersions = [...new Set(lockTexts.map(lockCompilerVersion).filter((v): v is string => !!v))]
    .sort();
  if (flag !== undefined) {
    const found = targetFor(flag);
    return "error" in found ? found : { target: found.target, from: "flag", lockVersions };
  }
  if (lockVersions.length === 1) {
    const found = targetFor(lockVersions[0]);
    if ("target" in found) return { target: found.target, from: "locks", lockVersions };
  }
  return { target: NEWEST_TARGET, from: "newest", lockVersions };
}
