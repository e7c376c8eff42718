/**
 * The refresh reuse window (`AUTH_REFRESH_REUSE_SECONDS`, issue 25): within it, the just-rotated refresh token
 * presented again gets the same token response (nothing revoked); outside it, or after the grant was
 * revoked, the replay is refused and the grant revoked as with strict rotation. The kept response is never
 * readable from the database. Races: 200 parallel refreshes, exactly one rotation.
 */
import assert from "node:assert/strict";
import { type AuthService, startAuthService } from "./harness.ts";
import { basic, discover, postForm, runBasicCodeFlow } from "./rp.ts";
import { readAuthConfig } from "../../auth/config.ts";
import { revokeUserSessions } from "../../auth/operations/sessions.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

async function setup(window: string) {
  const svc = await startAuthService({ AUTH_REFRESH_REUSE_SECONDS: window });
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  const auth = basic(reg.client_id, reg.client_secret!);
  const refresh = (token: string) =>
    postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: token }, {
      authorization: auth,
    });
  return { svc, reg, as, tokens, refresh };
}

async function liveRefreshTokens(svc: AuthService): Promise<number> {
  const result = await svc.database.client.execute(
    "SELECT count(*) AS n FROM oauth_refresh_token WHERE revoked IS NULL",
  );
  return Number(result.rows[0].n);
}

Deno.test("AUTH_REFRESH_REUSE_SECONDS is validated at start: 0-60 whole seconds", () => {
  const base = { AUTH_LOCAL_MODE: "true", AUTH_BASE_URL: "http://localhost:37960" };
  assert.equal(readAuthConfig(base).AUTH_REFRESH_REUSE_SECONDS ?? 0, 0, "default: strict rotation");
  assert.equal(readAuthConfig({ ...base, AUTH_REFRESH_REUSE_SECONDS: "60" }).AUTH_REFRESH_REUSE_SECONDS, 60);
  assert.throws(
    () => readAuthConfig({ ...base, AUTH_REFRESH_REUSE_SECONDS: "61" }),
    /AUTH_REFRESH_REUSE_SECONDS: must be at most 60/,
  );
  for (const bad of ["-1", "1.5", "ten"]) {
    assert.throws(
      () => readAuthConfig({ ...base, AUTH_REFRESH_REUSE_SECONDS: bad }),
      /AUTH_REFRESH_REUSE_SECONDS: must be a whole number of seconds from 0 to 60/,
    );
  }
});

Deno.test("within the window the rotated token gets the same answer, and the chain goes on", async () => {
  const { svc, as, tokens, refresh } = await setup("30");
  await using _ = svc;
  const first = await refresh(tokens.refresh_token!);
  assert.equal(first.status, 200);
  const answer = await first.json();
  const again = await refresh(tokens.refresh_token!);
  assert.equal(again.status, 200, "a lost response: the same token again");
  assert.equal(again.headers.get("cache-control"), "no-store");
  assert.deepEqual(await again.json(), answer, "the very same token response");
  const userinfo = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${answer.access_token}` },
  });
  assert.equal(userinfo.status, 200, "the shared access token works");
  await userinfo.body?.cancel();
  const next = await refresh(answer.refresh_token);
  assert.equal(next.status, 200, "the successor rotates normally");
  const nextAnswer = await next.json();
  assert.notEqual(nextAnswer.refresh_token, answer.refresh_token);
  assert.equal(await liveRefreshTokens(svc), 1, "one live refresh token: nothing forked");
  // The kept answer is sealed: no token of it appears in the database in the clear.
  const kept = await svc.database.client.execute("SELECT * FROM svc_refresh_reuse");
  const dump = JSON.stringify(kept.rows);
  for (const secret of [answer.access_token, answer.refresh_token, answer.id_token, tokens.refresh_token!]) {
    assert.ok(!dump.includes(secret), "no token in the clear");
  }
});

Deno.test("outside the window a replay revokes the grant as with strict rotation", async () => {
  const { svc, tokens, refresh } = await setup("1");
  await using _ = svc;
  const answer = await (await refresh(tokens.refresh_token!)).json();
  await new Promise((r) => setTimeout(r, 1100));
  const replay = await refresh(tokens.refresh_token!);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "invalid_grant");
  const successor = await refresh(answer.refresh_token);
  assert.equal(successor.status, 400, "the grant is revoked: its successor is dead too");
  await successor.body?.cancel();
});

Deno.test("with the default (0) a second presentation revokes the grant at once", async () => {
  const { svc, tokens, refresh } = await setup("0");
  await using _ = svc;
  const answer = await (await refresh(tokens.refresh_token!)).json();
  const replay = await refresh(tokens.refresh_token!);
  assert.equal(replay.status, 400);
  await replay.body?.cancel();
  const successor = await refresh(answer.refresh_token);
  assert.equal(successor.status, 400);
  await successor.body?.cancel();
});

Deno.test("a revoked grant gets no reused answer within the window", async () => {
  const { svc, tokens, refresh } = await setup("30");
  await using _ = svc;
  await (await refresh(tokens.refresh_token!)).body?.cancel();
  await revokeUserSessions(svc.database.client, "local-developer");
  const again = await refresh(tokens.refresh_token!);
  assert.equal(again.status, 400);
  assert.equal((await again.json()).error, "invalid_grant");
});

Deno.test("200 parallel refreshes within the window: one rotation, every other answer the same or invalid_grant", async () => {
  const { svc, tokens, refresh } = await setup("30");
  await using _ = svc;
  const responses = await Promise.all(Array.from({ length: 200 }, () => refresh(tokens.refresh_token!)));
  const bodies = await Promise.all(responses.map((r) => r.json()));
  const ok = bodies.filter((_, i) => responses[i].status === 200);
  assert.ok(ok.length >= 1);
  assert.equal(
    new Set(ok.map((b) => b.refresh_token)).size,
    1,
    "one rotation: every 200 carries the same token",
  );
  for (const [i, body] of bodies.entries()) {
    if (responses[i].status !== 200) {
      assert.equal(responses[i].status, 400);
      assert.equal(body.error, "invalid_grant");
    }
  }
  assert.equal(await liveRefreshTokens(svc), 1, "exactly one successor exists");
  const next = await refresh(ok[0].refresh_token);
  assert.equal(next.status, 200, "the grant survived the race");
  await next.body?.cancel();
});
