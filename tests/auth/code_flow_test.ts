/**
 * Conformance: the positive flows (OIDF oidcc-server, -client-secret-post, userinfo, refresh, PKCE) with
 * oauth4webapi and openid-client against the real service over loopback HTTP.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import * as client from "openid-client";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { authorizeInBrowser, Browser, startAuthService } from "./harness.ts";
import {
  basic,
  discover,
  INSECURE,
  postForm,
  prepareAuthorization,
  runBasicCodeFlow,
  runCodeFlow,
} from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

Deno.test("oidcc-server: a confidential client completes code + PKCE and the RS256 ID token verifies against the JWKS", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const { tokens, claims, params } = await runBasicCodeFlow(as, reg, REDIRECT);
  assert.equal(params.get("iss"), svc.issuer, "iss is in the authorization response (RFC 9207)");
  assert.equal(claims.sub, "local-developer");
  assert.equal(claims.iss, svc.issuer);
  assert.equal(claims.aud, reg.client_id);
  assert.equal(typeof claims.auth_time, "number");
  const header = decodeProtectedHeader(tokens.id_token!);
  assert.equal(header.alg, "RS256");
  const jwks = await (await fetch(as.jwks_uri!)).json() as {
    keys: { kid: string; alg: string; kty: string }[];
  };
  assert.ok(jwks.keys.some((k) => k.kid === header.kid && k.alg === "RS256" && k.kty === "RSA"));
  const verified = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(as.jwks_uri!)), {
    issuer: svc.issuer,
    audience: reg.client_id,
    algorithms: ["RS256"],
  });
  assert.equal(verified.payload.sub, "local-developer");
  assert.equal(tokens.token_type.toLowerCase(), "bearer");
  assert.ok(tokens.refresh_token, "offline_access yields a refresh token");
});

Deno.test("oidcc-server-client-secret-post and userinfo: a client_secret_post client reads the userinfo by scope", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const c = { client_id: reg.client_id };
  const { tokens, claims } = await runCodeFlow(as, c, oauth.ClientSecretPost(reg.client_secret!), REDIRECT);
  const response = await oauth.userInfoRequest(as, c, tokens.access_token, INSECURE);
  assert.match(response.headers.get("cache-control") ?? "", /no-store/);
  const info = await oauth.processUserInfoResponse(as, c, claims.sub, response);
  assert.equal(info.sub, "local-developer");
  assert.equal(info.email, "developer@localhost.test");
  assert.equal(info.name, "Local Developer");
  const viaPost = await fetch(as.userinfo_endpoint!, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  assert.equal(viaPost.status, 200, "oidcc-userinfo-post-header");
});

Deno.test("a public client completes the flow with PKCE alone", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT], public: true });
  assert.equal(reg.client_secret, undefined);
  const as = await discover(svc.issuer);
  const { claims, tokens } = await runCodeFlow(as, { client_id: reg.client_id }, oauth.None(), REDIRECT);
  assert.equal(claims.sub, "local-developer");
  assert.ok(as.token_endpoint_auth_methods_supported?.includes("none"), "discovery lists none");
  const revoked = await postForm(as.revocation_endpoint!, {
    token: tokens.refresh_token!,
    client_id: reg.client_id,
  });
  assert.equal(revoked.status, 200, "a public client revokes with its client_id alone (none)");
  await revoked.body?.cancel();
  const refresh = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token!,
    client_id: reg.client_id,
  });
  assert.equal(refresh.status, 400, "the revoked refresh token is dead");
  await refresh.body?.cancel();
});

Deno.test("openid-client v6 completes discovery, code + PKCE, userinfo and refresh", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const config = await client.discovery(new URL(svc.issuer), reg.client_id, reg.client_secret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: "openid profile email offline_access",
    prompt: "consent",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  const { callback } = await authorizeInBrowser(new Browser(), url.href, REDIRECT);
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  assert.equal(tokens.claims()?.sub, "local-developer");
  const info = await client.fetchUserInfo(config, tokens.access_token, "local-developer");
  assert.equal(info.email, "developer@localhost.test");
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
});

Deno.test("openid-client v6 asking for offline_access the common way (no prompt) gets a refresh token after consent, then refreshes", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const config = await client.discovery(new URL(svc.issuer), reg.client_id, reg.client_secret, undefined, {
    execute: [client.allowInsecureRequests],
  });
  const browser = new Browser();
  const run = async () => {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: "openid email offline_access",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
    });
    const { callback, pages } = await authorizeInBrowser(browser, url.href, REDIRECT);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    return { tokens, consentShown: "/consent" in pages };
  };
  const first = await run();
  assert.ok(first.consentShown, "the user is asked, offline access included");
  assert.ok(first.tokens.refresh_token, "approved: a refresh token");
  assert.ok(first.tokens.scope?.split(" ").includes("offline_access"));
  const refreshed = await client.refreshTokenGrant(config, first.tokens.refresh_token!);
  assert.ok(refreshed.refresh_token && refreshed.refresh_token !== first.tokens.refresh_token);
  const second = await run();
  assert.equal(second.consentShown, false, "the stored consent covers it: no page the second time");
  assert.ok(second.tokens.refresh_token, "and still a refresh token");
});

Deno.test("oidcc-refresh-token: refresh rotates with no-store, and replaying a rotated token revokes the family", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const c = { client_id: reg.client_id };
  const auth = oauth.ClientSecretBasic(reg.client_secret!);
  const { tokens } = await runCodeFlow(as, c, auth, REDIRECT);
  const first = await oauth.refreshTokenGrantRequest(as, c, auth, tokens.refresh_token!, INSECURE);
  assert.match(first.headers.get("cache-control") ?? "", /no-store/);
  assert.equal(first.headers.get("pragma"), "no-cache");
  const rotated = await oauth.processRefreshTokenResponse(as, c, first);
  assert.ok(
    rotated.refresh_token && rotated.refresh_token !== tokens.refresh_token,
    "the refresh token rotates",
  );
  assert.ok(rotated.id_token, "a new ID token is issued on refresh");

  const replay = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token!,
  }, { authorization: basic(reg.client_id, reg.client_secret!) });
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, "invalid_grant");
  const afterReplay = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: rotated.refresh_token!,
  }, { authorization: basic(reg.client_id, reg.client_secret!) });
  assert.equal(afterReplay.status, 400, "the newest token of the family is revoked too");
  await afterReplay.body?.cancel();
  const userinfo = await fetch(as.userinfo_endpoint!, {
    headers: { authorization: `Bearer ${rotated.access_token}` },
  });
  assert.equal(userinfo.status, 401, "access tokens of the family are revoked");
  await userinfo.body?.cancel();
});

Deno.test("introspection reports active tokens, and revocation makes them inactive", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const c = { client_id: reg.client_id };
  const auth = oauth.ClientSecretBasic(reg.client_secret!);
  const { tokens } = await runCodeFlow(as, c, auth, REDIRECT);
  const active = await oauth.processIntrospectionResponse(
    as,
    c,
    await oauth.introspectionRequest(as, c, auth, tokens.access_token, INSECURE),
  );
  assert.equal(active.active, true);
  assert.equal(active.sub, "local-developer");
  assert.equal(active.client_id, reg.client_id);
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, c, auth, tokens.access_token, INSECURE),
  );
  const inactive = await oauth.processIntrospectionResponse(
    as,
    c,
    await oauth.introspectionRequest(as, c, auth, tokens.access_token, INSECURE),
  );
  assert.equal(inactive.active, false);
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, c, auth, tokens.refresh_token!, INSECURE),
  );
  const refresh = await postForm(as.token_endpoint!, {
    grant_type: "refresh_token",
    refresh_token: tokens.refresh_token!,
  }, {
    authorization: basic(reg.client_id, reg.client_secret!),
  });
  assert.equal(refresh.status, 400, "a revoked refresh token no longer works");
  await refresh.body?.cancel();
});

Deno.test("end-session signs the user out and returns to the registered post-logout URI", async () => {
  await using svc = await startAuthService();
  const postLogout = "http://127.0.0.1:9/logged-out";
  const reg = await svc.register({
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [postLogout],
    enableEndSession: true,
  });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT, browser);
  const before = await browser.request(`${svc.url}/api/auth/get-session`);
  assert.ok((await before.json())?.session, "signed in before end-session");
  const url = new URL(as.end_session_endpoint!);
  url.searchParams.set("id_token_hint", tokens.id_token!);
  url.searchParams.set("post_logout_redirect_uri", postLogout);
  url.searchParams.set("state", "bye");
  const response = await browser.request(url.href);
  assert.ok([302, 303, 307].includes(response.status), `redirects, got ${response.status}`);
  const location = new URL(response.headers.get("location")!);
  assert.equal(location.origin + location.pathname, postLogout);
  assert.equal(location.searchParams.get("state"), "bye");
  const after = await browser.request(`${svc.url}/api/auth/get-session`);
  assert.equal(await after.json(), null, "the OP session ended");
});

Deno.test("a client without end-session enabled cannot log the user out", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  const url = new URL(as.end_session_endpoint!);
  url.searchParams.set("id_token_hint", tokens.id_token!);
  const response = await fetch(url, { redirect: "manual" });
  assert.ok(response.status >= 400, `refused, got ${response.status}`);
  await response.body?.cancel();
});

Deno.test("oidcc-ensure-request-without-nonce-succeeds-for-code-flow: a code-flow request without a nonce still gets a code", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { nonce: null, extra: "foobar" });
  const { callback } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  assert.ok(callback.searchParams.get("code"));
});

Deno.test("oidcc-userinfo-post-body: the access token is accepted in a form body", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  const response = await postForm(as.userinfo_endpoint!, { access_token: tokens.access_token });
  assert.equal(response.status, 200);
  assert.equal((await response.json()).sub, "local-developer");
});

Deno.test("end-session never redirects to an unregistered post-logout URI", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: ["http://127.0.0.1:9/logged-out"],
    enableEndSession: true,
  });
  const as = await discover(svc.issuer);
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  const url = new URL(as.end_session_endpoint!);
  url.searchParams.set("id_token_hint", tokens.id_token!);
  url.searchParams.set("post_logout_redirect_uri", "http://127.0.0.1:9/evil");
  const response = await fetch(url, { redirect: "manual" });
  const location = response.headers.get("location");
  assert.ok(!location?.startsWith("http://127.0.0.1:9/evil"), `redirected to ${location}`);
  await response.body?.cancel();
});

Deno.test("introspection by another client reports the token inactive", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const other = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const { tokens } = await runBasicCodeFlow(as, reg, REDIRECT);
  const response = await postForm(as.introspection_endpoint!, { token: tokens.access_token }, {
    authorization: basic(other.client_id, other.client_secret!),
  });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { active: false });
});
