/**
 * In-process drivers for the deployed GitHub sign-in (issue 25 tests): one GitHub stand-in per test process
 * (the service's fetch hook takes one origin), a cookie jar, the sign-in through the stand-in's authorize
 * decision, and an OAuth client's code flow and refresh against `svc.handle`.
 */
import * as oauth from "oauth4webapi";
import { type GitHubStandIn, startGitHubStandIn } from "../e2e/support/github_stand_in.ts";
import { type AuthService, startAuthService } from "./harness.ts";
import { basic } from "./rp.ts";

/** The deployed origin the tests use. */
export const BASE = "https://auth.example.test";
/** The GitHub OAuth app of the stand-in. */
export const GITHUB_CLIENT_ID = "Iv1.membership-tests";
/** Its secret (the secret-scan test looks for it in the database). */
export const GITHUB_CLIENT_SECRET = "stand-in-secret-membership-0123456789";
/** The service's secret. */
export const AUTH_SECRET = "membership-tests-secret-0123456789abcdef0123";

let standIn: Promise<GitHubStandIn> | undefined;

/** The process's GitHub stand-in (organisation data reset to its defaults by {@link resetOrgs}). */
export function gitHub(): Promise<GitHubStandIn> {
  standIn ??= startGitHubStandIn({
    clientId: GITHUB_CLIENT_ID,
    clientSecret: GITHUB_CLIENT_SECRET,
    callbackUrl: `${BASE}/api/auth/callback/github`,
  });
  return standIn;
}

/** Puts the stand-in's organisation data back to its defaults. */
export function resetOrgs(github: GitHubStandIn): void {
  github.orgs.memberships.clear();
  github.orgs.memberships.set("alice", new Map([["Acme", "active"]]));
  github.orgs.memberships.set("bob", new Map([["Acme", "active"]]));
  github.orgs.memberships.set("pat", new Map([["Acme", "pending"]]));
  github.orgs.memberships.set("octocat", new Map([["Other-Org", "active"]]));
  github.orgs.teams.clear();
  github.orgs.teams.set("alice", [{ org: "Acme", slug: "Platform" }]);
  github.orgs.teams.set("octocat", [{ org: "Other-Org", slug: "x" }]);
  github.orgs.ssoOrgs.clear();
  github.orgs.teamPadding = 0;
  github.orgs.fault = undefined;
  github.orgs.calls = 0;
  github.refusals.length = 0;
}

/** A deployed service behind the stand-in, with a movable clock for the membership gate. */
export async function startDeployed(
  env: Record<string, string>,
  options: { githubTimeoutMs?: number } = {},
): Promise<{ svc: AuthService; github: GitHubStandIn; clock: { now: number } }> {
  const github = await gitHub();
  resetOrgs(github);
  const clock = { now: Date.now() };
  const svc = await startAuthService(
    {
      AUTH_LOCAL_MODE: "false",
      AUTH_BASE_URL: BASE,
      AUTH_COOKIE_DOMAIN: ".example.test",
      AUTH_SECRET,
      SOCIAL_CLIENT_ID: GITHUB_CLIENT_ID,
      SOCIAL_CLIENT_SECRET: GITHUB_CLIENT_SECRET,
      AUTH_CLIENT_IP: "socket",
      AUTH_GITHUB_STAND_IN: github.apiOrigin,
      ...env,
    },
    "127.0.0.1",
    undefined,
    { now: () => clock.now, githubTimeoutMs: options.githubTimeoutMs ?? 1500 },
  );
  return { svc, github, clock };
}

/** A cookie jar over `svc.handle`. */
export class Jar {
  /** Cookies by name. */
  readonly cookies = new Map<string, string>();
  constructor(private readonly svc: AuthService) {}

