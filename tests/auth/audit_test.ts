/**
 * The audit log records what matters at the token endpoint and at sign-out (issue 25): a replayed
 * authorization code and a replayed refresh token (each revokes its grant), consents and the logout, with the
 * user and the client and never a token.
 */
import assert from "node:assert/strict";
import { listAudit } from "../../auth/audit/mod.ts";
import { Browser, startAuthService } from "./harness.ts";
import { basic, discover, postForm, runBasicCodeFlow } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

Deno.test("code and refresh replays, consents and sign-out are audited without tokens", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const flow = await runBasicCodeFlow(as, reg, REDIRECT, browser);
  const auth = { authorization: basic(reg.client_id, reg.client_secret!) };
  const code = flow.params.get("code")!;
  const replayedCode = await postForm(as.token_endpoint!, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: flow.prepared.verifier,
  }, auth);
  assert.equal(replayedCode.status, 400);
  await replayedCode.body?.cancel();

  const second = await runBasicCodeFlow(as, reg, REDIRECT, browser);
  const rotated = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: second.tokens.refresh_token!,
  }, auth);
  assert.equal(rotated.status, 200);
  const rotatedBody = await rotated.json();
  const replayedRefresh = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: second.tokens.refresh_token!,
  }, auth);
  assert.equal(replayedRefresh.status, 400);
  await replayedRefresh.body?.cancel();

  const signOut = await browser.request(`${svc.url}/api/auth/sign-out`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: svc.url },
    body: "{}",
  });
  assert.equal(signOut.status, 200);
  await signOut.body?.cancel();

  const rows = await listAudit(svc.database.client);
  const seen = rows.map((r) => `${r.action}:${r.outcome}:${r.reason ?? ""}:${r.client_id ?? ""}`).reverse();
  assert.deepEqual(seen.filter((s) => s.startsWith("token_replay")), [
    `token_replay:refused:code_replay:${reg.client_id}`,
    `token_replay:refused:refresh_replay:${reg.client_id}`,
  ]);
  assert.equal(seen.filter((s) => s.startsWith("consent:success:allow openid")).length, 2);
  assert.ok(seen.includes("logout:success::"), seen.join(", "));
  assert.equal(rows.find((r) => r.action === "logout")?.user_id, "local-developer");
  assert.equal(rows.find((r) => r.reason === "refresh_replay")?.user_id, "local-developer");
  const text = JSON.stringify(rows);
  for (
    const secret of [
      code,
      reg.client_secret!,
      flow.tokens.access_token,
      second.tokens.refresh_token!,
      rotatedBody.refresh_token,
    ]
  ) assert.ok(!text.includes(secret));
});
