/**
 * `deno task auth:sessions` against a running service's database: the listing shows sessions and grants but
 * no token; revoking one client's grant leaves the others and the browser sessions; revoking everything ends
 * the browser sessions and kills every token and unredeemed code of the user.
 */
import assert from "node:assert/strict";
import { tempDir } from "@switchyard/lib/testing.ts";
import type { UserSessions } from "../../auth/operations/sessions.ts";
import { authorizeInBrowser, Browser, startAuthService } from "./harness.ts";
import { basic, discover, postForm, prepareAuthorization, runBasicCodeFlow } from "./rp.ts";
import { jsonOf, task } from "./cli_task.ts";

const REDIRECT = "http://127.0.0.1:9/cb";
const USER = "local-developer";

Deno.test("auth:sessions lists a user's sessions and grants without tokens and revokes per client or all", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const a = await svc.register({ name: "App A", redirectUris: [REDIRECT] });
  const b = await svc.register({ name: "App B", redirectUris: [REDIRECT], skipConsent: true });
  const as = await discover(svc.issuer);
  const laptop = new Browser();
  const phone = new Browser();
  const a1 = await runBasicCodeFlow(as, a, REDIRECT, laptop);
  const b1 = await runBasicCodeFlow(as, b, REDIRECT, laptop);
  const a2 = await runBasicCodeFlow(as, a, REDIRECT, phone);
  const refresh = (reg: { client_id: string; client_secret?: string }, token: string) =>
    postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: token }, {
      authorization: basic(reg.client_id, reg.client_secret!),
    });
  const sessionOf = async (browser: Browser) => {
    const response = await browser.request(`${svc.url}/api/auth/get-session`);
    return await response.json() as { session?: { id: string } } | null;
  };

  const listed = await task("auth:sessions", ["list", "--user", USER, "--json"], env);
  const view = jsonOf<UserSessions>(listed);
  assert.equal(view.sessions.length, 2, "laptop and phone");
  assert.deepEqual(
    view.grants.map((g) => [g.client_name, g.active_refresh_tokens, g.consented_scopes.includes("openid")])
      .sort(),
    [["App A", 2, true], ["App B", 1, true]],
  );
  const secrets = await svc.database.client.execute(
    "SELECT token FROM session UNION ALL SELECT token FROM oauth_refresh_token UNION ALL SELECT token FROM oauth_access_token",
  );
  for (const row of secrets.rows) {
    assert.ok(!listed.stdout.includes(String(row.token)), "no token or hash printed");
  }
  for (const t of [a1, b1, a2]) {
    assert.ok(
      !listed.stdout.includes(t.tokens.refresh_token!) && !listed.stdout.includes(t.tokens.access_token),
    );
  }
  const human = await task("auth:sessions", ["list", "--user", USER], env);
  assert.match(human.stdout, /2 active browser session\(s\)/);
  assert.match(human.stdout, /App B\s+openid[a-z_ ]*\s+1\s+1\n?/);

  const onlyB = await task("auth:sessions", ["revoke", "--user", USER, "--client", b.client_id], env);
  assert.equal(onlyB.code, 0, onlyB.stderr);
  assert.match(onlyB.stdout, /0 browser session\(s\), 1 refresh and 1 access token\(s\)/);
  const bRefused = await refresh(b, b1.tokens.refresh_token!);
  assert.equal(bRefused.status, 400);
  await bRefused.body?.cancel();
  const aStill = await refresh(a, a1.tokens.refresh_token!);
  assert.equal(aStill.status, 200, "the other client's grant survives");
  const aNext = await aStill.json() as { access_token: string; refresh_token: string };
  assert.ok((await sessionOf(laptop))?.session, "browser sessions survive a per-client revocation");

  // A code issued before the revocation but not yet redeemed must not yield tokens after it.
  const pending = await prepareAuthorization(as, a.client_id, REDIRECT);
  const { callback } = await authorizeInBrowser(laptop, pending.url.href, REDIRECT);

  const all = jsonOf<{ sessions: number; refresh_tokens: number }>(
    await task("auth:sessions", ["revoke", "--user", USER, "--json"], env),
  );
  assert.equal(all.sessions, 2);
  assert.equal(all.refresh_tokens, 2);
  assert.equal(await sessionOf(laptop), null, "laptop signed out");
  assert.equal(await sessionOf(phone), null, "phone signed out");
  for (const token of [aNext.refresh_token, a2.tokens.refresh_token!]) {
    const response = await refresh(a, token);
    assert.equal(response.status, 400);
    await response.body?.cancel();
  }
  const userinfo = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${aNext.access_token}` },
  });
  assert.equal(userinfo.status, 401);
  await userinfo.body?.cancel();
  const exchange = await postForm(as.token_endpoint!, {
    grant_type: "authorization_code",
    code: callback.searchParams.get("code")!,
    code_verifier: pending.verifier,
    redirect_uri: REDIRECT,
  }, { authorization: basic(a.client_id, a.client_secret!) });
  assert.equal(exchange.status, 400, "the unredeemed code is gone");
  await exchange.body?.cancel();
  const empty = jsonOf<UserSessions>(await task("auth:sessions", ["list", "--user", USER, "--json"], env));
  assert.deepEqual([empty.sessions, empty.grants], [[], []]);
});

Deno.test("auth:sessions names every bad argument and exits 1 on an unknown user or client", async () => {
  await using dir = await tempDir();
  const env = { AUTH_DATABASE_URL: `file:${dir.path}/auth.db` };
  const cases: [string[], RegExp][] = [
    [[], /missing command/],
    [["kill", "--user", "u"], /unknown command "kill"/],
    [["list"], /list needs --user <id>/],
    [["revoke", "--user", ""], /revoke needs --user <id>/],
    [["list", "--user", "u", "--client", "c"], /--client applies to revoke only/],
    [["revoke", "--user", "u", "--client", ""], /--client needs a client id/],
    [["list", "--user", "u", "more"], /unexpected argument "more"/],
    [["list", "--usr", "u"], /--usr/],
    [["list", "--user"], /--user/],
  ];
  for (const [args, message] of cases) {
    const result = await task("auth:sessions", args, env);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, "");
  }
  await assert.rejects(Deno.stat(`${dir.path}/auth.db`), Deno.errors.NotFound, "no database was written");
  const unknown = await task("auth:sessions", ["revoke", "--user", "nobody"], env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no user with id "nobody"/);
});

Deno.test("auth:sessions revoke --client of an unknown client changes nothing", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const a = await svc.register({ redirectUris: [REDIRECT], skipConsent: true });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  await runBasicCodeFlow(as, a, REDIRECT, browser);
  const result = await task("auth:sessions", ["revoke", "--user", USER, "--client", "no-such-client"], env);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /no OAuth client with id "no-such-client"/);
  const view = jsonOf<UserSessions>(await task("auth:sessions", ["list", "--user", USER, "--json"], env));
  assert.equal(view.sessions.length, 1);
  assert.equal(view.grants[0].active_refresh_tokens, 1);
});
