/**
 * Reads a user's standing against the {@link AccessPolicy} from GitHub's REST API with the user's own token
 * (scope `read:org`): active organisation membership from `GET /user/memberships/orgs/{org}` (a *pending*
 * invitation is not membership) and team membership from `GET /user/teams`, following `Link: rel="next"`
 * past 100 items. Fail-closed: an answer that is slow, 5xx, not JSON or missing a field is `unavailable`,
 * never `member`; an organisation enforcing SAML SSO (403 with `X-GitHub-SSO`) is `sso_required`.
 */
import { type AccessPolicy, needsOrgData } from "./policy.ts";
import type { DenialReason } from "./denials.ts";

/** What GitHub said about the user. */
export type MembershipResult =
  | { kind: "member"; groups: string[] }
  | { kind: "denied"; reason: DenialReason }
  | { kind: "unavailable"; detail: string };

/** How the checker reaches GitHub. */
export interface GitHubApi {
  /** The fetch to use (tests pass their own; the stand-in hook rewrites api.github.com). */
  fetch: typeof globalThis.fetch;
  /** Per-request timeout in ms. */
  timeoutMs: number;
}

const API = "https://api.github.com";
/** Pages of `/user/teams` read at most (100 each); more is answered `unavailable`, never admitted. */
const MAX_TEAM_PAGES = 20;

type Outcome<T> = { ok: true; value: T } | { ok: false; result: MembershipResult };

const unavailable = (detail: string): Outcome<never> => ({
  ok: false,
  result: { kind: "unavailable", detail },
});
const denied = (reason: DenialReason): Outcome<never> => ({ ok: false, result: { kind: "denied", reason } });

/** One GET with the user's token; maps transport and status failures. 404 is returned as `null`. */
async function getJson(
  api: GitHubApi,
  url: string,
  token: string,
): Promise<Outcome<{ body: unknown; next?: string } | null>> {
  let response: Response;
  try {
    response = await api.fetch(url, {
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${token}`,
        "user-agent": "switchyard-auth",
        "x-github-api-version": "2022-11-28",
      },
      signal: AbortSignal.timeout(api.timeoutMs),
    });
  } catch (error) {
    return unavailable(error instanceof Error && error.name === "TimeoutError" ? "timeout" : "unreachable");
  }
  try {
    if (response.status === 404) return { ok: true, value: null };
    if (response.status === 401) return denied("github_authorization_revoked");
    if (response.status === 403) {
      const text = await response.text();
      if (response.headers.has("x-github-sso") || /SAML/i.test(text)) return denied("sso_required");
      return unavailable(`status 403`);
    }
    if (!response.ok) return unavailable(`status ${response.status}`);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return unavailable("malformed JSON");
    }
    const next = /<([^>]+)>\s*;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
    return { ok: true, value: { body, next } };
  } finally {
    await response.body?.cancel().catch(() => {});
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `active`, `pending` or `none` for one organisation. */
async function orgState(
  api: GitHubApi,
  token: string,
  org: string,
): Promise<Outcome<"active" | "pending" | "none">> {
  const answer = await getJson(api, `${API}/user/memberships/orgs/${encodeURIComponent(org)}`, token);
  if (!answer.ok) return answer;
  if (answer.value === null) return { ok: true, value: "none" };
  const body = answer.value.body;
  if (
    !isRecord(body) || typeof body.state !== "string" || !isRecord(body.organization) ||
    typeof body.organization.login !== "string"
  ) {
    return unavailable("membership answer without state or organization.login");
  }
  if (body.organization.login.toLowerCase() !== org) return unavailable("membership answer for another org");
  return {
    ok: true,
    value: body.state === "active" ? "active" : body.state === "pending" ? "pending" : "none",
  };
}

/** Every team of the user as `org/slug` (lower-cased), across pages. */
async function userTeams(api: GitHubApi, token: string): Promise<Outcome<Set<string>>> {
  const teams = new Set<string>();
  let url: string | undefined = `${API}/user/teams?per_page=100`;
  for (let page = 0; url; page++) {
    if (page === MAX_TEAM_PAGES) return unavailable("too many team pages");
    if (!url.startsWith(`${API}/`)) return unavailable("pagination left api.github.com");
    const answer: Outcome<{ body: unknown; next?: string } | null> = await getJson(api, url, token);
    if (!answer.ok) return answer;
    if (answer.value === null || !Array.isArray(answer.value.body)) {
      return unavailable("teams answer is not a list");
    }
    for (const team of answer.value.body) {
      if (
        !isRecord(team) || typeof team.slug !== "string" || !isRecord(team.organization) ||
        typeof team.organization.login !== "string"
      ) {
        return unavailable("team without slug or organization.login");
      }
      teams.add(`${team.organization.login.toLowerCase()}/${team.slug.toLowerCase()}`);
    }
    url = answer.value.next;
  }
  return { ok: true, value: teams };
}

/**
 * Checks `login` (holding `token`) against `policy`. Admitted: a member of an allowed organisation or team,
 * or an allowed login, or anyone with `allowAny`; `groups` lists the allowed organisations and teams the
 * user actively belongs to, never others. Any lookup that fails makes the whole answer `unavailable`.
 */
export async function checkMembership(
  api: GitHubApi,
  token: string,
  login: string,
  policy: AccessPolicy,
): Promise<MembershipResult> {
  const loginAllowed = policy.allowAny || policy.users.includes(login.toLowerCase());
  if (!needsOrgData(policy)) {
    return loginAllowed ? { kind: "member", groups: [] } : { kind: "denied", reason: "not_a_member" };
  }
  const [orgs, teams] = await Promise.all([
    Promise.all(policy.orgs.map((org) => orgState(api, token, org))),
    policy.teams.length
      ? userTeams(api, token)
      : Promise.resolve({ ok: true, value: new Set<string>() } as const),
  ]);
  const failures = [...orgs, teams].filter((o) => !o.ok) as { ok: false; result: MembershipResult }[];
  const outage = failures.find((f) => f.result.kind === "unavailable");
  if (outage) return outage.result;
  const revoked = failures.find((f) =>
    f.result.kind === "denied" && f.result.reason === "github_authorization_revoked"
  );
  if (revoked) return revoked.result;
  const groups: string[] = [];
  let pending = false;
  policy.orgs.forEach((org, i) => {
    const state = orgs[i];
    if (state.ok && state.value === "active") groups.push(org);
    if (state.ok && state.value === "pending") pending = true;
  });
  if (teams.ok) {
    for (const team of policy.teams) {
      if (teams.value.has(`${team.org}/${team.slug}`)) groups.push(`${team.org}/${team.slug}`);
    }
  }
  if (groups.length || loginAllowed) return { kind: "member", groups };
  if (failures.length) return failures[0].result; // SAML SSO enforced by an allowed organisation
  return { kind: "denied", reason: pending ? "membership_pending" : "not_a_member" };
}
