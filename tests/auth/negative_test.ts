/**
 * Conformance: the negative cases of the OIDF basic/config plans (with PKCE added) and one test per shim of
 * Better Auth 1.6.23's RFC deviations (auth/endpoints/mod.ts).
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { authorizeInBrowser, type AuthService, Browser, startAuthService } from "./harness.ts";
import { basic, discover, INSECURE, postForm, prepareAuthorization } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

/** A service, a confidential client and its metadata. */
async function setup() {
  const svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  return { svc, reg, as, auth: basic(reg.client_id, reg.client_secret!) };
}

/** Runs authorize in a browser and returns the code with its verifier. */
async function getCode(
  svc: AuthService,
  as: oauth.AuthorizationServer,
  clientId: string,
  browser = new Browser(),
) {
  const prepared = await prepareAuthorization(as, clientId, REDIRECT);
  const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
  assert.equal(callback.searchParams.get("iss"), svc.issuer);
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

async function errorOf(
  response: Response,
): Promise<{ status: number; error: string; description?: string; wwwAuthenticate: string | null }> {
  const body = await response.json();
  return {
    status: response.status,
    error: body.error,
    description: body.error_description,
    wwwAuthenticate: response.headers.get("www-authenticate"),
  };
}

/** Follows authorize without a session, expecting an immediate redirect (error cases). */
async function authorizeRedirect(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  assert.ok(response.status >= 300 && response.status < 400, `redirect expected, got ${response.status}`);
  return new URL(response.headers.get("location")!, url);
}

Deno.test("oidcc-ensure-registered-redirect-uri: a mismatched redirect_uri never redirects to it", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, "http://127.0.0.1:9/evil");
  const target = await authorizeRedirect(prepared.url);
  assert.equal(target.origin, svc.url, "error shown by the OP itself");
  assert.match(target.search, /error=/);
});

Deno.test("authorize without a PKCE challenge is refused with invalid_request, state and iss", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    code_challenge: null,
    code_challenge_method: null,
  });
  const target = await authorizeRedirect(prepared.url);
  assert.equal(target.origin + target.pathname, REDIRECT);
  assert.equal(target.searchParams.get("error"), "invalid_request");
  assert.equal(target.searchParams.get("state"), prepared.state);
  assert.equal(target.searchParams.get("iss"), svc.issuer);
});

Deno.test("authorize with the plain PKCE method is refused", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    code_challenge_method: "plain",
  });
  const target = await authorizeRedirect(prepared.url);
  assert.equal(target.searchParams.get("error"), "invalid_request");
});

Deno.test("a wrong code_verifier is refused with 400 invalid_grant", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code } = await getCode(svc, as, reg.client_id);
  const result = await errorOf(await exchange(as, auth, code, oauth.generateRandomCodeVerifier()));
  assert.deepEqual([result.status, result.error], [400, "invalid_grant"]);
});

Deno.test("a token request without code_verifier is refused", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code } = await getCode(svc, as, reg.client_id);
  const response = await postForm(as.token_endpoint!, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
  }, {
    authorization: auth,
  });
  assert.equal(response.status, 400);
  assert.ok(["invalid_request", "invalid_grant"].includes((await response.json()).error));
});

Deno.test("authorize with a malformed S256 code_challenge is refused with invalid_request, state and iss", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  for (const challenge of ["abc", "a".repeat(44), `${"a".repeat(42)}=`, `${"a".repeat(42)}+`]) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { code_challenge: challenge });
    const target = await authorizeRedirect(prepared.url);
    assert.equal(target.origin + target.pathname, REDIRECT, challenge);
    assert.equal(target.searchParams.get("error"), "invalid_request", challenge);
    assert.equal(target.searchParams.get("state"), prepared.state);
    assert.equal(target.searchParams.get("iss"), svc.issuer);
  }
});

