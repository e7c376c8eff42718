/**
 * Conformance: RP-initiated logout (the OIDF oidcc-rp-initiated-logout-* modules) — with and without
 * id_token_hint, the confirmation page (Sign out / Cancel), exact post-logout redirect URIs, state, GET and
 * POST, end-session only for clients registered with it, and a CSRF-safe confirmation.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { Browser, seedSession, startAuthService } from "./harness.ts";
import { discover, runBasicCodeFlow } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";
const POST_LOGOUT = "http://127.0.0.1:9/logged-out";
const POST_LOGOUT_WITH_QUERY = "http://127.0.0.1:9/logged-out?from=op";

type Service = Awaited<ReturnType<typeof startAuthService>>;

/** A service, an end-session client, and a browser signed in through a code flow. */
async function signedIn(svc: Service, reg: { enableEndSession?: boolean } = {}) {
  const enabled = reg.enableEndSession ?? true;
  const client = await svc.register({
    redirectUris: [REDIRECT],
    ...(enabled ? { postLogoutRedirectUris: [POST_LOGOUT, POST_LOGOUT_WITH_QUERY] } : {}),
    enableEndSession: enabled,
  });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const { tokens } = await runBasicCodeFlow(as, client, REDIRECT, browser);
  return { client, as, browser, idToken: tokens.id_token! };
}

function endSessionUrl(as: oauth.AuthorizationServer, params: Record<string, string>): string {
  const url = new URL(as.end_session_endpoint!);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

async function sessionAlive(svc: Service, browser: Browser): Promise<boolean> {
  const response = await browser.request(`${svc.url}/api/auth/get-session`);
  return (await response.json()) !== null;
}

function logoutRequestOf(html: string): string {
  const match = /name="logout_request" value="([^"]+)"/.exec(html);
  assert.ok(match, "the confirmation page carries the signed logout request");
  return match[1];
}

function assertPageHeaders(response: Response) {
  assert.equal(response.headers.get("x-frame-options"), "DENY");
  assert.match(response.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.equal(response.headers.get("referrer-policy"), "same-origin");
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
}

Deno.test("oidcc-rp-initiated-logout: a matching id_token_hint signs out at once, clears the cookie and returns with state", async () => {
  await using svc = await startAuthService();
  const { as, browser, idToken } = await signedIn(svc);
  const response = await browser.request(
    endSessionUrl(as, { id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT, state: "s1" }),
  );
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get("location")!);
  assert.equal(location.origin + location.pathname, POST_LOGOUT);
  assert.equal(location.searchParams.get("state"), "s1");
  assert.ok(
    response.headers.getSetCookie().some((c) => /^svc\.session_token=;/.test(c) && /max-age=0/i.test(c)),
    "the session cookie is expired",
  );
  assert.equal(await sessionAlive(svc, browser), false);
});

Deno.test("oidcc-rp-initiated-logout-no-id-token-hint: client_id + post-logout URI shows the confirmation, Sign out returns with state", async () => {
  await using svc = await startAuthService();
  const { client, as, browser } = await signedIn(svc);
  const page = await browser.request(
    endSessionUrl(as, { client_id: client.client_id, post_logout_redirect_uri: POST_LOGOUT, state: "s2" }),
  );
  assert.equal(page.status, 200);
  assertPageHeaders(page);
  const html = await page.text();
  assert.match(html, />Sign out<\/button>/);
  assert.match(html, />Cancel<\/button>/);
  assert.match(html, /Test client asked to sign you out/);
  assert.match(html, /<html lang="en">/);
  assert.ok(!/<script/i.test(html), "no scripts");
  assert.equal(await sessionAlive(svc, browser), true, "nothing happens before the user confirms");
  const confirmed = await browser.postForm(`${svc.url}/end-session`, {
    logout_request: logoutRequestOf(html),
    decision: "sign_out",
  });
  assert.equal(confirmed.status, 303);
  const location = new URL(confirmed.headers.get("location")!);
  assert.equal(location.origin + location.pathname, POST_LOGOUT);
  assert.equal(location.searchParams.get("state"), "s2");
  assert.equal(await sessionAlive(svc, browser), false);
});

