/**
 * Conformance: the authorization request parameters of the OIDF basic plan that the OP accepts, ignores or
 * refuses (prompt values and combinations, login_hint, ui_locales, claims_locales, display, claims,
 * acr_values, id_token_hint), the discovery statements about them, error redirects carrying iss, and the
 * OP's own error page.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { authorizeInBrowser, Browser, seedSession, startAuthService } from "./harness.ts";
import { basic, discover, postForm, prepareAuthorization, runBasicCodeFlow } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

type Service = Awaited<ReturnType<typeof startAuthService>>;

/** A service, a client, and a browser that has signed in and consented once. */
async function signedIn(svc: Service) {
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const first = await runBasicCodeFlow(as, reg, REDIRECT, browser);
  return { reg, as, browser, first };
}

/** The first redirect of an authorization request, resolved. */
async function firstHop(browser: Browser, url: URL, base: string): Promise<URL> {
  const response = await browser.request(url.href);
  await response.body?.cancel();
  assert.ok(response.status >= 300 && response.status < 400, `redirect expected, got ${response.status}`);
  return new URL(response.headers.get("location")!, base);
}

function idTokenClaims(idToken: string): Record<string, unknown> {
  return JSON.parse(atob(idToken.split(".")[1].replaceAll("-", "+").replaceAll("_", "/")));
}

async function exchange(
  as: oauth.AuthorizationServer,
  reg: { client_id: string; client_secret?: string },
  code: string,
  verifier: string,
) {
  const response = await postForm(as.token_endpoint!, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
  }, { authorization: basic(reg.client_id, reg.client_secret!) });
  assert.equal(response.status, 200);
  return await response.json() as { id_token: string };
}

Deno.test("oidcc-prompt-login: prompt=login re-authenticates and the new ID token has a later auth_time", async () => {
  await using svc = await startAuthService();
  const { reg, as, browser, first } = await signedIn(svc);
  await new Promise((r) => setTimeout(r, 1100));
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: "login" });
  assert.equal((await firstHop(browser, prepared.url, svc.url)).pathname, "/sign-in");
  const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
  const tokens = await exchange(as, reg, callback.searchParams.get("code")!, prepared.verifier);
  assert.ok(
    Number(idTokenClaims(tokens.id_token).auth_time) > Number(first.claims.auth_time),
    "auth_time moved forward",
  );
});

Deno.test("prompt=none with another value, or an unknown prompt value, is invalid_request to the client with state and iss", async () => {
  await using svc = await startAuthService();
  const { reg, as, browser } = await signedIn(svc);
  for (const prompt of ["none login", "none consent", "consent none", "bogus"]) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt });
    const target = await firstHop(browser, prepared.url, svc.url);
    assert.equal(target.origin + target.pathname, REDIRECT, prompt);
    assert.equal(target.searchParams.get("error"), "invalid_request", prompt);
    assert.equal(target.searchParams.get("state"), prepared.state);
    assert.equal(target.searchParams.get("iss"), svc.issuer);
  }
});

Deno.test("prompt=select_account and prompt=create ask the user to sign in again instead of failing", async () => {
  await using svc = await startAuthService();
  const { reg, as, browser } = await signedIn(svc);
  for (const prompt of ["select_account", "create", "select_account consent"]) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt });
    assert.equal((await firstHop(browser, prepared.url, svc.url)).pathname, "/sign-in", prompt);
    const { callback, pages } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
    assert.ok(callback.searchParams.get("code"), prompt);
    assert.equal(Boolean(pages["/consent"]), prompt.includes("consent"), `${prompt}: consent page`);
  }
});

Deno.test("prompt=consent with a max_age the session exceeds asks for both login and consent", async () => {
  await using svc = await startAuthService();
  const { reg, as, browser } = await signedIn(svc);
  await new Promise((r) => setTimeout(r, 1100));
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    prompt: "consent",
    max_age: "1",
  });
  assert.equal((await firstHop(browser, prepared.url, svc.url)).pathname, "/sign-in");
  const { callback, pages } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
  assert.ok(callback.searchParams.get("code"));
  assert.ok(pages["/consent"], "consent was asked");
});