Deno.test("a code_verifier outside 43-128 unreserved characters is refused with 400 invalid_grant even when its hash matches", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const browser = new Browser();
  for (const verifier of ["short", "a".repeat(129), `${"a".repeat(42)} `, `${"a".repeat(42)}+`]) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    });
    const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
    const response = await exchange(as, auth, callback.searchParams.get("code")!, verifier);
    assert.match(response.headers.get("cache-control") ?? "", /no-store/);
    const result = await errorOf(response);
    assert.deepEqual([result.status, result.error], [400, "invalid_grant"], JSON.stringify(verifier));
  }
});

Deno.test("oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported: request_uri is refused", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    request_uri: "https://rp.example.test/request.jwt",
  });
  const target = await authorizeRedirect(prepared.url);
  assert.equal(target.origin + target.pathname, REDIRECT);
  assert.equal(target.searchParams.get("error"), "request_uri_not_supported");
  assert.equal(target.searchParams.get("state"), prepared.state);
  assert.equal(target.searchParams.get("iss"), svc.issuer);
});

Deno.test("oidcc-codereuse: a reused code gets 400 invalid_grant and the tokens issued from it are revoked", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(svc, as, reg.client_id);
  const first = await exchange(as, auth, code, verifier);
  assert.equal(first.status, 200);
  const tokens = await first.json();
  const second = await errorOf(await exchange(as, auth, code, verifier));
  assert.deepEqual([second.status, second.error], [400, "invalid_grant"]);
  const userinfo = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  assert.equal(userinfo.status, 401, "the access token of the first redemption is revoked");
  await userinfo.body?.cancel();
  const refresh = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token,
  }, {
    authorization: auth,
  });
  assert.equal(refresh.status, 400, "the refresh token of the first redemption is revoked");
  await refresh.body?.cancel();
});

Deno.test("a wrong client secret gets 401 invalid_client with WWW-Authenticate, and the code survives", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(svc, as, reg.client_id);
  const wrong = await errorOf(await exchange(as, basic(reg.client_id, "not-the-secret"), code, verifier));
  assert.deepEqual([wrong.status, wrong.error], [401, "invalid_client"]);
  assert.match(wrong.wwwAuthenticate ?? "", /^Basic/);
  const right = await exchange(as, auth, code, verifier);
  assert.equal(right.status, 200, "client authentication happens before the code is consumed");
  await right.body?.cancel();
});

Deno.test("an unknown client is refused at authorize (OP error page) and at the token endpoint (401)", async () => {
  const { svc, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, "no-such-client", REDIRECT);
  const target = await authorizeRedirect(prepared.url);
  assert.equal(target.origin, svc.url);
  const response = await errorOf(await exchange(as, basic("no-such-client", "x"), "abc", "x".repeat(43)));
  assert.deepEqual([response.status, response.error], [401, "invalid_client"]);
});

Deno.test("oidcc-response-type-missing and unsupported response types are refused", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  for (const responseType of ["token", null]) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { response_type: responseType });
    const target = await authorizeRedirect(prepared.url);
    const error = target.searchParams.get("error");
    assert.ok(
      ["unsupported_response_type", "invalid_request"].includes(error ?? ""),
      `response_type=${responseType}: ${target}`,
    );
    assert.ok(!target.searchParams.has("code"));
  }
});

Deno.test("an unknown scope is refused with invalid_scope", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { scope: "openid admin" });
  const target = await authorizeRedirect(prepared.url);
  assert.equal(target.searchParams.get("error"), "invalid_scope");
  assert.equal(target.searchParams.get("iss"), svc.issuer);
});

Deno.test("an expired code is refused with 400 invalid_grant", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(svc, as, reg.client_id);
  await svc.database.client.execute({
    sql: "UPDATE verification SET expires_at = ? WHERE identifier NOT LIKE 'consumed:%'",
    args: [Date.now() - 1000],
  });
  const result = await errorOf(await exchange(as, auth, code, verifier));
  assert.deepEqual([result.status, result.error], [400, "invalid_grant"]);
});

