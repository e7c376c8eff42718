/** Conformance: the OIDF prompt modules (oidcc-prompt-none-*, oidcc-prompt-login) and prompt=consent. */
import assert from "node:assert/strict";
import type * as oauth from "oauth4webapi";
import { authorizeInBrowser, Browser, startAuthService } from "./harness.ts";
import { discover, prepareAuthorization } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";

async function firstHop(browser: Browser, url: URL, base: string): Promise<URL> {
  const response = await browser.request(url.href);
  await response.body?.cancel();
  assert.ok(response.status >= 300 && response.status < 400, `redirect expected, got ${response.status}`);
  return new URL(response.headers.get("location")!, base);
}

/** A browser that has signed in and consented once for `clientId` (one full authorization). */
async function signedInAndConsented(as: oauth.AuthorizationServer, clientId: string): Promise<Browser> {
  const browser = new Browser();
  await authorizeInBrowser(browser, (await prepareAuthorization(as, clientId, REDIRECT)).url.href, REDIRECT);
  return browser;
}

Deno.test("oidcc-prompt-none-not-logged-in: prompt=none without a session returns login_required", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: "none" });
  const target = await firstHop(new Browser(), prepared.url, svc.url);
  assert.equal(target.origin + target.pathname, REDIRECT);
  assert.equal(target.searchParams.get("error"), "login_required");
  assert.equal(target.searchParams.get("state"), prepared.state);
  assert.equal(target.searchParams.get("iss"), svc.issuer);
});

Deno.test("oidcc-prompt-none-logged-in: prompt=none with a session and consent returns a code silently", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const browser = await signedInAndConsented(as, reg.client_id);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: "none" });
  const target = await firstHop(browser, prepared.url, svc.url);
  assert.equal(target.origin + target.pathname, REDIRECT);
  assert.ok(target.searchParams.get("code"));
});

Deno.test("oidcc-prompt-login: prompt=login sends a signed-in user back to the sign-in page", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT] });
  const as = await discover(svc.issuer);
  const browser = await signedInAndConsented(as, reg.client_id);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: "login" });
  assert.equal((await firstHop(browser, prepared.url, svc.url)).pathname, "/sign-in");
  const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
  assert.ok(callback.searchParams.get("code"), "the flow completes after signing in again");
});

Deno.test("prompt=consent shows the consent page even for a skip-consent client", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT], skipConsent: true });
  const as = await discover(svc.issuer);
  const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT, { prompt: "consent" });
  const { pages } = await authorizeInBrowser(new Browser(), prepared.url.href, REDIRECT);
  assert.ok(pages["/consent"], "consent was asked");
});