Deno.test("oidcc-rp-initiated-logout-no-params: the confirmation page, then a signed-out page", async () => {
  await using svc = await startAuthService();
  const { as, browser } = await signedIn(svc);
  const page = await browser.request(as.end_session_endpoint!);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, />Sign out<\/button>/);
  assert.ok(!html.includes("asked to sign you out"), "no client is named");
  const done = await browser.postForm(`${svc.url}/end-session`, {
    logout_request: logoutRequestOf(html),
    decision: "sign_out",
  });
  assert.equal(done.status, 200);
  assertPageHeaders(done);
  assert.match(await done.text(), /You are signed out/);
  assert.equal(await sessionAlive(svc, browser), false);
});

Deno.test("oidcc-rp-initiated-logout-only-state: state without a post-logout URI is never a redirect", async () => {
  await using svc = await startAuthService();
  const { as, browser } = await signedIn(svc);
  const page = await browser.request(endSessionUrl(as, { state: "s3" }));
  const html = await page.text();
  const done = await browser.postForm(`${svc.url}/end-session`, {
    logout_request: logoutRequestOf(html),
    decision: "sign_out",
  });
  assert.equal(done.status, 200);
  assert.equal(done.headers.get("location"), null);
  await done.body?.cancel();
  assert.equal(await sessionAlive(svc, browser), false);
});

Deno.test("oidcc-rp-initiated-logout-no-post-logout-redirect-uri and -no-state: logout without a return URI shows the signed-out page, and without state adds none", async () => {
  await using svc = await startAuthService();
  const first = await signedIn(svc);
  const page = await first.browser.request(endSessionUrl(first.as, { id_token_hint: first.idToken }));
  assert.equal(page.status, 200);
  assert.match(await page.text(), /You are signed out/);
  assert.equal(await sessionAlive(svc, first.browser), false);

  const second = await signedIn(svc);
  const response = await second.browser.request(
    endSessionUrl(second.as, { id_token_hint: second.idToken, post_logout_redirect_uri: POST_LOGOUT }),
  );
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), POST_LOGOUT, "no state is added when none was sent");
});

Deno.test("oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri: the registered query is kept", async () => {
  await using svc = await startAuthService();
  const { as, browser, idToken } = await signedIn(svc);
  const response = await browser.request(
    endSessionUrl(as, {
      id_token_hint: idToken,
      post_logout_redirect_uri: POST_LOGOUT_WITH_QUERY,
      state: "q",
    }),
  );
  const location = new URL(response.headers.get("location")!);
  assert.equal(location.searchParams.get("from"), "op");
  assert.equal(location.searchParams.get("state"), "q");
});

Deno.test("oidcc-rp-initiated-logout-bad-post-logout-redirect-uri and -modified-id-token-hint: an error page, no redirect, still signed in", async () => {
  await using svc = await startAuthService();
  const { client, as, browser, idToken } = await signedIn(svc);
  const [header, payload, signature] = idToken.split(".");
  const flipped = signature.slice(0, -2) + (signature.at(-2) === "A" ? "B" : "A") + signature.at(-1);
  const claims = JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/")));
  const forgedPayload = btoa(JSON.stringify({ ...claims, sub: "someone-else" })).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
  const cases: Record<string, string>[] = [
    { id_token_hint: idToken, post_logout_redirect_uri: "http://127.0.0.1:9/evil", state: "x" },
    { id_token_hint: idToken, post_logout_redirect_uri: `${POST_LOGOUT}/`, state: "x" },
    { id_token_hint: `${header}.${payload}.${flipped}`, post_logout_redirect_uri: POST_LOGOUT, state: "x" },
    { id_token_hint: `${header}.${forgedPayload}.${signature}`, post_logout_redirect_uri: POST_LOGOUT },
    { id_token_hint: "not-a-jwt", post_logout_redirect_uri: POST_LOGOUT },
    { client_id: client.client_id, post_logout_redirect_uri: "http://127.0.0.1:9/evil" },
  ];
  for (const params of cases) {
    const response = await browser.request(endSessionUrl(as, params));
    assert.equal(response.status, 400, JSON.stringify(params));
    assert.equal(response.headers.get("location"), null);
    assertPageHeaders(response);
    assert.match(await response.text(), /Sign-out failed/);
  }
  assert.equal(await sessionAlive(svc, browser), true);
});