Deno.test("oidcc-login-hint, -ui-locales, -claims-locales, -display-page/-popup: accepted, ignored, never reflected", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    login_hint: '"><b id="injected">x</b>',
    ui_locales: "fr-CA fr en",
    claims_locales: "fr",
    display: "popup",
  });
  const { callback, pages } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  assert.ok(callback.searchParams.get("code"));
  assert.equal(callback.searchParams.get("state"), prepared.state);
  for (const [path, html] of Object.entries(pages)) {
    assert.ok(!html.includes('<b id="injected">'), `${path} does not reflect login_hint as markup`);
  }
});

Deno.test("oidcc-claims-essential and oidcc-ensure-request-with-acr-values-succeeds: the request succeeds with the advertised acr", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    claims: JSON.stringify({ id_token: { name: { essential: true } }, userinfo: { email: null } }),
    acr_values: "urn:example:loa:2 urn:mace:incommon:iap:bronze",
  });
  const { callback } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  const tokens = await exchange(as, reg, callback.searchParams.get("code")!, prepared.verifier);
  const claims = idTokenClaims(tokens.id_token);
  assert.ok((as.acr_values_supported as string[]).includes(String(claims.acr)), "acr is an advertised value");
  assert.equal(claims.name, "Local Developer", "profile scope yields name");
});

Deno.test("oidcc-id-token-hint: prompt=none with an id_token_hint succeeds silently", async () => {
  await using svc = await startAuthService();
  const { reg, as, browser, first } = await signedIn(svc);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    prompt: "none",
    id_token_hint: first.tokens.id_token!,
  });
  const target = await firstHop(browser, prepared.url, svc.url);
  assert.ok(target.searchParams.get("code"));
  assert.equal(target.searchParams.get("iss"), svc.issuer);
});

Deno.test("prompt=none without consent returns consent_required with state and iss", async () => {
  await using svc = await startAuthService();
  const { as, browser } = await signedIn(svc);
  const other = await svc.register({ redirectUris: [REDIRECT] });
  const prepared = await prepareAuthorization(as, other.client_id, REDIRECT, { prompt: "none" });
  const target = await firstHop(browser, prepared.url, svc.url);
  assert.equal(target.searchParams.get("error"), "consent_required");
  assert.equal(target.searchParams.get("state"), prepared.state);
  assert.equal(target.searchParams.get("iss"), svc.issuer);
});

Deno.test("discovery states that request, request_uri and claims parameters are unsupported, and lists none for public clients", async () => {
  await using svc = await startAuthService();
  const as = await discover(svc.issuer);
  assert.equal(as.request_parameter_supported, false);
  assert.equal(as.request_uri_parameter_supported, false, "it defaults to true when omitted");
  assert.equal(as.claims_parameter_supported, false);
  assert.deepEqual(as.token_endpoint_auth_methods_supported, [
    "client_secret_basic",
    "client_secret_post",
    "none",
  ]);
  assert.ok(as.revocation_endpoint_auth_methods_supported?.includes("none"));
  assert.ok(
    !as.introspection_endpoint_auth_methods_supported?.includes("none"),
    "introspection needs a secret",
  );
  for (const prompt of as.prompt_values_supported as string[]) {
    assert.ok(["none", "login", "consent", "select_account", "create"].includes(prompt), prompt);
  }
  const head = await fetch(`${svc.url}/.well-known/oauth-authorization-server/api/auth`, { method: "HEAD" });
  assert.equal(head.status, 200);
  await head.body?.cancel();
});