Deno.test("the nonce round-trips into the ID token and a wrong expectation is detected", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT);
  const { callback } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  const c = { client_id: reg.client_id };
  const params = oauth.validateAuthResponse(as, c, callback, prepared.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    c,
    oauth.ClientSecretBasic(reg.client_secret!),
    params,
    REDIRECT,
    prepared.verifier,
    INSECURE,
  );
  await assert.rejects(
    oauth.processAuthorizationCodeResponse(as, c, response.clone(), { expectedNonce: "other" }),
    /nonce/i,
  );
  const ok = await oauth.processAuthorizationCodeResponse(as, c, response, { expectedNonce: prepared.nonce });
  assert.equal(oauth.getValidatedIdTokenClaims(ok)!.nonce, prepared.nonce);
  void auth;
});

Deno.test("the authorization response carries iss, and a mismatched iss is rejected by the RP", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT);
  const { callback } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  assert.equal(callback.searchParams.get("iss"), svc.issuer);
  const forged = new URL(callback);
  forged.searchParams.set("iss", "http://127.0.0.1:1/api/auth");
  assert.throws(() => oauth.validateAuthResponse(as, { client_id: reg.client_id }, forged, prepared.state));
});

Deno.test("token responses carry Cache-Control no-store and Pragma no-cache", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(svc, as, reg.client_id);
  const response = await exchange(as, auth, code, verifier);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.equal(response.headers.get("pragma"), "no-cache");
  await response.body?.cancel();
});

Deno.test("a refresh token presented by another client gets 400 invalid_grant", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const other = await svc.register({ redirectUris: [REDIRECT] });
  const { code, verifier } = await getCode(svc, as, reg.client_id);
  const tokens = await (await exchange(as, auth, code, verifier)).json();
  const result = await errorOf(
    await postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: tokens.refresh_token }, {
      authorization: basic(other.client_id, other.client_secret!),
    }),
  );
  assert.deepEqual([result.status, result.error], [400, "invalid_grant"]);
});

Deno.test("a refresh with a wrong secret, an unknown client or a disabled client gets 401 invalid_client and leaves the token usable", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(svc, as, reg.client_id);
  const tokens = await (await exchange(as, auth, code, verifier)).json();
  const refresh = (authorization: string) =>
    postForm(as.token_endpoint!, { grant_type: "refresh_token", refresh_token: tokens.refresh_token }, {
      authorization,
    });
  const descriptions = new Set<string>();
  for (const authorization of [basic(reg.client_id, "not-the-secret"), basic("no-such-client", "x")]) {
    const refused = await errorOf(await refresh(authorization));
    assert.deepEqual([refused.status, refused.error], [401, "invalid_client"]);
    assert.match(refused.wwwAuthenticate ?? "", /^Basic/);
    descriptions.add(refused.description ?? "");
  }
  assert.equal(descriptions.size, 1, "one description: an unknown client id looks like a wrong secret");
  await svc.database.client.execute({
    sql: "UPDATE oauth_client SET disabled = 1 WHERE client_id = ?",
    args: [reg.client_id],
  });
  const disabled = await errorOf(await refresh(auth));
  assert.deepEqual([disabled.status, disabled.error], [401, "invalid_client"]);
  await svc.database.client.execute({
    sql: "UPDATE oauth_client SET disabled = 0 WHERE client_id = ?",
    args: [reg.client_id],
  });
  const rotated = await refresh(auth);
  assert.equal(rotated.status, 200, "the refused attempts consumed nothing");
  assert.ok((await rotated.json()).refresh_token);
});

Deno.test("userinfo with a bad token answers 401 with WWW-Authenticate Bearer invalid_token", async () => {
  const { svc, as } = await setup();
  await using _ = svc;
  const bad = await fetch(as.userinfo_endpoint!, { headers: { authorization: "Bearer not-a-token" } });
  assert.equal(bad.status, 401);
  assert.match(bad.headers.get("www-authenticate") ?? "", /^Bearer .*error="invalid_token"/);
  await bad.body?.cancel();
  const missing = await fetch(as.userinfo_endpoint!);
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
  await missing.body?.cancel();
});