Deno.test("a post-logout URI needs client_id when there is no hint, and the client must have end-session enabled", async () => {
  await using svc = await startAuthService();
  const { client, as, browser, idToken } = await signedIn(svc);
  const other = await svc.register({
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [POST_LOGOUT],
    enableEndSession: true,
  });
  // Registered with end-session and the same post-logout URI, then end-session turned off.
  await svc.database.client.execute({
    sql: "UPDATE oauth_client SET enable_end_session = 0 WHERE client_id = ?",
    args: [other.client_id],
  });
  const cases: Record<string, string>[] = [
    { post_logout_redirect_uri: POST_LOGOUT, state: "x" },
    { client_id: other.client_id },
    { client_id: other.client_id, post_logout_redirect_uri: POST_LOGOUT },
    { client_id: "unknown-client" },
    { client_id: other.client_id, id_token_hint: idToken },
  ];
  for (const params of cases) {
    const response = await browser.request(endSessionUrl(as, params));
    assert.equal(response.status, 400, JSON.stringify(params));
    assert.equal(response.headers.get("location"), null);
    await response.body?.cancel();
  }
  assert.equal(await sessionAlive(svc, browser), true);
  const fine = await browser.request(
    endSessionUrl(as, { client_id: client.client_id, id_token_hint: idToken }),
  );
  assert.equal(fine.status, 200);
  await fine.body?.cancel();
  assert.equal(await sessionAlive(svc, browser), false, "client_id equal to the hint's audience is accepted");
});

Deno.test("a client registered without end-session cannot sign the user out, even with a valid hint", async () => {
  await using svc = await startAuthService();
  const { as, browser, idToken } = await signedIn(svc, { enableEndSession: false });
  const response = await browser.request(endSessionUrl(as, { id_token_hint: idToken }));
  assert.equal(response.status, 400);
  assert.match(await response.text(), /not allowed to sign you out/);
  assert.equal(await sessionAlive(svc, browser), true);
});

Deno.test("Cancel keeps the session and offers the way back with state", async () => {
  await using svc = await startAuthService();
  const { client, as, browser } = await signedIn(svc);
  const page = await browser.request(
    endSessionUrl(as, { client_id: client.client_id, post_logout_redirect_uri: POST_LOGOUT, state: "c" }),
  );
  const cancelled = await browser.postForm(`${svc.url}/end-session`, {
    logout_request: logoutRequestOf(await page.text()),
    decision: "cancel",
  });
  assert.equal(cancelled.status, 200);
  const html = await cancelled.text();
  assert.match(html, /You are still signed in/);
  assert.ok(html.includes(`href="${POST_LOGOUT}?state=c"`), "a link back to the client with state");
  assert.equal(await sessionAlive(svc, browser), true);
});

Deno.test("a hint for another session asks for confirmation; a hint with no browser session ends the hinted session", async () => {
  await using svc = await startAuthService();
  const a = await signedIn(svc);
  const b = await signedIn(svc);
  const page = await a.browser.request(endSessionUrl(a.as, { id_token_hint: b.idToken }));
  assert.equal(page.status, 200);
  assert.match(await page.text(), />Sign out<\/button>/, "B's hint does not sign A out silently");
  assert.equal(await sessionAlive(svc, a.browser), true);
  assert.equal(await sessionAlive(svc, b.browser), true);

  const cookieless = await fetch(
    endSessionUrl(b.as, { id_token_hint: b.idToken, post_logout_redirect_uri: POST_LOGOUT }),
    { redirect: "manual" },
  );
  assert.equal(cookieless.status, 302);
  await cookieless.body?.cancel();
  assert.equal(await sessionAlive(svc, b.browser), false, "the hinted session ended");
  assert.equal(await sessionAlive(svc, a.browser), true);
});

Deno.test("POST end-session (an RP's form) is answered with a 303 to the same request as GET, from any origin", async () => {
  await using svc = await startAuthService();
  const { client, as, browser, idToken } = await signedIn(svc);
  const posted = await browser.postForm(as.end_session_endpoint!, {
    id_token_hint: idToken,
    client_id: client.client_id,
    post_logout_redirect_uri: POST_LOGOUT,
    state: "p",
  }, "http://localhost:3000");
  assert.equal(posted.status, 303);
  const next = new URL(posted.headers.get("location")!, svc.url);
  assert.equal(next.origin + next.pathname, as.end_session_endpoint);
  assert.equal(next.searchParams.get("id_token_hint"), idToken);
  assert.equal(await sessionAlive(svc, browser), true, "the POST itself changes nothing");
  const done = await browser.request(next.href);
  assert.equal(done.status, 302);
  assert.equal(new URL(done.headers.get("location")!).searchParams.get("state"), "p");
  assert.equal(await sessionAlive(svc, browser), false);
});

