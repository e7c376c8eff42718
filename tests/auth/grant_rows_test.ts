/**
 * A rotation records one grant row (its refresh token); its access token is reached through `refresh_id`.
 * These tests check that every path that finds a grant's tokens still reaches a rotation's access token:
 * revocation (RFC 7009), the shared revocation's grant marking (`revokeTokensWhere`) and the back-channel
 * logout fan-out of a grant (`queueGrantLogouts`).
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { startAuthService } from "./harness.ts";
import { discover, INSECURE, runCodeFlow } from "./rp.ts";
import { storedTokenHash } from "../../auth/grants/token_storage.ts";
import { revokeTokensWhere } from "../../auth/operations/clients.ts";
import { queueGrantLogouts } from "../../auth/logout/fan_out.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

/** A code flow and two rotations: the grant id and the three access tokens (code's, then each rotation's). */
async function chainOfTwoRotations(svc: Awaited<ReturnType<typeof startAuthService>>) {
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const c = { client_id: reg.client_id };
  const auth = oauth.ClientSecretBasic(reg.client_secret!);
  const { tokens } = await runCodeFlow(as, c, auth, REDIRECT);
  const second = await oauth.processRefreshTokenResponse(
    as,
    c,
    await oauth.refreshTokenGrantRequest(as, c, auth, tokens.refresh_token!, INSECURE),
  );
  const third = await oauth.processRefreshTokenResponse(
    as,
    c,
    await oauth.refreshTokenGrantRequest(as, c, auth, second.refresh_token!, INSECURE),
  );
  const grant = await svc.database.client.execute({
    sql: "SELECT grant_id FROM svc_grant_token WHERE token_hash = ?",
    args: [storedTokenHash(third.refresh_token!)],
  });
  const grantId = String(grant.rows[0].grant_id);
  return {
    reg,
    as,
    c,
    auth,
    grantId,
    access: [tokens.access_token, second.access_token, third.access_token],
    refresh: third.refresh_token!,
  };
}

async function active(chain: Awaited<ReturnType<typeof chainOfTwoRotations>>, token: string) {
  const { as, c, auth } = chain;
  const answer = await oauth.processIntrospectionResponse(
    as,
    c,
    await oauth.introspectionRequest(as, c, auth, token, INSECURE),
  );
  return answer.active;
}

Deno.test("a rotation records only its refresh token under the grant, and revoking the newest refresh token ends every access token of the chain", async () => {
  await using svc = await startAuthService();
  const chain = await chainOfTwoRotations(svc);
  const rows = await svc.database.client.execute({
    sql: "SELECT kind, count(*) AS n FROM svc_grant_token WHERE grant_id = ? GROUP BY kind ORDER BY kind",
    args: [chain.grantId],
  });
  assert.deepEqual(
    rows.rows.map((r) => [String(r.kind), Number(r.n)]),
    [["access", 1], ["refresh", 3]],
    "the code exchange records both tokens, each rotation its refresh token only",
  );
  for (const token of chain.access) assert.equal(await active(chain, token), true);
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(chain.as, chain.c, chain.auth, chain.refresh, INSECURE),
  );
  for (const token of chain.access) {
    assert.equal(await active(chain, token), false, "the grant's access tokens end");
  }
});

Deno.test("the shared revocation marks the grant revoked when only a rotation's access token matches", async () => {
  await using svc = await startAuthService();
  const chain = await chainOfTwoRotations(svc);
  const statements = revokeTokensWhere("token = ?", [storedTokenHash(chain.access[2])]);
  await svc.database.client.batch(statements, "write");
  const revoked = await svc.database.client.execute({
    sql: "SELECT 1 FROM svc_grant_revoked WHERE grant_id = ?",
    args: [chain.grantId],
  });
  assert.equal(revoked.rows.length, 1, "the grant of the access token is found through its refresh token");
  assert.equal(await active(chain, chain.access[2]), false);
});

Deno.test("a grant's back-channel logout is queued for a live access token of a rotation, its refresh tokens all used", async () => {
  await using svc = await startAuthService();
  const chain = await chainOfTwoRotations(svc);
  const db = svc.database.client;
  await db.batch([
    {
      sql: "INSERT INTO svc_backchannel_client (client_id, logout_uri, session_required, updated_at) " +
        "VALUES (?, 'http://127.0.0.1:9/logout', 0, ?)",
      args: [chain.reg.client_id, Date.now()],
    },
    // Only the newest rotation's access token is live: the refresh tokens count as used, the older
    // access tokens are gone.
    {
      sql: "UPDATE oauth_refresh_token SET revoked = ? WHERE client_id = ?",
      args: [Date.now(), chain.reg.client_id],
    },
    {
      sql: "DELETE FROM oauth_access_token WHERE token IN (?, ?)",
      args: [storedTokenHash(chain.access[0]), storedTokenHash(chain.access[1])],
    },
  ], "write");
  await db.execute(queueGrantLogouts(chain.grantId, "grant_revoked"));
  const queued = await db.execute({
    sql: "SELECT client_id, reason FROM svc_backchannel_outbox WHERE client_id = ?",
    args: [chain.reg.client_id],
  });
  assert.deepEqual(queued.rows.map((r) => [String(r.client_id), String(r.reason)]), [[
    chain.reg.client_id,
    "grant_revoked",
  ]]);
});
