/**
 * A loopback stand-in for GitHub's OAuth web flow and REST API, strict enough to refuse what GitHub refuses:
 * - `GET https://github.com/login/oauth/authorize` (reached by Chromium over the test's HTTPS front):
 *   checks `client_id` and the exact registered `redirect_uri`, shows the signed-in GitHub user with real
 *   "Authorize" and "Cancel" buttons; Cancel returns `error=access_denied` with `state`, as GitHub does.
 * - `POST /login/oauth/access_token` (the service calls it through AUTH_GITHUB_STAND_IN): form body, client
 *   secret, single-use code bound to client and redirect URI, PKCE when the request had a challenge; errors
 *   as GitHub writes them (200 with `error`), JSON only when asked for.
 * - `GET /user`, `GET /user/emails`: a bearer token it issued and a User-Agent (GitHub answers 403 without).
 * - `GET /user/memberships/orgs/{org}` and `GET /user/teams` (issue 25): the token must carry `read:org`;
 *   an organisation membership is `active` or `pending` (an invitation), otherwise 404; an organisation in
 *   `ssoOrgs` answers 403 with `X-GitHub-SSO` as GitHub does under SAML enforcement; teams are paginated
 *   (at most 100 a page, `Link: rel="next"`), and `teamPadding` adds unrelated teams in front so a real
 *   membership sits past the first page; `fault` makes both answer slowly, with a 502, malformed JSON, or
 *   without required fields.
 * Accounts: `octocat` with a public email and `hidden-user` whose public email is null (the service must
 * read `/user/emails`), plus the organisation personas `alice` (acme member, in team Platform), `bob`
 * (acme member, no team), `pat` (pending invitation to acme) and `mallory` (no organisation).
 */

/** A GitHub account of the stand-in. */
export interface GitHubAccount {
  id: number;
  login: string;
  name: string | null;
  email: string | null;
  emails: { email: string; primary: boolean; verified: boolean; visibility: string | null }[];
}

export const ACCOUNTS: Record<string, GitHubAccount> = {
  octocat: {
    id: 583231,
    login: "octocat",
    name: "The Octocat",
    email: "octocat@github.example.test",
    emails: [{ email: "octocat@github.example.test", primary: true, verified: true, visibility: "public" }],
  },
  "hidden-user": {
    id: 9000001,
    login: "hidden-user",
    name: "Hidden Email",
    email: null,
    emails: [
      { email: "old@elsewhere.example.test", primary: false, verified: false, visibility: null },
      { email: "hidden@users.example.test", primary: true, verified: true, visibility: "private" },
    ],
  },
  ...Object.fromEntries(
    (["alice", "bob", "pat", "mallory"] as const).map((login, i) => [login, {
      id: 7100001 + i,
      login,
      name: login[0].toUpperCase() + login.slice(1),
      email: `${login}@acme.example.test`,
      emails: [{ email: `${login}@acme.example.test`, primary: true, verified: true, visibility: "public" }],
    }]),
  ),
};

/** A fault the membership endpoints can be told to show. */
export type MembershipFault = "slow" | "502" | "malformed" | "missing-fields" | undefined;

/** Organisation data of the stand-in, mutable by tests (logins and orgs as GitHub spells them). */
export interface OrgData {
  /** login → org → state. */
  memberships: Map<string, Map<string, "active" | "pending">>;
  /** login → teams (`{org, slug}`, slugs in GitHub's spelling). */
  teams: Map<string, { org: string; slug: string }[]>;
  /** Organisations that enforce SAML SSO the user has not authorised for this app. */
  ssoOrgs: Set<string>;
  /** Unrelated teams listed before the real ones (pagination past 100). */
  teamPadding: number;
  /** Fault shown by the membership endpoints. */
  fault: MembershipFault;
  /** Membership and team requests answered (to see that a cached check costs no call). */
  calls: number;
}

