/**
 * Items 4, 5, 6 and 8 of the fail-closed work: forged bearer tokens, the refresh race, grant-scoped
 * revocation, and the RFC deviations of the token, revocation and authorization endpoints. Each test
 * failed against the service before the fix.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { authorizeInBrowser, type AuthService, Browser, startAuthService } from "./harness.ts";
import { basic, discover, postForm, prepareAuthorization, runBasicCodeFlow } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

async function setup() {
  const svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  return { svc, reg, as, auth: basic(reg.client_id, reg.client_secret!) };
}

async function getCode(as: oauth.AuthorizationServer, clientId: string, browser = new Browser(), extra = {}) {
  const prepared = await prepareAuthorization(as, clientId, REDIRECT, extra);
  const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
  return { code: callback.searchParams.get("code")!, verifier: prepared.verifier, browser };
}

function exchange(as: oauth.AuthorizationServer, auth: string, code: string, verifier: string, extra = {}) {
  return postForm(as.token_endpoint!, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    ...extra,
  }, { authorization: auth });
}

function refresh(as: oauth.AuthorizationServer, auth: string, token: string) {
  return postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: token }, {
    authorization: auth,
  });
}

async function tokensOf(response: Response) {
  assert.equal(response.status, 200, await response.clone().text());
  return await response.json() as { access_token: string; refresh_token?: string; id_token?: string };
}

/** JWT-shaped tokens an attacker can make: bad signature, unknown kid, alg none, HS256, a real ID token. */
async function forgedTokens(svc: AuthService, idToken: string): Promise<Record<string, string>> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const claims = { sub: "local-developer", azp: "x", scope: "openid profile", aud: svc.url };
  const foreignKey = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: "unknown-kid" })
    .setIssuer(svc.issuer).setIssuedAt().setExpirationTime("1h").sign(privateKey);
  const jwks = await (await fetch(`${svc.issuer}/jwks`)).json();
  const realKid = jwks.keys[0].kid;
  const badSignature = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: realKid })
    .setIssuer(svc.issuer).setIssuedAt().setExpirationTime("1h").sign(privateKey);
  const b64 = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const none = `${b64({ alg: "none" })}.${b64({ ...claims, iss: svc.issuer })}.`;
  const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: realKid })
    .setIssuer(svc.issuer).sign(new TextEncoder().encode(JSON.stringify(await exportJWK(publicKey))));
  return { foreignKey, badSignature, none, hs256, idToken, garbage: "a.b.c" };
}

Deno.test("item 4: JWT-shaped bearer tokens get 401 at userinfo, inactive at introspection, 200 at revocation", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  const errors: string[] = [];
  const originalError = console.error;
  console.error = (...args: unknown[]) => errors.push(args.map(String).join(" "));
  try {
    for (const [name, token] of Object.entries(await forgedTokens(svc, tokens.id_token!))) {
      for (const method of ["GET", "POST"]) {
        const userinfo = await fetch(as.userinfo_endpoint!, {
          method,
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(userinfo.status, 401, `userinfo ${method} ${name}`);
        assert.match(userinfo.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
        await userinfo.body?.cancel();
      }
      for (const hint of [undefined, "access_token", "refresh_token"]) {
        const fields: Record<string, string> = { token, ...(hint ? { token_type_hint: hint } : {}) };
        const introspection = await postForm(as.introspection_endpoint!, fields, { authorization: auth });
        assert.equal(introspection.status, 200, `introspect ${name} ${hint}`);
        assert.deepEqual(await introspection.json(), { active: false });
        const revocation = await postForm(as.revocation_endpoint!, fields, { authorization: auth });
        assert.equal(revocation.status, 200, `revoke ${name} ${hint}`);
        await revocation.body?.cancel();
      }
    }
  } finally {
    console.error = originalError;
  }
  assert.deepEqual(errors, [], "nothing on stderr");
  const still = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  assert.equal(still.status, 200, "the real access token still works");
  await still.body?.cancel();
});

Deno.test("item 5: 200 parallel refreshes of one token: exactly one 200, the rest 400 invalid_grant", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  const responses = await Promise.all(
    Array.from({ length: 200 }, () => refresh(as, auth, tokens.refresh_token!)),
  );
  const bodies = await Promise.all(responses.map((r) => r.json()));
  const statuses = responses.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${[...new Set(statuses)]}`);
  assert.equal(statuses.filter((s) => s === 400).length, 199);
  for (const [i, body] of bodies.entries()) {
    if (statuses[i] === 400) assert.equal(body.error, "invalid_grant");
  }
});

Deno.test("item 5: 100 parallel redemptions of one code: exactly one 200, never a 5xx", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(as, reg.client_id);
  const responses = await Promise.all(Array.from({ length: 100 }, () => exchange(as, auth, code, verifier)));
  const statuses = responses.map((r) => r.status);
  await Promise.all(responses.map((r) => r.body?.cancel()));
  assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses: ${[...new Set(statuses)]}`);
  assert.ok(statuses.every((s) => s === 200 || s === 400));
});