  /** Sends `request` in-process with the jar's cookies; stores what the answer sets. */
  async send(request: Request): Promise<Response> {
    if (this.cookies.size) {
      request.headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    const response = await this.svc.handle(request);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Sends `request` as a relying party's back channel would: no browser cookies. */
  backChannel(request: Request): Promise<Response> {
    return this.svc.handle(request);
  }

  /** Posts a form from the service's own pages. */
  postForm(path: string, fields: Record<string, string>): Promise<Response> {
    return this.send(
      new Request(new URL(path, BASE), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE },
        body: new URLSearchParams(fields).toString(),
      }),
    );
  }
}

/** What a GitHub sign-in attempt produced. */
export interface SignInAttempt {
  /** The service's answer to GitHub's callback (a redirect). */
  callback: Response;
  /** Where it sends the browser. */
  location: URL;
  /** The scope the service asked GitHub for. */
  requestedScope: string;
  /** Every Set-Cookie of the callback answer. */
  setCookies: string[];
}

/** Signs in as GitHub user `login` through the stand-in (the user clicks Authorize). */
export async function signInWithGitHub(
  jar: Jar,
  github: GitHubStandIn,
  login: string,
): Promise<SignInAttempt> {
  github.signedInAs = login;
  const start = await jar.postForm("/sign-in/github", { oauth_query: "" });
  if (start.status !== 303) throw new Error(`sign-in start answered ${start.status}`);
  const authorize = new URL(start.headers.get("location")!);
  const fields = new URLSearchParams({ authorize: "1" });
  for (
    const name of ["client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method"]
  ) {
    const value = authorize.searchParams.get(name);
    if (value !== null) fields.set(name, value);
  }
  const decision = await github.handle(
    new Request("https://github.com/login/oauth/authorize", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: fields.toString(),
    }),
  );
  const callbackUrl = decision.headers.get("location")!;
  const callback = await jar.send(new Request(callbackUrl));
  await callback.body?.cancel();
  return {
    callback,
    location: new URL(callback.headers.get("location") ?? "/", BASE),
    requestedScope: authorize.searchParams.get("scope") ?? "",
    setCookies: callback.headers.getSetCookie(),
  };
}

/** Tokens of a client's code flow. */
export interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
}

/** Runs authorize → consent (allow) → token for the signed-in jar; returns the token response. */
export async function codeFlow(
  jar: Jar,
  client: { client_id: string; client_secret?: string },
  redirectUri: string,
  scope = "openid profile email groups offline_access",
): Promise<Tokens> {
  const verifier = oauth.generateRandomCodeVerifier();
  const authorize = new URL(`${BASE}/api/auth/oauth2/authorize`);
  authorize.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: "code",
    scope,
    prompt: "consent",
    state: "s1",
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }).toString();
  const first = await jar.send(new Request(authorize));
  const consentUrl = new URL(first.headers.get("location") ?? "", BASE);
  if (consentUrl.pathname !== "/consent") throw new Error(`expected the consent page, got ${consentUrl}`);
  const allowed = await jar.postForm("/consent", {
    oauth_query: consentUrl.search.slice(1),
    decision: "allow",
  });
  const back = new URL(allowed.headers.get("location") ?? "", BASE);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back}`);
  const token = await tokenRequest(jar, client, {
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  if (token.status !== 200) throw new Error(`token answered ${token.status}: ${await token.text()}`);
  return await token.json();
}

/** A token-endpoint request with Basic client authentication (the RP's back channel, no cookies). */
export function tokenRequest(
  jar: Jar,
  client: { client_id: string; client_secret?: string },
  fields: Record<string, string>,
): Promise<Response> {
  return jar.backChannel(
    new Request(`${BASE}/api/auth/oauth2/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: basic(client.client_id, client.client_secret ?? ""),
      },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

/** Counts rows of a query's `n` column. */
export async function count(svc: AuthService, sql: string, args: string[] = []): Promise<number> {
  return Number((await svc.database.client.execute({ sql, args })).rows[0].n);
}

/** The JWT payload of `token` (unverified; the tests check claims only). */
export function payloadOf(token: string): Record<string, unknown> {
  const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(part + "=".repeat((4 - part.length % 4) % 4)));
}