function defaultOrgData(): OrgData {
  return {
    memberships: new Map<string, Map<string, "active" | "pending">>([
      ["alice", new Map([["Acme", "active"]])],
      ["bob", new Map([["Acme", "active"]])],
      ["pat", new Map([["Acme", "pending"]])],
      ["octocat", new Map([["Other-Org", "active"]])],
    ]),
    teams: new Map([["alice", [{ org: "Acme", slug: "Platform" }]], ["octocat", [{
      org: "Other-Org",
      slug: "x",
    }]]]),
    ssoOrgs: new Set(),
    teamPadding: 0,
    fault: undefined,
    calls: 0,
  };
}

interface PendingCode {
  account: string;
  scope: string;
  clientId: string;
  redirectUri: string;
  challenge?: string;
  expiresAt: number;
}

/** The stand-in's configuration: the one OAuth app it knows. */
export interface StandInOptions {
  clientId: string;
  clientSecret: string;
  callbackUrl: string;
}

/** A running stand-in. */
export interface GitHubStandIn extends AsyncDisposable {
  /** Plain-HTTP loopback origin for the service's server-side calls (AUTH_GITHUB_STAND_IN). */
  apiOrigin: string;
  /** Answers one request (the browser's, routed here for github.com by the test's HTTPS front). */
  handle(request: Request): Promise<Response>;
  /** The GitHub user "signed in" at github.com, whose page the browser sees. */
  signedInAs: string;
  /** Requests the stand-in refused, for assertions. */
  refusals: string[];
  /** Organisation memberships, teams and faults (issue 25). */
  orgs: OrgData;
  /** Every access token the stand-in issued (the secret-scan test looks for them in the database). */
  issuedTokens(): string[];
}