Deno.test("the confirmation is CSRF-safe: foreign origins, forged, tampered or other-session requests are refused", async () => {
  await using svc = await startAuthService();
  const { client, as, browser } = await signedIn(svc);
  const html = await (await browser.request(
    endSessionUrl(as, { client_id: client.client_id, post_logout_redirect_uri: POST_LOGOUT }),
  )).text();
  const token = logoutRequestOf(html);

  const foreign = await browser.postForm(`${svc.url}/end-session`, {
    logout_request: token,
    decision: "sign_out",
  }, "http://evil.test");
  assert.equal(foreign.status, 403);
  assert.equal((await foreign.json()).code, "INVALID_ORIGIN");

  const [body, mac] = token.split(".");
  const decoded = JSON.parse(atob(body.replaceAll("-", "+").replaceAll("_", "/")));
  const evilBody = btoa(JSON.stringify({ ...decoded, redirect: "http://127.0.0.1:9/evil" }))
    .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  for (const forged of ["", "abc", `${evilBody}.${mac}`, `${body}.${mac.slice(1)}x`]) {
    const refused = await browser.postForm(`${svc.url}/end-session`, {
      logout_request: forged,
      decision: "sign_out",
    });
    assert.equal(refused.status, 400, forged);
    assert.equal(refused.headers.get("location"), null);
    await refused.body?.cancel();
  }
  assert.equal(await sessionAlive(svc, browser), true);

  const other = new Browser();
  await other.postForm(`${svc.url}/sign-in/local-developer`, {});
  const replayed = await other.postForm(`${svc.url}/end-session`, {
    logout_request: token,
    decision: "sign_out",
  });
  assert.equal(replayed.status, 403, "a confirmation bound to another session is refused");
  await replayed.body?.cancel();
  assert.equal(await sessionAlive(svc, other), true);
  assert.equal(await sessionAlive(svc, browser), true);
});

Deno.test("deployed: the confirmation takes only the service's own origin and clears the shared parent-domain cookie", async () => {
  const base = "https://auth.example.test";
  const secret = "0123456789abcdef0123456789abcdef0123456789ab";
  await using svc = await startAuthService({
    AUTH_LOCAL_MODE: "false",
    AUTH_BASE_URL: base,
    AUTH_COOKIE_DOMAIN: ".example.test",
    AUTH_SECRET: secret,
    SOCIAL_CLIENT_ID: "gh-client-id",
    SOCIAL_CLIENT_SECRET: "gh-client-secret",
    AUTH_GITHUB_ALLOW_ANY: "true",
    AUTH_CLIENT_IP: "socket",
  });
  const cookie = await seedSession(
    svc,
    { id: "u1", name: "Octo Cat", email: "octo@example.test" },
    "__Secure-svc.session_token",
  );
  const page = await svc.handle(new Request(`${base}/api/auth/oauth2/end-session`, { headers: { cookie } }));
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /signed in as Octo Cat/);
  const confirm = (headers: Record<string, string>) =>
    svc.handle(
      new Request(`${base}/end-session`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...headers },
        body: new URLSearchParams({ logout_request: logoutRequestOf(html), decision: "sign_out" }).toString(),
      }),
    );
  const foreign: Record<string, string>[] = [
    { origin: "https://app.example.test" },
    {},
    { origin: "null", "sec-fetch-site": "cross-site" },
  ];
  for (const headers of foreign) {
    const refused = await confirm(headers);
    assert.equal(refused.status, 403, JSON.stringify(headers));
    assert.equal((await refused.json()).code, "INVALID_ORIGIN");
  }
  const done = await confirm({ origin: "null", "sec-fetch-site": "same-origin" });
  assert.equal(done.status, 200);
  await done.body?.cancel();
  const cleared = done.headers.getSetCookie().find((c) => c.startsWith("__Secure-svc.session_token=;"));
  assert.ok(cleared, done.headers.getSetCookie().join(" | "));
  assert.match(cleared, /Max-Age=0/i);
  assert.match(cleared, /Domain=\.?example\.test/i);
  const rows = await svc.database.client.execute("SELECT COUNT(*) AS n FROM session WHERE user_id = 'u1'");
  assert.equal(Number(rows.rows[0].n), 0, "the session row is gone");
});
