/**
 * Issue 25, who may sign in: the deployed GitHub sign-in against the stand-in's organisations and teams.
 * Admitted members get a session and their groups; everyone else is sent back to the sign-in page with the
 * reason, without a session cookie, a session row or even a user row, and the attempt is audited.
 */
import assert from "node:assert/strict";
import { readAuthConfig } from "../../auth/config.ts";
import { count, Jar, signInWithGitHub, startDeployed } from "./membership_support.ts";

const SESSION_COOKIE = "__Secure-svc.session_token";

Deno.test("a deployed configuration without an allowlist refuses to start and names the keys", () => {
  const env = {
    AUTH_BASE_URL: "https://auth.example.test",
    AUTH_COOKIE_DOMAIN: ".example.test",
    AUTH_SECRET: "0123456789abcdef0123456789abcdef0123456789ab",
    SOCIAL_CLIENT_ID: "id",
    SOCIAL_CLIENT_SECRET: "secret",
    AUTH_CLIENT_IP: "socket",
  };
  assert.throws(() => readAuthConfig(env), (error: Error) => {
    for (
      const key of ["AUTH_GITHUB_ALLOWED_ORGS", "AUTH_GITHUB_ALLOWED_TEAMS", "AUTH_GITHUB_ALLOWED_USERS"]
    ) {
      assert.ok(error.message.includes(key), error.message);
    }
    assert.match(error.message, /AUTH_GITHUB_ALLOW_ANY=true/);
    return true;
  });
  assert.throws(() => readAuthConfig({ ...env, AUTH_GITHUB_ALLOW_ANY: "false" }), /deny by default/);
  assert.throws(
    () => readAuthConfig({ ...env, AUTH_GITHUB_ALLOWED_TEAMS: "acme" }),
    /"acme" is not org\/team-slug/,
  );
  assert.throws(() => readAuthConfig({ ...env, AUTH_GITHUB_ALLOWED_ORGS: "ac me" }), /is not an org login/);
  assert.throws(
    () => readAuthConfig({ ...env, AUTH_GITHUB_ALLOW_ANY: "true", AUTH_MEMBERSHIP_TTL: "soon" }),
    /duration/,
  );
  assert.equal(readAuthConfig({ ...env, AUTH_GITHUB_ALLOWED_ORGS: "acme" }).AUTH_GITHUB_ALLOWED_ORGS, "acme");
  assert.equal(readAuthConfig({ ...env, AUTH_GITHUB_ALLOW_ANY: "true" }).AUTH_GITHUB_ALLOW_ANY, true);
  assert.equal(
    readAuthConfig({ ...env, AUTH_GITHUB_ALLOW_ANY: "true", AUTH_MEMBERSHIP_TTL: "5m" }).AUTH_MEMBERSHIP_TTL,
    300,
  );
  // Local mode is unchanged: no allowlist needed.
  assert.equal(
    readAuthConfig({ AUTH_LOCAL_MODE: "true", AUTH_BASE_URL: "http://localhost:37960" }).AUTH_LOCAL_MODE,
    true,
  );
});

Deno.test("an active member of an allowed organisation signs in with read:org and gets their groups", async () => {
  const { svc, github } = await startDeployed({ AUTH_GITHUB_ALLOWED_ORGS: "acme" });
  await using _ = svc;
  const jar = new Jar(svc);
  const attempt = await signInWithGitHub(jar, github, "alice");
  assert.match(attempt.requestedScope, /read:org/);
  assert.equal(attempt.location.pathname, "/sign-in");
  assert.equal(attempt.location.searchParams.get("error"), null);
  assert.ok(jar.cookies.has(SESSION_COOKIE));
  const access = await svc.database.client.execute(
    "SELECT github_login, groups, check_status FROM svc_user_access",
  );
  assert.deepEqual(access.rows.map((r) => [r.github_login, r.groups, r.check_status]), [[
    "alice",
    '["acme"]',
    "member",
  ]]);
  const session = await jar.send(new Request("https://auth.example.test/api/auth/get-session"));
  const body = await session.json();
  assert.equal(body.user.email, "alice@acme.example.test");
  assert.deepEqual(body.groups, ["acme"], "first-party apps learn the groups from get-session");
  const audit = await svc.database.client.execute("SELECT action, outcome, subject FROM svc_audit");
  assert.deepEqual(audit.rows.map((r) => [r.action, r.outcome, r.subject]), [[
    "sign_in",
    "admitted",
    "github:alice",
  ]]);
  assert.deepEqual(github.refusals, []);
});

