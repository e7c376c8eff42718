/**
 * Storage contract: after a full flow the database holds exactly the nine tables of Better Auth 1.6.23's
 * generated SQLite schema (snake_case, integer-ms dates, 0/1 booleans, JSON text), and every date is an
 * integer.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { authorizeInBrowser, Browser, startAuthService } from "./harness.ts";
import { basic, discover, INSECURE, postForm, prepareAuthorization, runCodeFlow } from "./rp.ts";
import { createBetterAuth } from "../../auth/better_auth/mod.ts";

/** name:type, `!` = NOT NULL; from the generated schema (reference notes §2.2). */
const EXPECTED_COLUMNS: Record<string, string> = {
  account: "id:text! account_id:text! provider_id:text! user_id:text! access_token:text refresh_token:text " +
    "id_token:text access_token_expires_at:integer refresh_token_expires_at:integer scope:text password:text " +
    "created_at:integer! updated_at:integer!",
  jwks: "id:text! public_key:text! private_key:text! created_at:integer! expires_at:integer",
  oauth_access_token: "id:text! token:text! client_id:text! session_id:text user_id:text reference_id:text " +
    "refresh_id:text expires_at:integer! created_at:integer! scopes:text!",
  oauth_client: "id:text! client_id:text! client_secret:text disabled:integer skip_consent:integer " +
    "enable_end_session:integer subject_type:text scopes:text user_id:text created_at:integer " +
    "updated_at:integer name:text uri:text icon:text contacts:text tos:text policy:text software_id:text " +
    "software_version:text software_statement:text redirect_uris:text! post_logout_redirect_uris:text " +
    "token_endpoint_auth_method:text grant_types:text response_types:text public:integer type:text " +
    "require_pkce:integer reference_id:text metadata:text",
  oauth_consent: "id:text! client_id:text! user_id:text reference_id:text scopes:text! created_at:integer! " +
    "updated_at:integer!",
  oauth_refresh_token:
    "id:text! token:text! client_id:text! session_id:text user_id:text! reference_id:text " +
    "expires_at:integer! created_at:integer! revoked:integer auth_time:integer scopes:text!",
  session:
    "id:text! expires_at:integer! token:text! created_at:integer! updated_at:integer! ip_address:text " +
    "user_agent:text user_id:text!",
  user:
    "id:text! name:text! email:text! email_verified:integer! image:text created_at:integer! updated_at:integer!",
  verification:
    "id:text! identifier:text! value:text! expires_at:integer! created_at:integer! updated_at:integer!",
};

const EXPECTED_INDEXES = [
  "account_userId_idx",
  "oauthAccessToken_clientId_idx",
  "oauthAccessToken_refreshId_idx",
  "oauthAccessToken_sessionId_idx",
  "oauthAccessToken_userId_idx",
  "oauthClient_userId_idx",
  "oauthConsent_clientId_idx",
  "oauthConsent_userId_idx",
  "oauthRefreshToken_clientId_idx",
  "oauthRefreshToken_sessionId_idx",
  "oauthRefreshToken_userId_idx",
  "oauth_access_token_token_unique",
  "oauth_client_client_id_unique",
  "oauth_refresh_token_token_unique",
  "session_token_unique",
  "session_userId_idx",
  "user_email_unique",
  "verification_identifier_idx",
];

const EXPECTED_FOREIGN_KEYS = [
  "account.user_id>user.id:CASCADE",
  "oauth_access_token.client_id>oauth_client.client_id:CASCADE",
  "oauth_access_token.refresh_id>oauth_refresh_token.id:CASCADE",
  "oauth_access_token.session_id>session.id:SET NULL",
  "oauth_access_token.user_id>user.id:CASCADE",
  "oauth_client.user_id>user.id:CASCADE",
  "oauth_consent.client_id>oauth_client.client_id:CASCADE",
  "oauth_consent.user_id>user.id:CASCADE",
  "oauth_refresh_token.client_id>oauth_client.client_id:CASCADE",
  "oauth_refresh_token.session_id>session.id:SET NULL",
  "oauth_refresh_token.user_id>user.id:CASCADE",
  "session.user_id>user.id:CASCADE",
];

const DATE_COLUMNS = new Set([
  "created_at",
  "updated_at",
  "expires_at",
  "access_token_expires_at",
  "refresh_token_expires_at",
  "revoked",
  "auth_time",
]);

