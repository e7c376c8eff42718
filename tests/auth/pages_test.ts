/** The /sign-in and /consent pages: content, accessibility basics and security headers. */
import assert from "node:assert/strict";
import { authorizeInBrowser, Browser, startAuthService } from "./harness.ts";
import { discover, prepareAuthorization } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

function assertPageHeaders(response: Response, page: string) {
  assert.equal(response.headers.get("x-frame-options"), "DENY", page);
  assert.match(response.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/, page);
  assert.equal(response.headers.get("cache-control"), "no-store", page);
  assert.equal(response.headers.get("referrer-policy"), "same-origin", page);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/, page);
}

Deno.test("the consent page names the client, lists the scopes, offers Allow and Deny, with security headers", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ name: "Acme <Dashboard>", redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT);
  const { pages } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  const consent = pages["/consent"];
  assert.ok(consent.includes("Acme &lt;Dashboard&gt;"), "the client name is shown, escaped");
  for (const scope of ["openid", "profile", "email", "offline_access"]) {
    assert.ok(consent.includes(`<code>${scope}</code>`));
  }
  assert.match(consent, />Allow<\/button>/);
  assert.match(consent, />Deny<\/button>/);
  assert.match(consent, /<html lang="en">/);
  assert.match(consent, /name="viewport" content="width=device-width, initial-scale=1"/);
  assert.ok(!/<script/i.test(consent), "no client framework or scripts");
  const signIn = pages["/sign-in"];
  assert.match(signIn, />Continue as local developer<\/button>/);

  const browser = new Browser();
  const first = await browser.request(prepared.url.href);
  const signInUrl = new URL(first.headers.get("location")!, svc.url);
  assert.equal(signInUrl.pathname, "/sign-in");
  assertPageHeaders(await browser.request(signInUrl.href), "/sign-in");
});

Deno.test("Deny returns access_denied with state and iss to the client", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT);
  const { callback } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT, "deny");
  assert.equal(callback.searchParams.get("error"), "access_denied");
  assert.equal(callback.searchParams.get("state"), prepared.state);
  assert.equal(callback.searchParams.get("iss"), svc.issuer);
  assert.equal(callback.searchParams.get("code"), null);
});

Deno.test("the consent page sends a visitor without a session to sign in, and carries security headers", async () => {
  await using svc = await startAuthService();
  const anonymous = await fetch(`${svc.url}/consent?client_id=x&scope=openid`, { redirect: "manual" });
  assert.equal(anonymous.status, 302);
  assert.equal(new URL(anonymous.headers.get("location")!, svc.url).pathname, "/sign-in");
  await anonymous.body?.cancel();
  const browser = new Browser();
  await browser.postForm(`${svc.url}/sign-in/local-developer`, {});
  const page = await browser.request(`${svc.url}/consent?client_id=unknown&scope=openid`);
  assert.equal(page.status, 400);
  assertPageHeaders(page, "/consent");
  await page.body?.cancel();
});

Deno.test("skip-consent clients get their code without the consent page", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT], skipConsent: true });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: null });
  const { callback, pages } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  assert.ok(callback.searchParams.get("code"));
  assert.equal(pages["/consent"], undefined);
});

Deno.test("signing in issues a fresh session token and never adopts one the browser presented (session fixation)", async () => {
  await using svc = await startAuthService();
  const browser = new Browser();
  browser.cookies.set("svc.session_token", "planted-by-attacker.c2lnbmF0dXJl");
  const signedIn = await browser.postForm(`${svc.url}/sign-in/local-developer`, {});
  assert.equal(signedIn.status, 303);
  await signedIn.body?.cancel();
  const token = browser.cookies.get("svc.session_token") ?? "";
  assert.ok(token && !token.startsWith("planted-by-attacker"), "a new token was set");
  const again = await browser.postForm(`${svc.url}/sign-in/local-developer`, {});
  await again.body?.cancel();
  assert.notEqual(browser.cookies.get("svc.session_token"), token, "every sign-in gets a new token");
  const rows = await svc.database.client.execute("SELECT token FROM session WHERE token LIKE 'planted%'");
  assert.equal(rows.rows.length, 0);
});