Deno.test("introspection of an unknown token answers 200 active false; revocation of one answers 200", async () => {
  const { svc, as, auth } = await setup();
  await using _ = svc;
  const introspect = await postForm(as.introspection_endpoint!, { token: "unknown-token" }, {
    authorization: auth,
  });
  assert.equal(introspect.status, 200);
  assert.deepEqual(await introspect.json(), { active: false });
  const revoke = await postForm(as.revocation_endpoint!, { token: "unknown-token" }, { authorization: auth });
  assert.equal(revoke.status, 200);
  await revoke.body?.cancel();
  const anonymous = await postForm(as.introspection_endpoint!, { token: "unknown-token" });
  assert.equal(anonymous.status, 401, "introspection still requires client authentication");
  await anonymous.body?.cancel();
});

Deno.test("oidcc-ensure-post-request-succeeds: the authorization request may be a form POST", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: null });
  const browser = new Browser();
  await authorizeInBrowser(
    browser,
    (await prepareAuthorization(as, reg.client_id, REDIRECT)).url.href,
    REDIRECT,
  );
  const response = await browser.request(as.authorization_endpoint!, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: svc.url },
    body: prepared.url.searchParams.toString(),
  });
  assert.ok(response.status >= 300 && response.status < 400, `got ${response.status}`);
  const target = new URL(response.headers.get("location")!, svc.url);
  assert.equal(
    target.origin + target.pathname,
    REDIRECT,
    "consent was given already, so the code comes back",
  );
  assert.ok(target.searchParams.get("code"));
  assert.equal(target.searchParams.get("state"), prepared.state);
});

Deno.test("oidcc-max-age-1: an older session than max_age forces a new login and a later auth_time", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const browser = new Browser();
  const first = await getCode(svc, as, reg.client_id, browser);
  const firstTokens = await (await exchange(as, auth, first.code, first.verifier)).json();
  await new Promise((r) => setTimeout(r, 1100));
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { max_age: "1" });
  const response = await browser.request(prepared.url.href);
  await response.body?.cancel();
  const target = new URL(response.headers.get("location")!, svc.url);
  assert.equal(target.pathname, "/sign-in", "the user must sign in again");
  const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
  const tokens = await (await exchange(as, auth, callback.searchParams.get("code")!, prepared.verifier))
    .json();
  const authTime = (jwt: string) =>
    JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).auth_time;
  assert.ok(authTime(tokens.id_token) > authTime(firstTokens.id_token), "auth_time moved forward");
  const recent = await prepareAuthorization(as, reg.client_id, REDIRECT, { max_age: "10000", prompt: null });
  const silent = await browser.request(recent.url.href);
  await silent.body?.cancel();
  assert.ok(silent.headers.get("location")!.startsWith(REDIRECT), "oidcc-max-age-10000 needs no new login");
});

Deno.test("the resource parameter is refused at the token endpoint (GHSA-p2fr-6hmx-4528)", async () => {
  const { svc, reg, as, auth } = await setup();
  await using _ = svc;
  const { code, verifier } = await getCode(svc, as, reg.client_id);
  const result = await errorOf(
    await exchange(as, auth, code, verifier, { resource: "https://api.example.test" }),
  );
  assert.deepEqual([result.status, result.error], [400, "invalid_target"]);
});

Deno.test("request objects are refused with request_not_supported", async () => {
  const { svc, reg, as } = await setup();
  await using _ = svc;
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    request: "eyJhbGciOiJub25lIn0.e30.",
  });
  const target = await authorizeRedirect(prepared.url);
  assert.equal(target.searchParams.get("error"), "request_not_supported");
});

Deno.test("dynamic client registration is disabled and not advertised", async () => {
  const { svc, as } = await setup();
  await using _ = svc;
  assert.equal(as.registration_endpoint, undefined);
  const response = await fetch(`${svc.issuer}/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
  });
  assert.ok([401, 403, 404].includes(response.status), `got ${response.status}`);
  await response.body?.cancel();
  const count = await svc.database.client.execute("SELECT count(*) AS n FROM oauth_client");
  assert.equal(Number(count.rows[0].n), 1);
});