Deno.test("item 6: a replayed code revokes that grant only: the session and other grants survive", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const browser = new Browser();
  const first = await getCode(as, reg.client_id, browser);
  const firstTokens = await tokensOf(await exchange(as, auth, first.code, first.verifier));
  const second = await getCode(as, reg.client_id, browser);
  const secondTokens = await tokensOf(await exchange(as, auth, second.code, second.verifier));

  const replay = await exchange(as, auth, first.code, first.verifier);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "invalid_grant");

  const dead = await refresh(as, auth, firstTokens.refresh_token!);
  assert.equal(dead.status, 400, "the replayed code's refresh token is revoked");
  await dead.body?.cancel();
  const deadAccess = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${firstTokens.access_token}` },
  });
  assert.equal(deadAccess.status, 401, "the replayed code's access token is revoked");
  await deadAccess.body?.cancel();

  const alive = await refresh(as, auth, secondTokens.refresh_token!);
  assert.equal(
    alive.status,
    200,
    `the later, independent grant still refreshes: ${await alive.clone().text()}`,
  );
  await alive.body?.cancel();
  const session = await browser.request(`${svc.issuer}/get-session`);
  assert.ok((await session.json())?.user, "the browser session is still signed in");
});

Deno.test("item 6: a replayed refresh token revokes its own family, not another device's", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const phone = await getCode(as, reg.client_id, new Browser());
  const phoneTokens = await tokensOf(await exchange(as, auth, phone.code, phone.verifier));
  const laptop = await getCode(as, reg.client_id, new Browser());
  const laptopTokens = await tokensOf(await exchange(as, auth, laptop.code, laptop.verifier));

  const rotated = await tokensOf(await refresh(as, auth, phoneTokens.refresh_token!));
  const replay = await refresh(as, auth, phoneTokens.refresh_token!);
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "invalid_grant");
  const family = await refresh(as, auth, rotated.refresh_token!);
  assert.equal(
    family.status,
    400,
    "the rotated successor of the replayed token is revoked (RFC 9700 §4.14.2)",
  );
  await family.body?.cancel();
  const familyAccess = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${rotated.access_token}` },
  });
  assert.equal(familyAccess.status, 401);
  await familyAccess.body?.cancel();

  const other = await refresh(as, auth, laptopTokens.refresh_token!);
  assert.equal(other.status, 200, `another device's grant is untouched: ${await other.clone().text()}`);
  await other.body?.cancel();
});

Deno.test("item 8: revocation answers 200 for unknown and revoked tokens whatever the hint; unknown hints ignored", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  for (const hint of ["access_token", "refresh_token", "something_else", undefined]) {
    const fields: Record<string, string> = {
      token: "unknown-token",
      ...(hint ? { token_type_hint: hint } : {}),
    };
    const r = await postForm(as.revocation_endpoint!, fields, { authorization: auth });
    assert.equal(r.status, 200, `unknown token, hint ${hint}`);
    await r.body?.cancel();
  }
  // A refresh token revoked with the "wrong" hint is still revoked, and revoking it again is a 200.
  for (let i = 0; i < 2; i++) {
    const r = await postForm(as.revocation_endpoint!, {
      token: tokens.refresh_token!,
      token_type_hint: "access_token",
    }, {
      authorization: auth,
    });
    assert.equal(r.status, 200);
    await r.body?.cancel();
  }
  const refreshed = await refresh(as, auth, tokens.refresh_token!);
  assert.equal(refreshed.status, 400, "the refresh token is revoked");
  await refreshed.body?.cancel();
  const access = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  assert.equal(access.status, 401, "its grant's access token is revoked with it (RFC 7009 §2.1)");
  await access.body?.cancel();
  const missing = await postForm(as.revocation_endpoint!, {}, { authorization: auth });
  assert.equal(missing.status, 400);
  assert.equal((await missing.json()).error, "invalid_request");
});