Deno.test("after a full flow the database matches the generated 1.6.23 schema and every date is an integer", async () => {
  await using svc = await startAuthService();
  const redirect = "http://127.0.0.1:9/cb";
  const reg = await svc.register({ redirectUris: [redirect], enableEndSession: true });
  const as = await discover(svc.issuer);
  const c = { client_id: reg.client_id };
  const auth = oauth.ClientSecretBasic(reg.client_secret!);
  const browser = new Browser();
  const { tokens } = await runCodeFlow(as, c, auth, redirect, browser);
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    c,
    await oauth.refreshTokenGrantRequest(as, c, auth, tokens.refresh_token!, INSECURE),
  );
  await runCodeFlow(as, c, auth, redirect, browser); // a second grant over the recorded consent
  // A code issued and not yet redeemed stays in `verification`.
  const pending = await prepareAuthorization(as, reg.client_id, redirect, { prompt: null });
  await authorizeInBrowser(browser, pending.url.href, redirect);
  await postForm(as.revocation_endpoint!, { token: refreshed.access_token }, {
    authorization: basic(reg.client_id, reg.client_secret!),
  });
  const db = svc.database.client;

  const tables = await db.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  // Better Auth's nine tables exactly, plus the service's own `svc_` tables (migrations/0002_grants.sql,
  // 0003_audit_membership.sql).
  const names = tables.rows.map((r) => String(r.name));
  assert.deepEqual(names.filter((n) => !n.startsWith("svc_")), [
    "_migrations",
    ...Object.keys(EXPECTED_COLUMNS),
  ]);
  assert.deepEqual(names.filter((n) => n.startsWith("svc_")), [
    "svc_audit",
    "svc_backchannel_client",
    "svc_backchannel_outbox",
    "svc_grant_claim",
    "svc_grant_revoked",
    "svc_grant_token",
    "svc_refresh_reuse",
    "svc_user_access",
  ]);

  for (const [table, expected] of Object.entries(EXPECTED_COLUMNS)) {
    const info = await db.execute(
      `SELECT name, type, "notnull" AS nn FROM pragma_table_info('${table}') ORDER BY cid`,
    );
    const actual = info.rows.map((r) =>
      `${r.name}:${String(r.type).toLowerCase()}${Number(r.nn) ? "!" : ""}`
    );
    assert.equal(actual.join(" "), expected, `columns of ${table}`);
    const pk = await db.execute(`SELECT name FROM pragma_table_info('${table}') WHERE pk > 0`);
    assert.deepEqual(pk.rows.map((r) => r.name), ["id"], `primary key of ${table}`);
  }

  const indexes = await db.execute(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND name NOT LIKE 'svc_%' ORDER BY name",
  );
  assert.deepEqual(indexes.rows.map((r) => String(r.name)), EXPECTED_INDEXES);

  const foreignKeys: string[] = [];
  for (const table of Object.keys(EXPECTED_COLUMNS)) {
    const fks = await db.execute(
      `SELECT "from", "table", "to", on_delete FROM pragma_foreign_key_list('${table}')`,
    );
    for (const r of fks.rows) foreignKeys.push(`${table}.${r.from}>${r.table}.${r.to}:${r.on_delete}`);
  }
  assert.deepEqual(foreignKeys.sort(), [...EXPECTED_FOREIGN_KEYS].sort());

  let dateValues = 0;
  for (const table of Object.keys(EXPECTED_COLUMNS)) {
    const count = await db.execute(`SELECT count(*) AS n FROM ${table}`);
    assert.ok(Number(count.rows[0].n) > 0, `the flow wrote rows into ${table}`);
    for (const column of EXPECTED_COLUMNS[table].split(" ").map((c) => c.split(":")[0])) {
      if (!DATE_COLUMNS.has(column)) continue;
      const kinds = await db.execute(
        `SELECT DISTINCT typeof(${column}) AS t FROM ${table} WHERE ${column} IS NOT NULL`,
      );
      for (const row of kinds.rows) assert.equal(row.t, "integer", `${table}.${column} holds ${row.t}`);
      const n = await db.execute(`SELECT count(${column}) AS n FROM ${table}`);
      dateValues += Number(n.rows[0].n);
    }
  }
  assert.ok(dateValues > 20, `dates were checked (${dateValues})`);

  const revoked = await db.execute("SELECT count(*) AS n FROM oauth_refresh_token WHERE revoked IS NOT NULL");
  assert.ok(Number(revoked.rows[0].n) >= 1, "a rotated refresh token carries an integer revoked date");
  const client = await db.execute(
    "SELECT disabled, skip_consent, enable_end_session, require_pkce, redirect_uris, grant_types, user_id " +
      "FROM oauth_client",
  );
  const row = client.rows[0];
  assert.deepEqual([row.disabled, row.skip_consent, row.enable_end_session, row.require_pkce], [0, 0, 1, 1]);
  assert.deepEqual(JSON.parse(String(row.redirect_uris)), [redirect]);
  assert.deepEqual(JSON.parse(String(row.grant_types)), ["authorization_code", "refresh_token"]);
  assert.equal(row.user_id, null, "the registered client is detached from the one-use user");
  const user = await db.execute("SELECT email_verified FROM user WHERE id = 'local-developer'");
  assert.equal(user.rows[0].email_verified, 1);
});

Deno.test("an unexpired integer-dated verification row survives the library's expiry clean-up", async () => {
  await using svc = await startAuthService();
  const db = svc.database.client;
  const now = Date.now();
  await db.execute({
    sql:
      "INSERT INTO verification (id, identifier, value, expires_at, created_at, updated_at) VALUES (?,?,?,?,?,?)",
    args: ["keep", "keep-me", "{}", now + 600_000, now, now],
  });
  await db.execute({
    sql:
      "INSERT INTO verification (id, identifier, value, expires_at, created_at, updated_at) VALUES (?,?,?,?,?,?)",
    args: ["old", "expired", "{}", now - 600_000, now - 700_000, now - 700_000],
  });
  const auth = createBetterAuth({ config: svc.config, db: svc.database.db, secureCookies: false });
  const adapter = (await auth.$context).internalAdapter;
  // findVerificationValue also deletes expired rows with `expires_at < <now>`, compared as integers here.
  const found = await adapter.findVerificationValue("keep-me");
  assert.equal(found?.value, "{}");
  assert.ok(found.expiresAt instanceof Date && found.expiresAt.getTime() === now + 600_000);
  await adapter.findVerificationValue("expired");
  const rows = await db.execute("SELECT id FROM verification WHERE id IN ('keep', 'old') ORDER BY id");
  assert.deepEqual(
    rows.rows.map((r) => r.id),
    ["keep"],
    "the unexpired row survives, the expired one is gone",
  );
});
