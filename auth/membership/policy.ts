/**
 * Who may sign in with GitHub (issue 25): allowed organisations, teams (`org/team-slug`) and logins, or
 * anyone when the operator says so explicitly. Names are compared lower-cased, as GitHub compares logins
 * and slugs. Local mode has no policy (its developer account is the only user).
 */

/** The sign-in allowlist, normalised. */
export interface AccessPolicy {
  /** Organisation logins, lower-cased. */
  orgs: readonly string[];
  /** Teams as `{org, slug}`, lower-cased. */
  teams: readonly { org: string; slug: string }[];
  /** GitHub logins, lower-cased. */
  users: readonly string[];
  /** `AUTH_GITHUB_ALLOW_ANY=true`: every GitHub account is admitted. */
  allowAny: boolean;
  /** How long a membership check is trusted (ms). */
  ttlMs: number;
  /** How long access survives GitHub being unreachable, since the last successful check (ms). */
  graceMs: number;
}

/** True when the policy needs GitHub's organisation data (and so the `read:org` scope). */
export function needsOrgData(policy: AccessPolicy): boolean {
  return policy.orgs.length > 0 || policy.teams.length > 0;
}

/** Splits a comma-separated list, trimmed, lower-cased, without empties or duplicates. */
export function parseNameList(raw: string | undefined): string[] {
  if (!raw) return [];
  return [...new Set(raw.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean))];
}

/** GitHub login / organisation / team slug shape (letters, digits, `-`, `_` and `.` for slugs). */
const NAME = /^[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9_])?$/;

/** Problems with the raw allowlist values (each names the offending entry). */
export function policyProblems(raw: { orgs?: string; teams?: string; users?: string }): string[] {
  const problems: string[] = [];
  for (const org of parseNameList(raw.orgs)) {
    if (!NAME.test(org)) {
      problems.push(`AUTH_GITHUB_ALLOWED_ORGS: ${JSON.stringify(org)} is not an org login`);
    }
  }
  for (const user of parseNameList(raw.users)) {
    if (!NAME.test(user)) problems.push(`AUTH_GITHUB_ALLOWED_USERS: ${JSON.stringify(user)} is not a login`);
  }
  for (const team of parseNameList(raw.teams)) {
    const [org, slug, extra] = team.split("/");
    if (extra !== undefined || !org || !slug || !NAME.test(org) || !NAME.test(slug)) {
      problems.push(`AUTH_GITHUB_ALLOWED_TEAMS: ${JSON.stringify(team)} is not org/team-slug`);
    }
  }
  return problems;
}

/** Builds the policy from validated raw values. */
export function accessPolicyOf(raw: {
  orgs?: string;
  teams?: string;
  users?: string;
  allowAny: boolean;
  ttlSeconds: number;
  graceSeconds: number;
}): AccessPolicy {
  return Object.freeze({
    orgs: parseNameList(raw.orgs),
    teams: parseNameList(raw.teams).map((t) => {
      const [org, slug] = t.split("/");
      return { org, slug };
    }),
    users: parseNameList(raw.users),
    allowAny: raw.allowAny,
    ttlMs: raw.ttlSeconds * 1000,
    graceMs: raw.graceSeconds * 1000,
  });
}

/** Parses a duration: seconds (`900`), or a number with `s`, `m` or `h`; undefined when malformed. */
export function parseDurationSeconds(raw: string): number | undefined {
  const match = /^(\d{1,7})\s*([smh]?)$/i.exec(raw.trim());
  if (!match) return undefined;
  const unit = { "": 1, s: 1, m: 60, h: 3600 }[match[2].toLowerCase() as "" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
}