/** One refused sign-in: the reason on the page, no cookie, no session or user row, an audit row. */
async function assertRefused(
  env: Record<string, string>,
  login: string,
  reason: string,
  words: RegExp,
  setUp: (github: Awaited<ReturnType<typeof startDeployed>>["github"]) => void = () => {},
  options: { githubTimeoutMs?: number } = {},
) {
  const { svc, github } = await startDeployed(env, options);
  await using _ = svc;
  setUp(github);
  const jar = new Jar(svc);
  const attempt = await signInWithGitHub(jar, github, login);
  assert.equal(attempt.callback.status, 302);
  assert.equal(attempt.location.pathname, "/sign-in", String(attempt.location));
  assert.equal(attempt.location.searchParams.get("error"), reason);
  assert.ok(!attempt.setCookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(c)));
  assert.ok(!jar.cookies.has(SESSION_COOKIE), "no session cookie");
  assert.equal(await count(svc, "SELECT count(*) AS n FROM session"), 0, "no session row");
  assert.equal(await count(svc, "SELECT count(*) AS n FROM user"), 0, "no user row either");
  const page = await jar.send(new Request(attempt.location));
  assert.equal(page.status, 403);
  const html = await page.text();
  assert.match(html, words);
  assert.match(html, /role="alert"/);
  const audit = await svc.database.client.execute("SELECT action, outcome, subject, reason FROM svc_audit");
  assert.deepEqual(
    audit.rows.map((r) => [r.action, r.outcome, r.subject, r.reason]),
    [["sign_in", "denied", `github:${login}`, reason]],
  );
}

Deno.test("a GitHub user outside the allowed organisations is refused with the reason", async () => {
  await assertRefused(
    { AUTH_GITHUB_ALLOWED_ORGS: "acme" },
    "mallory",
    "not_a_member",
    /not a member of the organisations/,
  );
});

Deno.test("a pending invitation is not membership", async () => {
  await assertRefused(
    { AUTH_GITHUB_ALLOWED_ORGS: "acme" },
    "pat",
    "membership_pending",
    /invitation .* still pending/,
  );
});

Deno.test("an organisation enforcing SAML SSO (403) refuses with the SSO reason", async () => {
  await assertRefused(
    { AUTH_GITHUB_ALLOWED_ORGS: "acme" },
    "bob",
    "sso_required",
    /SAML single sign-on/,
    (github) => github.orgs.ssoOrgs.add("Acme"),
  );
});

for (const fault of ["502", "malformed", "missing-fields", "slow"] as const) {
  Deno.test(`GitHub answering ${fault} never admits anyone: refused with a retry message`, async () => {
    await assertRefused(
      { AUTH_GITHUB_ALLOWED_ORGS: "acme", AUTH_GITHUB_ALLOWED_TEAMS: "acme/platform" },
      "alice",
      "github_unavailable",
      /try again in a few minutes/,
      (github) => (github.orgs.fault = fault),
      { githubTimeoutMs: 400 },
    );
  });
}

Deno.test("a team restriction admits the team's members only, matching odd casing, past 100 teams", async () => {
  const { svc, github } = await startDeployed({ AUTH_GITHUB_ALLOWED_TEAMS: "ACME/platform" });
  await using _ = svc;
  github.orgs.teamPadding = 230; // alice's team is on the third page
  const alice = new Jar(svc);
  const admitted = await signInWithGitHub(alice, github, "alice");
  assert.equal(admitted.location.searchParams.get("error"), null);
  assert.ok(alice.cookies.has(SESSION_COOKIE));
  const groups = await svc.database.client.execute("SELECT groups FROM svc_user_access");
  assert.equal(groups.rows[0].groups, '["acme/platform"]', "only the allowed team, not the org or others");
  const bob = new Jar(svc);
  const refused = await signInWithGitHub(bob, github, "bob");
  assert.equal(refused.location.searchParams.get("error"), "not_a_member");
  assert.ok(!bob.cookies.has(SESSION_COOKIE));
  assert.equal(await count(svc, "SELECT count(*) AS n FROM session"), 1);
});

Deno.test("the groups claim lists allowed organisations and teams only, never others", async () => {
  const { svc, github } = await startDeployed({
    AUTH_GITHUB_ALLOWED_ORGS: "acme,other-org",
    AUTH_GITHUB_ALLOWED_TEAMS: "acme/platform",
  });
  await using _ = svc;
  github.orgs.memberships.get("alice")!.set("Unlisted", "active");
  github.orgs.teams.get("alice")!.push({ org: "Acme", slug: "secret-team" });
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "alice");
  const groups = await svc.database.client.execute("SELECT groups FROM svc_user_access");
  assert.deepEqual(JSON.parse(String(groups.rows[0].groups)), ["acme", "acme/platform"]);
});

Deno.test("an allowed login signs in without organisation data (no read:org asked)", async () => {
  const { svc, github } = await startDeployed({ AUTH_GITHUB_ALLOWED_USERS: "Mallory" });
  await using _ = svc;
  const jar = new Jar(svc);
  const attempt = await signInWithGitHub(jar, github, "mallory");
  assert.doesNotMatch(attempt.requestedScope, /read:org/);
  assert.ok(jar.cookies.has(SESSION_COOKIE));
  const other = new Jar(svc);
  assert.equal(
    (await signInWithGitHub(other, github, "bob")).location.searchParams.get("error"),
    "not_a_member",
  );
  assert.equal(github.orgs.calls, 0);
});