function html(body: string, status = 200): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>GitHub</title></head><body>${body}</body></html>`,
    {
      status,
      headers: { "content-type": "text/html; charset=utf-8" },
    },
  );
}

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Starts the stand-in's plain-HTTP loopback listener; `handle` serves the browser's requests too. */
export async function startGitHubStandIn(options: StandInOptions): Promise<GitHubStandIn> {
  const codes = new Map<string, PendingCode>();
  const tokens = new Map<string, { login: string; scopes: string[] }>();
  const refusals: string[] = [];
  const orgs = defaultOrgData();
  const state = { signedInAs: "octocat" };

  const refuse = (why: string, response: Response) => {
    refusals.push(why);
    return response;
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname === "/login/oauth/authorize" && request.method === "GET") {
      const params = url.searchParams;
      if (params.get("client_id") !== options.clientId) {
        return refuse(
          "authorize: unknown client_id",
          html("<h1>404</h1><p>The application does not exist.</p>", 404),
        );
      }
      if (params.get("redirect_uri") !== options.callbackUrl) {
        return refuse(
          "authorize: redirect_uri mismatch",
          html(
            "<h1>Redirect URI mismatch</h1><p>The redirect_uri is not associated with this application.</p>",
            400,
          ),
        );
      }
      const account = ACCOUNTS[state.signedInAs];
      const hidden = (name: string) =>
        params.has(name)
          ? `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name)!)}">`
          : "";
      const fields = [
        "client_id",
        "redirect_uri",
        "state",
        "scope",
        "code_challenge",
        "code_challenge_method",
      ]
        .map(hidden).join("");
      return html(
        `<h1>Authorize Switchyard test app</h1><p>Signed in as <strong>${account.login}</strong>. ` +
          `Requested scopes: ${escapeHtml(params.get("scope") ?? "")}</p>` +
          `<form method="post" action="/login/oauth/authorize">${fields}<input type="hidden" name="authorize" value="1">` +
          `<button type="submit">Authorize</button></form>` +
          `<form method="post" action="/login/oauth/authorize">${fields}<input type="hidden" name="authorize" value="0">` +
          `<button type="submit">Cancel</button></form>`,
      );
    }
    if (url.pathname === "/login/oauth/authorize" && request.method === "POST") {
      const form = new URLSearchParams(await request.text());
      if (form.get("client_id") !== options.clientId || form.get("redirect_uri") !== options.callbackUrl) {
        return refuse("decision: bad client or redirect", html("<h1>Bad request</h1>", 400));
      }
      const target = new URL(options.callbackUrl);
      if (form.get("state") !== null) target.searchParams.set("state", form.get("state")!);
      if (form.get("authorize") !== "1") {
        target.searchParams.set("error", "access_denied");
        target.searchParams.set("error_description", "The user has denied your application access.");
        target.searchParams.set(
          "error_uri",
          "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#access-denied",
        );
        return Response.redirect(target, 302);
      }
      const code = crypto.randomUUID().replaceAll("-", "").slice(0, 20);
      codes.set(code, {
        account: state.signedInAs,
        scope: form.get("scope") ?? "",
        clientId: options.clientId,
        redirectUri: options.callbackUrl,
        challenge: form.get("code_challenge") ?? undefined,
        expiresAt: Date.now() + 600_000,
      });
      target.searchParams.set("code", code);
      return Response.redirect(target, 302);
    }
    if (url.pathname === "/login/oauth/access_token" && request.method === "POST") {
      const type = request.headers.get("content-type") ?? "";
      if (!type.startsWith("application/x-www-form-urlencoded")) {
        return refuse("token: not a form", new Response("unsupported media type", { status: 415 }));
      }
      const form = new URLSearchParams(await request.text());
      const json = (request.headers.get("accept") ?? "").includes("application/json");
      const answer = (body: Record<string, string>) =>
        json ? Response.json(body) : new Response(new URLSearchParams(body).toString(), {
          headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
        });
      if (form.get("client_id") !== options.clientId || form.get("client_secret") !== options.clientSecret) {
        return refuse(
          "token: bad client credentials",
          answer({
            error: "incorrect_client_credentials",
            error_description: "The client_id and/or client_secret passed are incorrect.",
          }),
        );
      }
      const code = codes.get(form.get("code") ?? "");
      if (!code || code.expiresAt < Date.now()) {
        return refuse(
          "token: bad code",
          answer({
            error: "bad_verification_code",
            error_description: "The code passed is incorrect or expired.",
          }),
        );
      }
      codes.delete(form.get("code")!);
      if (form.has("redirect_uri") && form.get("redirect_uri") !== code.redirectUri) {
        return refuse(
          "token: redirect_uri mismatch",
          answer({
            error: "redirect_uri_mismatch",
            error_description:
              "The redirect_uri MUST match the registered callback URL for this application.",
          }),
        );
      }
      if (code.challenge && (await s256(form.get("code_verifier") ?? "")) !== code.challenge) {
        return refuse(
          "token: PKCE failed",
          answer({
            error: "bad_verification_code",
            error_description: "The code_verifier does not match the code_challenge.",
          }),
        );
      }
      const token = `gho_${crypto.randomUUID().replaceAll("-", "")}`;
      const scopes = code.scope.split(/[ ,]+/).filter(Boolean);
      tokens.set(token, { login: code.account, scopes });
      return answer({ access_token: token, token_type: "bearer", scope: scopes.join(",") });
    }
    const orgPath = /^\/user\/memberships\/orgs\/([^/]+)$/.exec(url.pathname);
    if ((orgPath || url.pathname === "/user/teams") && request.method === "GET") {
      const auth = /^(?:bearer|token)\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
      const holder = auth ? tokens.get(auth[1]) : undefined;
      if (!holder || !request.headers.get("user-agent")) {
        return refuse(
          "orgs: bad token or no User-Agent",
          Response.json({ message: "Bad credentials" }, { status: 401 }),
        );
      }
      if (!holder.scopes.includes("read:org")) {
        return refuse(
          "orgs: token without read:org",
          Response.json({ message: "You must have the read:org scope" }, { status: 403 }),
        );
      }
      orgs.calls++;
      if (orgs.fault === "slow") await new Promise((r) => setTimeout(r, 3000));
      if (orgs.fault === "502") return new Response("<html>Bad gateway</html>", { status: 502 });
      if (orgs.fault === "malformed") {
        return new Response('{"state": "active", ', { headers: { "content-type": "application/json" } });
      }
      if (orgPath) {
        const wanted = decodeURIComponent(orgPath[1]).toLowerCase();
        const memberships = orgs.memberships.get(holder.login) ?? new Map();
        const [org, membershipState] = [...memberships].find(([o]) => o.toLowerCase() === wanted) ?? [];
        if ([...orgs.ssoOrgs].some((o) => o.toLowerCase() === wanted) && org) {
          return Response.json({
            message:
              "Resource protected by organization SAML enforcement. You must grant your OAuth token access " +
              "to this organization.",
            documentation_url:
              "https://docs.github.com/articles/authenticating-to-a-github-organization-with-saml-single-sign-on/",
          }, {
            status: 403,
            headers: {
              "x-github-sso": `required; url=https://github.com/orgs/${org}/sso?authorization_request=1`,
            },
          });
        }
        if (!org) return Response.json({ message: "Not Found", status: "404" }, { status: 404 });
        if (orgs.fault === "missing-fields") return Response.json({ role: "member" });
        return Response.json({
          url: `https://api.github.com/orgs/${org}/memberships/${holder.login}`,
          state: membershipState,
          role: "member",
          organization: { login: org, id: 1 },
          user: { login: holder.login },
        });
      }
      const all = [
        ...Array.from({ length: orgs.teamPadding }, (_, i) => ({ org: "Padding-Org", slug: `team-${i}` })),
        ...(orgs.teams.get(holder.login) ?? []),
      ];
      const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 30) || 30, 100);
      const page = Math.max(Number(url.searchParams.get("page") ?? 1) || 1, 1);
      const slice = all.slice((page - 1) * perPage, page * perPage);
      const headers = new Headers();
      if (page * perPage < all.length) {
        const next = new URL(`https://api.github.com/user/teams`);
        next.searchParams.set("per_page", String(perPage));
        next.searchParams.set("page", String(page + 1));
        headers.set("link", `<${next}>; rel="next"`);
      }
      return Response.json(
        slice.map((t) =>
          orgs.fault === "missing-fields"
            ? { name: t.slug }
            : { name: t.slug, slug: t.slug, organization: { login: t.org, id: 1 } }
        ),
        { headers },
      );
    }
    if ((url.pathname === "/user" || url.pathname === "/user/emails") && request.method === "GET") {
      if (!request.headers.get("user-agent")) {
        return refuse(
          "api: no User-Agent",
          new Response(
            "Request forbidden by administrative rules. Please make sure your request has a User-Agent header.",
            { status: 403 },
          ),
        );
      }
      const auth = /^(?:bearer|token)\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
      const login = auth ? tokens.get(auth[1])?.login : undefined;
      if (!login) {
        return refuse(
          "api: bad token",
          Response.json({
            message: "Bad credentials",
            documentation_url: "https://docs.github.com/rest",
            status: "401",
          }, { status: 401 }),
        );
      }
      const account = ACCOUNTS[login];
      if (url.pathname === "/user/emails") return Response.json(account.emails);
      return Response.json({
        login: account.login,
        id: account.id,
        node_id: `U_${account.id}`,
        avatar_url: `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
        type: "User",
        name: account.name,
        email: account.email,
      });
    }
    return new Response("Not Found", { status: 404 });
  };

  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: (addr) => resolve(addr.port) },
    handle,
  );
  const standIn: GitHubStandIn = {
    apiOrigin: `http://127.0.0.1:${await listening}`,
    handle,
    get signedInAs() {
      return state.signedInAs;
    },
    set signedInAs(login: string) {
      if (!ACCOUNTS[login]) throw new Error(`no account ${login}`);
      state.signedInAs = login;
    },
    refusals,
    orgs,
    issuedTokens: () => [...tokens.keys()],
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
  return standIn;
}
