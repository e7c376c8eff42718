/**
 * The tokens' form (auth/grants/token_storage.ts): every access and refresh token the service issues — code
 * exchange (Better Auth, configured), rotation and device flow alike — is 40 letters with its creation time
 * first and is stored as that time and its hash, so the token indexes grow at their right edge; tokens
 * issued in the earlier form (32 letters stored as their plain hash) keep working on every path.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { sha256Base64url } from "@switchyard/lib/crypto.ts";
import { startAuthService } from "./harness.ts";
import { discover, INSECURE, runCodeFlow } from "./rp.ts";
import { randomToken, storedTokenHash } from "../../auth/grants/token_storage.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

async function codeFlow(svc: Awaited<ReturnType<typeof startAuthService>>) {
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const c = { client_id: reg.client_id };
  const auth = oauth.ClientSecretBasic(reg.client_secret!);
  const { tokens } = await runCodeFlow(as, c, auth, REDIRECT);
  const refresh = (token: string) =>
    oauth.refreshTokenGrantRequest(as, c, auth, token, INSECURE).then((r) =>
      oauth.processRefreshTokenResponse(as, c, r)
    );
  const introspect = (token: string) =>
    oauth.introspectionRequest(as, c, auth, token, INSECURE).then((r) =>
      oauth.processIntrospectionResponse(as, c, r)
    );
  return { as, c, auth, tokens, refresh, introspect };
}

Deno.test("the code exchange's and a rotation's tokens are time-ordered and stored as their time and hash", async () => {
  await using svc = await startAuthService();
  const flow = await codeFlow(svc);
  const rotated = await flow.refresh(flow.tokens.refresh_token!);
  const issued = [
    ["oauth_access_token", flow.tokens.access_token],
    ["oauth_refresh_token", flow.tokens.refresh_token!],
    ["oauth_access_token", rotated.access_token],
    ["oauth_refresh_token", rotated.refresh_token!],
  ] as const;
  for (const [table, token] of issued) {
    assert.match(token, /^[A-Za-z]{40}$/);
    const stored = await svc.database.client.execute({
      sql: `SELECT token FROM ${table} WHERE token = ?`,
      args: [token.slice(0, 8) + sha256Base64url(token)],
    });
    assert.equal(stored.rows.length, 1, `${table} holds the token as its time letters and hash`);
    const plain = await svc.database.client.execute({
      sql: `SELECT 1 FROM ${table} WHERE token = ?`,
      args: [sha256Base64url(token)],
    });
    assert.equal(plain.rows.length, 0);
  }
  // The grant rows use the same stored form, so the refresh's one read joins them.
  const grant = await svc.database.client.execute({
    sql: "SELECT kind FROM svc_grant_token WHERE token_hash = ?",
    args: [storedTokenHash(rotated.refresh_token!)],
  });
  assert.equal(String(grant.rows[0]?.kind), "refresh");
  // Rows stored later sort later: the unique token indexes grow at their end.
  const order = await svc.database.client.execute(
    "SELECT token FROM oauth_refresh_token ORDER BY created_at, token",
  );
  const tokens = order.rows.map((r) => String(r.token));
  assert.deepEqual([...tokens].sort(), tokens);
});

Deno.test("tokens stored in the earlier form (32 letters, plain hash) still introspect, answer userinfo, refresh and revoke", async () => {
  await using svc = await startAuthService();
  const flow = await codeFlow(svc);
  // Turn the code exchange's tokens into tokens of the earlier form, as a database from before holds them.
  const legacyAccess = randomToken();
  const legacyRefresh = randomToken();
  const db = svc.database.client;
  await db.batch([
    {
      sql: "UPDATE oauth_access_token SET token = ? WHERE token = ?",
      args: [sha256Base64url(legacyAccess), storedTokenHash(flow.tokens.access_token)],
    },
    {
      sql: "UPDATE svc_grant_token SET token_hash = ? WHERE token_hash = ?",
      args: [sha256Base64url(legacyAccess), storedTokenHash(flow.tokens.access_token)],
    },
    {
      sql: "UPDATE oauth_refresh_token SET token = ? WHERE token = ?",
      args: [sha256Base64url(legacyRefresh), storedTokenHash(flow.tokens.refresh_token!)],
    },
    {
      sql: "UPDATE svc_grant_token SET token_hash = ? WHERE token_hash = ?",
      args: [sha256Base64url(legacyRefresh), storedTokenHash(flow.tokens.refresh_token!)],
    },
  ], "write");

  assert.equal((await flow.introspect(legacyAccess)).active, true);
  assert.equal((await flow.introspect(legacyRefresh)).active, true);
  assert.equal((await flow.introspect(flow.tokens.access_token)).active, false, "the new-form token is gone");
  const userinfo = await oauth.userInfoRequest(flow.as, flow.c, legacyAccess, INSECURE);
  assert.equal(userinfo.status, 200);
  await userinfo.body?.cancel();

  // A legacy refresh token rotates into tokens of the new form, and its replay still revokes the grant.
  const rotated = await flow.refresh(legacyRefresh);
  assert.match(rotated.refresh_token!, /^[A-Za-z]{40}$/);
  assert.equal((await flow.introspect(rotated.access_token)).active, true);
  await assert.rejects(flow.refresh(legacyRefresh), (error: unknown) => {
    assert.ok(error instanceof oauth.ResponseBodyError);
    assert.equal(error.error, "invalid_grant");
    return true;
  });
  assert.equal((await flow.introspect(rotated.access_token)).active, false, "the replay revoked the grant");
  assert.equal((await flow.introspect(legacyAccess)).active, false);

  // Revocation (RFC 7009) finds a legacy access token too.
  const other = await codeFlow(svc);
  const legacy2 = randomToken();
  await db.execute({
    sql: "UPDATE oauth_access_token SET token = ? WHERE token = ?",
    args: [sha256Base64url(legacy2), storedTokenHash(other.tokens.access_token)],
  });
  assert.equal((await other.introspect(legacy2)).active, true);
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(other.as, other.c, other.auth, legacy2, INSECURE),
  );
  assert.equal((await other.introspect(legacy2)).active, false);
});
