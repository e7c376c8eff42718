/**
 * Issue 25, re-validation and what apps learn: the `groups` claim in the ID token, userinfo, introspection
 * and get-session; a cached membership check costs no GitHub call; a member removed from the organisation
 * loses refresh once AUTH_MEMBERSHIP_TTL has passed, with every session and grant ended; GitHub unreachable
 * keeps access for AUTH_MEMBERSHIP_GRACE only; a disabled user cannot sign in; and the database holds none
 * of the secrets and tokens the run issued.
 */
import assert from "node:assert/strict";
import { disableUser, enableUser } from "../../auth/operations/users.ts";
import {
  AUTH_SECRET,
  BASE,
  codeFlow,
  count,
  GITHUB_CLIENT_SECRET,
  Jar,
  payloadOf,
  signInWithGitHub,
  startDeployed,
  tokenRequest,
} from "./membership_support.ts";
import { basic } from "./rp.ts";

const REDIRECT = "https://app.example.test/callback";
const MINUTE = 60_000;

Deno.test("groups reach the ID token, userinfo and introspection; a removed member loses refresh after the TTL", async () => {
  const { svc, github, clock } = await startDeployed({ AUTH_GITHUB_ALLOWED_ORGS: "acme" });
  await using _ = svc;
  const client = await svc.register({ redirectUris: [REDIRECT] });
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "alice");
  const tokens = await codeFlow(jar, client, REDIRECT);
  assert.deepEqual(payloadOf(tokens.id_token).groups, ["acme"], "ID token from the code");

  const userinfo = await svc.handle(
    new Request(`${BASE}/api/auth/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    }),
  );
  assert.deepEqual((await userinfo.json()).groups, ["acme"], "userinfo");
  const introspection = await svc.handle(
    new Request(`${BASE}/api/auth/oauth2/introspect`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: basic(client.client_id, client.client_secret!),
      },
      body: new URLSearchParams({ token: tokens.access_token }).toString(),
    }),
  );
  assert.deepEqual((await introspection.json()).groups, ["acme"], "introspection");

  // Within the TTL the stored check answers: no GitHub call per refresh.
  const callsAfterSignIn = github.orgs.calls;
  let refresh = tokens.refresh_token;
  const issued = [tokens.access_token, tokens.refresh_token];
  for (let i = 0; i < 3; i++) {
    clock.now += MINUTE;
    const answer = await tokenRequest(jar, client, { grant_type: "refresh_token", refresh_token: refresh });
    assert.equal(answer.status, 200);
    const body = await answer.json();
    assert.deepEqual(payloadOf(body.id_token).groups, ["acme"], "ID token from a refresh");
    refresh = body.refresh_token;
    issued.push(body.access_token, body.refresh_token);
  }
  assert.equal(github.orgs.calls, callsAfterSignIn, "cached checks cost no GitHub call");

  // Removed from the organisation: still cached until the TTL ends, then the refresh is refused.
  github.orgs.memberships.get("alice")!.delete("Acme");
  clock.now += MINUTE;
  const cached = await tokenRequest(jar, client, { grant_type: "refresh_token", refresh_token: refresh });
  assert.equal(cached.status, 200);
  const cachedBody = await cached.json();
  refresh = cachedBody.refresh_token;
  issued.push(cachedBody.access_token, cachedBody.refresh_token);
  clock.now += 15 * MINUTE;
  const refused = await tokenRequest(jar, client, { grant_type: "refresh_token", refresh_token: refresh });
  assert.equal(refused.status, 400);
  assert.equal((await refused.json()).error, "invalid_grant");
  assert.equal(github.orgs.calls, callsAfterSignIn + 1, "one GitHub round after the TTL");
  const userId = String((await svc.database.client.execute("SELECT id FROM user")).rows[0].id);
  assert.equal(
    await count(svc, "SELECT count(*) AS n FROM session WHERE user_id = ?", [userId]),
    0,
    "sessions end",
  );
  assert.equal(
    await count(svc, "SELECT count(*) AS n FROM oauth_refresh_token WHERE user_id = ? AND revoked IS NULL", [
      userId,
    ]),
    0,
  );
  assert.equal(
    await count(svc, "SELECT count(*) AS n FROM oauth_access_token WHERE user_id = ?", [userId]),
    0,
  );
  const session = await jar.send(new Request(`${BASE}/api/auth/get-session`));
  assert.equal(await session.json(), null);
  const audit = await svc.database.client.execute(
    "SELECT action, outcome, reason FROM svc_audit WHERE action = 'membership_revalidation'",
  );
  assert.deepEqual(audit.rows.map((r) => [r.action, r.outcome, r.reason]), [[
    "membership_revalidation",
    "denied",
    "not_a_member",
  ]]);

  // The database holds no secret and no token the run issued (hashes and ciphertexts only).
  await svc.database.client.execute("PRAGMA wal_checkpoint(TRUNCATE)").catch(() => {});
  const files = [svc.dbPath, `${svc.dbPath}-wal`, `${svc.dbPath}-journal`];
  let bytes = "";
  for (const file of files) {
    const data = await Deno.readFile(file).catch(() => new Uint8Array());
    bytes += new TextDecoder("latin1").decode(data);
  }
  assert.ok(bytes.length > 0);
  const secrets = {
    AUTH_SECRET,
    GITHUB_CLIENT_SECRET,
    client_secret: client.client_secret!,
    ...Object.fromEntries(github.issuedTokens().map((t, i) => [`github token ${i}`, t])),
    ...Object.fromEntries(issued.map((t, i) => [`oauth token ${i}`, t])),
  };
  for (const [name, secret] of Object.entries(secrets)) {
    assert.ok(secret.length >= 16, name);
    assert.ok(!bytes.includes(secret), `${name} is not stored in the database`);
  }
  // Better Auth keys browser sessions by their token (session.token); the audit log never holds it.
  const auditText = JSON.stringify((await svc.database.client.execute("SELECT * FROM svc_audit")).rows);
  for (const value of jar.cookies.values()) {
    assert.ok(!auditText.includes(decodeURIComponent(value).split(".")[0]));
  }
});

Deno.test("GitHub unreachable during re-validation keeps access for the grace period only", async () => {
  const { svc, github, clock } = await startDeployed({
    AUTH_GITHUB_ALLOWED_ORGS: "acme",
    AUTH_MEMBERSHIP_TTL: "15m",
    AUTH_MEMBERSHIP_GRACE: "1h",
  }, { githubTimeoutMs: 400 });
  await using _ = svc;
  const client = await svc.register({ redirectUris: [REDIRECT] });
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "bob");
  let { refresh_token: refresh } = await codeFlow(jar, client, REDIRECT);
  const signedInAt = clock.now;
  github.orgs.fault = "502";
  const refreshAt = async (at: number) => {
    clock.now = at;
    const answer = await tokenRequest(jar, client, { grant_type: "refresh_token", refresh_token: refresh });
    const body = await answer.json();
    if (answer.ok) refresh = body.refresh_token;
    return { status: answer.status, body };
  };
  const calls = github.orgs.calls;
  assert.equal((await refreshAt(signedInAt + 16 * MINUTE)).status, 200, "within grace");
  assert.equal(github.orgs.calls, calls + 1);
  assert.equal((await refreshAt(signedInAt + 17 * MINUTE)).status, 200, "cached outage, still within grace");
  assert.equal(github.orgs.calls, calls + 1, "the failed check is cached too");
  assert.equal((await refreshAt(signedInAt + 45 * MINUTE)).status, 200);
  const late = await refreshAt(signedInAt + 61 * MINUTE);
  assert.equal(late.status, 400, "past the grace since the last successful check");
  assert.equal(late.body.error, "invalid_grant");
  assert.equal(await count(svc, "SELECT count(*) AS n FROM session"), 0);
});

Deno.test("a member removed from the organisation loses get-session after the TTL", async () => {
  const { svc, github, clock } = await startDeployed({ AUTH_GITHUB_ALLOWED_ORGS: "acme" });
  await using _ = svc;
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "alice");
  github.orgs.memberships.get("alice")!.delete("Acme");
  const get = async () => await (await jar.send(new Request(`${BASE}/api/auth/get-session`))).json();
  assert.deepEqual((await get()).groups, ["acme"], "cached within the TTL");
  clock.now += 16 * MINUTE;
  assert.equal(await get(), null);
  assert.equal(await count(svc, "SELECT count(*) AS n FROM session"), 0);
});

Deno.test("a disabled user loses sessions and grants at once and cannot sign in until enabled", async () => {
  const { svc, github } = await startDeployed({ AUTH_GITHUB_ALLOWED_ORGS: "acme" });
  await using _ = svc;
  const client = await svc.register({ redirectUris: [REDIRECT] });
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "alice");
  const tokens = await codeFlow(jar, client, REDIRECT);
  const userId = String((await svc.database.client.execute("SELECT id FROM user")).rows[0].id);
  const revoked = await disableUser(svc.database.client, userId);
  assert.equal(revoked.sessions, 1);
  assert.ok(revoked.refresh_tokens >= 1);
  const refused = await tokenRequest(jar, client, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
  });
  assert.equal(refused.status, 400);
  const again = new Jar(svc);
  const attempt = await signInWithGitHub(again, github, "alice");
  assert.equal(attempt.location.searchParams.get("error"), "user_disabled");
  assert.equal(await count(svc, "SELECT count(*) AS n FROM session"), 0);
  await enableUser(svc.database.client, userId);
  const back = await signInWithGitHub(again, github, "alice");
  assert.equal(back.location.searchParams.get("error"), null);
  assert.equal(await count(svc, "SELECT count(*) AS n FROM session"), 1);
});

Deno.test("a session due for extension is re-validated: a removed member's session is ended, not extended", async () => {
  const { svc, github, clock } = await startDeployed({ AUTH_GITHUB_ALLOWED_ORGS: "acme" });
  await using _ = svc;
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "alice");
  // Better Auth extends a 7-day session once a day has passed: make it due.
  const due = () =>
    svc.database.client.execute({
      sql: "UPDATE session SET expires_at = ?",
      args: [Date.now() + 5 * 86_400_000],
    });
  await due();
  const get = () => jar.send(new Request(`${BASE}/api/auth/get-session`));
  const extended = await get();
  assert.equal(extended.status, 200);
  assert.ok(Date.parse((await extended.json()).session.expiresAt) > Date.now() + 6 * 86_400_000, "extended");
  await due();
  github.orgs.memberships.get("alice")!.delete("Acme");
  clock.now += 16 * MINUTE;
  const refused = await get();
  // The extension hook refused (Better Auth answers 401 and clears the cookie), before get-session's own check.
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  assert.equal(await count(svc, "SELECT count(*) AS n FROM session"), 0);
  assert.ok(!jar.cookies.has("__Secure-svc.session_token"));
});

Deno.test("parallel refreshes after the TTL share one GitHub round", async () => {
  const { svc, github, clock } = await startDeployed({ AUTH_GITHUB_ALLOWED_ORGS: "acme" }, {
    githubTimeoutMs: 5000,
  });
  await using _ = svc;
  const client = await svc.register({ redirectUris: [REDIRECT] });
  const jar = new Jar(svc);
  await signInWithGitHub(jar, github, "alice");
  const grants = [];
  for (let i = 0; i < 5; i++) grants.push(await codeFlow(jar, client, REDIRECT));
  clock.now += 16 * MINUTE;
  github.orgs.fault = "slow"; // answers after 3 s, correctly
  const calls = github.orgs.calls;
  const answers = await Promise.all(
    grants.map((g) =>
      tokenRequest(jar, client, { grant_type: "refresh_token", refresh_token: g.refresh_token })
    ),
  );
  assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200]);
  await Promise.all(answers.map((a) => a.body?.cancel()));
  assert.equal(github.orgs.calls, calls + 1);
});