Deno.test("the OP's error page is inert: escaped text, the pages' security headers", async () => {
  await using svc = await startAuthService();
  const unknown = new URL(`${svc.issuer}/oauth2/authorize`);
  unknown.search = new URLSearchParams({
    client_id: "unknown",
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "openid",
  }).toString();
  const first = await fetch(unknown, { redirect: "manual" });
  await first.body?.cancel();
  const errorUrl = new URL(first.headers.get("location")!, svc.url);
  assert.equal(errorUrl.pathname, "/api/auth/error");
  const page = await fetch(errorUrl);
  assert.equal(page.status, 400);
  assert.equal(page.headers.get("x-frame-options"), "DENY");
  assert.match(page.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  assert.equal(page.headers.get("cache-control"), "no-store");
  assert.equal(page.headers.get("referrer-policy"), "same-origin");
  assert.match(await page.text(), /Authorization failed/);
  const hostile = await fetch(
    `${svc.url}/api/auth/error?error=%3Cscript%3Ealert(1)%3C/script%3E&error_description=%3Cimg%20src=x%3E`,
  );
  const html = await hostile.text();
  assert.ok(!html.includes("<script>") && !html.includes("<img"), "nothing is reflected as markup");
  assert.ok(html.includes("&lt;img src=x&gt;"));
});

Deno.test("oidcc-scope-profile, -email and openid alone: claims follow the granted scopes only", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT], skipConsent: true });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const expected: Record<string, string[]> = {
    "openid": [],
    "openid email": ["email", "email_verified"],
    "openid profile": ["name"],
  };
  for (const [scope, present] of Object.entries(expected)) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { scope });
    const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
    const tokens = await exchange(as, reg, callback.searchParams.get("code")!, prepared.verifier) as {
      id_token: string;
      access_token: string;
    };
    const info = await (await fetch(as.userinfo_endpoint!, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })).json();
    const claims = idTokenClaims(tokens.id_token);
    for (const claim of ["name", "email", "email_verified"]) {
      const wanted = present.includes(claim);
      assert.equal(claim in info, wanted, `${scope}: userinfo ${claim}`);
      assert.equal(claim in claims, wanted, `${scope}: id_token ${claim}`);
    }
    assert.equal(info.sub, "local-developer");
  }
});

Deno.test("response_mode other than query is refused with invalid_request (in the query), query is accepted", async () => {
  await using svc = await startAuthService();
  const { reg, as, browser } = await signedIn(svc);
  assert.deepEqual(as.response_modes_supported, ["query"]);
  for (const mode of ["form_post", "fragment", "jwt"]) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { response_mode: mode });
    const target = await firstHop(browser, prepared.url, svc.url);
    assert.equal(target.origin + target.pathname, REDIRECT, mode);
    assert.equal(target.searchParams.get("error"), "invalid_request", mode);
    assert.equal(target.searchParams.get("code"), null, mode);
    assert.equal(target.searchParams.get("iss"), svc.issuer);
  }
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    response_mode: "query",
    prompt: null,
  });
  assert.ok((await firstHop(browser, prepared.url, svc.url)).searchParams.get("code"));
});

Deno.test("id_token_hint at authorize: invalid → invalid_request; another user's with prompt=none → login_required, without → sign in again", async () => {
  await using svc = await startAuthService();
  const { reg, as, browser, first } = await signedIn(svc);
  // An ID token of a second user, obtained through a seeded session of that user.
  const other = new Browser();
  const [name, value] = (await seedSession(svc, { id: "user-2", name: "Second", email: "two@example.test" }))
    .split("=");
  other.cookies.set(name, value);
  const otherFlow = await runBasicCodeFlow(as, reg, REDIRECT, other);
  assert.equal(otherFlow.claims.sub, "user-2");

  const [header, payload, signature] = first.tokens.id_token!.split(".");
  const tampered = `${header}.${payload}.${signature.slice(0, -3)}${
    signature.endsWith("AAA") ? "BBB" : "AAA"
  }`;
  for (const hint of [tampered, "not-a-jwt"]) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, {
      prompt: "none",
      id_token_hint: hint,
    });
    const target = await firstHop(browser, prepared.url, svc.url);
    assert.equal(target.origin + target.pathname, REDIRECT);
    assert.equal(target.searchParams.get("error"), "invalid_request");
    assert.equal(target.searchParams.get("state"), prepared.state);
    assert.equal(target.searchParams.get("iss"), svc.issuer);
  }

  const none = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    prompt: "none",
    id_token_hint: otherFlow.tokens.id_token!,
  });
  const refused = await firstHop(browser, none.url, svc.url);
  assert.equal(refused.searchParams.get("error"), "login_required");
  assert.equal(refused.searchParams.get("iss"), svc.issuer);

  const interactive = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    id_token_hint: otherFlow.tokens.id_token!,
  });
  assert.equal((await firstHop(browser, interactive.url, svc.url)).pathname, "/sign-in");

  const same = await prepareAuthorization(as, reg.client_id, REDIRECT, {
    prompt: "none",
    id_token_hint: otherFlow.tokens.id_token!,
  });
  assert.ok(
    (await firstHop(other, same.url, svc.url)).searchParams.get("code"),
    "the hint's own user passes",
  );
});