Deno.test("item 8: token errors are RFC 6749's, and a failed request never consumes the code", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(as, reg.client_id);
  const expectError = async (response: Response, status: number, error: string, label: string) => {
    assert.equal(response.status, status, label);
    assert.equal((await response.json()).error, error, label);
    assert.equal(response.headers.get("cache-control"), "no-store", label);
  };
  await expectError(
    await postForm(as.token_endpoint!, { grant_type: "authorization_code", code, redirect_uri: REDIRECT }, {
      authorization: auth,
    }),
    400,
    "invalid_grant",
    "missing code_verifier",
  );
  await expectError(
    await exchange(as, auth, code, verifier, { redirect_uri: "http://127.0.0.1:9/other" }),
    400,
    "invalid_grant",
    "mismatched redirect_uri",
  );
  await expectError(await exchange(as, auth, code, "x".repeat(43)), 400, "invalid_grant", "wrong verifier");
  const other = await svc.register({ redirectUris: [REDIRECT] });
  await expectError(
    await exchange(as, basic(other.client_id, other.client_secret!), code, verifier),
    400,
    "invalid_grant",
    "another client",
  );
  await expectError(
    await exchange(as, basic(reg.client_id, "wrong"), code, verifier),
    401,
    "invalid_client",
    "wrong secret",
  );
  await expectError(
    await postForm(as.token_endpoint!, { grant_type: "password", username: "u", password: "p" }, {
      authorization: auth,
    }),
    400,
    "unsupported_grant_type",
    "unknown grant_type",
  );
  await expectError(
    await postForm(as.token_endpoint!, { code }, { authorization: auth }),
    400,
    "invalid_request",
    "no grant_type",
  );
  // After all of that the code still works, once, with lower-case "basic".
  const lower = `basic ${auth.slice("Basic ".length)}`;
  const ok = await exchange(as, lower, code, verifier);
  assert.equal(ok.status, 200, await ok.clone().text());
  await ok.body?.cancel();
});

Deno.test("item 8: invalid_client says the same for an unknown client and a wrong secret", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const unknown = await postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: "x" }, {
    authorization: basic("no-such-client", "secret"),
  });
  const wrong = await postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: "x" }, {
    authorization: basic(reg.client_id, "wrong-secret"),
  });
  assert.deepEqual([unknown.status, wrong.status], [401, 401]);
  assert.deepEqual(await unknown.json(), await wrong.json());
});

Deno.test("item 8: loopback redirect URIs match any port for public clients only (RFC 8252 §7.3)", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const publicClient = await svc.register({ redirectUris: [REDIRECT], public: true });
  const otherPort = "http://127.0.0.1:8123/cb";
  const browser = new Browser();
  await getCode(as, reg.client_id, browser); // signed in and consented
  const confidential = await prepareAuthorization(as, reg.client_id, otherPort, { prompt: null });
  const refused = await browser.request(confidential.url.href);
  const location = new URL(refused.headers.get("location")!, svc.url);
  assert.equal(location.origin, svc.url, "the confidential client's other port gets the OP's error page");
  assert.ok(!location.searchParams.has("code"));
  const publicAuth = await prepareAuthorization(as, publicClient.client_id, otherPort);
  const { callback } = await authorizeInBrowser(browser, publicAuth.url.href, otherPort);
  assert.ok(callback.searchParams.get("code"), "a public native client may use any loopback port");
});

Deno.test("item 8: offline_access is honoured once the user approved it, and dropped when nobody did", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const browser = new Browser();
  const noScope = await getCode(as, reg.client_id, browser, { scope: null });
  const noScopeTokens = await tokensOf(await exchange(as, auth, noScope.code, noScope.verifier));
  assert.equal(noScopeTokens.refresh_token, undefined, "an omitted scope grants no offline access");
  // The stored consent (openid profile email) does not cover offline_access: without a page to ask on, it is
  // dropped.
  const silent = await getCode(as, reg.client_id, browser, { prompt: "none" });
  const silentTokens = await tokensOf(await exchange(as, auth, silent.code, silent.verifier));
  assert.equal(silentTokens.refresh_token, undefined, "prompt=none without a covering consent drops it");
  // Asked the common way (no prompt): the consent page lists it, the user approves, a refresh token follows.
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: null });
  const { callback, pages } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
  assert.match(pages["/consent"] ?? "", /refresh tokens/, "the consent page asks for offline access");
  const approved = await tokensOf(
    await exchange(as, auth, callback.searchParams.get("code")!, prepared.verifier),
  );
  assert.ok(approved.refresh_token, "approved on the consent page: a refresh token");
  // Now the stored consent covers it, also for prompt=none.
  const covered = await getCode(as, reg.client_id, browser, { prompt: "none" });
  assert.ok((await tokensOf(await exchange(as, auth, covered.code, covered.verifier))).refresh_token);
  // A user who denies gets no code at all.
  const other = await svc.register({ redirectUris: [REDIRECT] });
  const denied = await prepareAuthorization(as, other.client_id, REDIRECT, { prompt: null });
  const refused = await authorizeInBrowser(browser, denied.url.href, REDIRECT, "deny");
  assert.equal(refused.callback.searchParams.get("code"), null);
});

Deno.test("item 8: the redirect carrying the code is no-store; JWKS is cacheable", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const browser = new Browser();
  await getCode(as, reg.client_id, browser);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: null });
  const response = await browser.request(prepared.url.href);
  await response.body?.cancel();
  assert.ok(new URL(response.headers.get("location")!).searchParams.get("code"));
  assert.equal(response.headers.get("cache-control"), "no-store");
  const jwks = await fetch(as.jwks_uri!);
  await jwks.body?.cancel();
  assert.match(jwks.headers.get("cache-control") ?? "", /max-age=\d+/);
});
