/**
 * `deno task auth:users` and `deno task auth:audit` against a running service's database (issue 25): a
 * disabled user loses their session at once and cannot sign in until enabled; every operator action and
 * sign-in is in the audit log, which filters by user, action and time, refuses bad filters, is
 * append-only, prunes by retention, and never prints a secret.
 */
import assert from "node:assert/strict";
import type { AuditRow } from "../../auth/audit/mod.ts";
import type { UserInfo } from "../../auth/operations/users.ts";
import { Browser, startAuthService } from "./harness.ts";
import { discover, runBasicCodeFlow } from "./rp.ts";
import { jsonOf, task } from "./cli_task.ts";

const REDIRECT = "http://127.0.0.1:9/cb";
const USER = "local-developer";

Deno.test("auth:users disables and enables a user; auth:audit shows every action without a secret", async () => {
  await using svc = await startAuthService();
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}` };
  const registered = jsonOf<{ client_id: string; client_secret: string }>(
    await task("oauth:register", ["--name", "Audit App", "--redirect-uri", REDIRECT, "--json"], env),
  );
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const flow = await runBasicCodeFlow(as, registered, REDIRECT, browser);

  const listed = jsonOf<UserInfo[]>(await task("auth:users", ["list", "--json"], env));
  assert.deepEqual(listed.map((u) => [u.id, u.disabled]), [[USER, false]]);
  const shown = jsonOf<UserInfo>(await task("auth:users", ["show", USER, "--json"], env));
  assert.equal(shown.email, "developer@localhost.test");
  const text = await task("auth:users", ["show", USER], env);
  assert.match(text.stdout, /disabled:\s+no/);

  const disabled = jsonOf<{ sessions: number; refresh_tokens: number }>(
    await task("auth:users", ["disable", USER, "--json"], env),
  );
  assert.equal(disabled.sessions, 1);
  assert.ok(disabled.refresh_tokens >= 1);
  const session = await browser.request(`${svc.url}/api/auth/get-session`);
  assert.equal(await session.json(), null, "the browser session ended at once");
  const refused = await browser.postForm(`${svc.url}/sign-in/local-developer`, { oauth_query: "" });
  assert.notEqual(refused.status, 303, "a disabled user cannot sign in");
  await refused.body?.cancel();
  assert.equal(Number((await svc.database.client.execute("SELECT count(*) AS n FROM session")).rows[0].n), 0);
  assert.equal(jsonOf<UserInfo>(await task("auth:users", ["show", USER, "--json"], env)).disabled, true);

  assert.equal((await task("auth:users", ["enable", USER], env)).code, 0);
  const back = await browser.postForm(`${svc.url}/sign-in/local-developer`, { oauth_query: "" });
  assert.equal(back.status, 303, "enabled again");
  await back.body?.cancel();

  const rows = jsonOf<AuditRow[]>(await task("auth:audit", ["--json"], env));
  const actions = rows.map((r) => `${r.action}:${r.outcome}`).reverse();
  for (
    const expected of [
      "client_register:success",
      "sign_in:admitted",
      "consent:success",
      "user_disable:success",
      "sign_in:denied",
      "user_enable:success",
    ]
  ) assert.ok(actions.includes(expected), `${expected} in ${actions.join(", ")}`);
  assert.equal(rows.find((r) => r.action === "user_disable")?.actor, "operator");
  assert.equal(rows.find((r) => r.action === "client_register")?.client_id, registered.client_id);

  const onlyDisable = jsonOf<AuditRow[]>(
    await task("auth:audit", ["--action", "user_disable", "--json"], env),
  );
  assert.deepEqual(onlyDisable.map((r) => r.action), ["user_disable"]);
  const byUser = jsonOf<AuditRow[]>(await task("auth:audit", ["--user", USER, "--json"], env));
  assert.ok(byUser.length >= 4 && byUser.every((r) => r.user_id === USER));
  const future = jsonOf<AuditRow[]>(await task("auth:audit", ["--since", "2999-01-01", "--json"], env));
  assert.deepEqual(future, []);
  const table = await task("auth:audit", [], env);
  assert.match(table.stdout, /user_disable/);

  for (const secret of [registered.client_secret, flow.tokens.access_token, flow.tokens.refresh_token!]) {
    assert.ok(!table.stdout.includes(secret));
    assert.ok(!JSON.stringify(rows).includes(secret));
  }

  // Bad input: usage errors (exit 2) name the offending value; an unknown user is exit 1.
  const badSince = await task("auth:audit", ["--since", "yesterday"], env);
  assert.equal(badSince.code, 2);
  assert.match(badSince.stderr, /"yesterday" is not an ISO date/);
  const badAction = await task("auth:audit", ["--action", "explode"], env);
  assert.equal(badAction.code, 2);
  assert.equal((await task("auth:users", ["show"], env)).code, 2);
  assert.equal((await task("auth:users", ["frobnicate"], env)).code, 2);
  const unknown = await task("auth:users", ["disable", "nobody"], env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no user with id "nobody"/);
});

Deno.test("the audit log is append-only and prunes past its retention, in bounded batches", async () => {
  await using svc = await startAuthService();
  const db = svc.database.client;
  const old = Date.now() - 10 * 86_400_000;
  await db.execute({
    sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200) " +
      "INSERT INTO svc_audit (at, action, outcome, actor) SELECT ?, 'logout', 'success', 'user' FROM n",
    args: [old],
  });
  await db.execute({
    sql: "INSERT INTO svc_audit (at, action, outcome, actor) VALUES (?, 'logout', 'success', 'user')",
    args: [Date.now()],
  });
  await assert.rejects(() => db.execute("UPDATE svc_audit SET outcome = 'failure'"), /append-only/);
  const env = { AUTH_DATABASE_URL: `file:${svc.dbPath}`, AUTH_AUDIT_RETENTION_DAYS: "7" };
  const pruned = await task("auth:audit", ["--prune"], env);
  assert.equal(pruned.code, 0, pruned.stderr);
  assert.match(pruned.stderr, /pruned 1200 row\(s\) older than 7 day\(s\)/);
  assert.equal(Number((await db.execute("SELECT count(*) AS n FROM svc_audit")).rows[0].n), 1);
  const badRetention = await task("auth:audit", ["--prune"], { ...env, AUTH_AUDIT_RETENTION_DAYS: "soon" });
  assert.equal(badRetention.code, 2);
});
