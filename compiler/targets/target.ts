/**
 * A gh-aw release awc compiles for (`awc compile --gh-aw-version`): what differs from one release to the
 * next, per concern, in one object the planners ask — never `if (version >= …)` in a planner.
 */

/** One gh-aw release awc can compile for. */
export interface GhAwTarget {
  /** The release tag, `vX.Y.Z`; a release-mode lock pins `github/gh-aw-actions/setup` at it. */
  version: string;
  /**
   * Built-in pins of this release (`repo@tag` → commit), laid over the compiler's own table: the actions
   * gh-aw's locks of this release reference, from its `actions-lock.json`.
   */
  pins: Readonly<Record<string, string>>;
  /**
   * The tag of each action the compiler emits itself, by repository, where this release uses another one
   * than v0.76.1 (e.g. `actions/checkout` → `v7.0.1`). Actions the author writes keep their own tags.
   */
  actionTags: Readonly<Record<string, string>>;
  /** The action that sets up the `gh aw` CLI (`repo`, without the tag). */
  setupCliAction: string;
  /** Whether the lock's `gh-aw-metadata` header names the release (`compiler_version`), release mode only. */
  stampsCompilerVersion: boolean;
}

/** The release a lock was compiled for: its `compiler_version`, else the tag its setup action is pinned at. */
export function lockCompilerVersion(lockText: string): string | undefined {
  const meta = /^# gh-aw-metadata: (\{.*\})$/m.exec(lockText);
  if (meta) {
    try {
      const v = JSON.parse(meta[1]).compiler_version;
      if (typeof v === "string" && v !== "") return v.startsWith("v") ? v : `v${v}`;
    } catch {
      // an unreadable header says nothing
    }
  }
  const setup = /github\/gh-aw-actions\/setup@[0-9a-f]{40} # (v\d+\.\d+\.\d+)/.exec(lockText);
  return setup?.[1];
}
