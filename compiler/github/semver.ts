/** Minimal semantic-version handling for action and `awc` release tags (`v1`, `v1.2`, `v1.2.3`). */

/** A parsed version tag; missing minor/patch count as 0, `precision` remembers how many were given. */
export interface Version {
  /** The tag as written. */
  tag: string;
  /** Major, minor and patch numbers. */
  parts: [number, number, number];
  /** Number of numeric parts given (1–3). */
  precision: number;
  /** Pre-release suffix (`-rc.1`), empty for stable versions. */
  prerelease: string;
}

/** Parses `v1.2.3`, `1.2`, `v4`, `v1.0.0-rc.1`; undefined for anything else (branch names, SHAs). */
export function parseVersion(tag: string): Version | undefined {
  const match = tag.match(/^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/);
  if (!match) return undefined;
  const precision = match[3] !== undefined ? 3 : match[2] !== undefined ? 2 : 1;
  return {
    tag,
    parts: [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)],
    precision,
    prerelease: match[4] ?? "",
  };
}

/** Compares two versions numerically; stable sorts after a pre-release of the same numbers. */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    if (a.parts[i] !== b.parts[i]) return a.parts[i] - b.parts[i];
  }
  if (a.prerelease === b.prerelease) return 0;
  if (!a.prerelease) return 1;
  if (!b.prerelease) return -1;
  return a.prerelease < b.prerelease ? -1 : 1;
}

/**
 * The newest stable tag among `tags` that is strictly newer than `current` (never a downgrade), in the
 * same major unless `allowMajor`. On equal numbers the more precise tag wins (`v4.2.0` over `v4`), so the
 * lock records an exact version.
 */
export function pickUpgrade(tags: string[], current: string, allowMajor: boolean): string | undefined {
  const now = parseVersion(current);
  let best: Version | undefined;
  for (const tag of tags) {
    const v = parseVersion(tag);
    if (!v || v.prerelease) continue;
    if (now && !allowMajor && v.parts[0] !== now.parts[0]) continue;
    if (now && compareVersions(v, now) <= 0) continue;
    if (
      !best || compareVersions(v, best) > 0 ||
      (compareVersions(v, best) === 0 && v.precision > best.precision)
    ) {
      best = v;
    }
  }
  return best?.tag;
}
