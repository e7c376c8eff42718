/**
 * Item 1 (and the login-CSRF and consent rows of item 8) over raw HTTP, as a script on a sibling subdomain
 * sends it: the browser adds the shared SameSite=Lax cookie (same site), `Origin: https://blog.example.test`
 * and `Sec-Fetch-Mode: cors`. No code, consent, client or token may come back, and nothing may change.
 * tests/e2e/ repeats the attack in Chromium.
 */
import assert from "node:assert/strict";
import { type AuthService, seedSession, startAuthService } from "./harness.ts";

const BASE = "https://auth.example.test";
const BLOG = "https://blog.example.test";
const REDIRECT = "https://app.example.test/callback";
const DEPLOYED = {
  AUTH_LOCAL_MODE: "false",
  AUTH_BASE_URL: BASE,
  AUTH_COOKIE_DOMAIN: ".example.test",
  AUTH_SECRET: "0123456789abcdef0123456789abcdef0123456789ab",
  SOCIAL_CLIENT_ID: "gh-client-id",
  SOCIAL_CLIENT_SECRET: "gh-client-secret",
  AUTH_GITHUB_ALLOW_ANY: "true",
  AUTH_CLIENT_IP: "socket",
};
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/** Headers of a credentialed fetch() from a page on blog.example.test. */
function fromSibling(cookie: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    cookie,
    origin: BLOG,
    "sec-fetch-mode": "cors",
    "sec-fetch-site": "same-site",
    "sec-fetch-dest": "empty",
    ...extra,
  };
}

async function signedInWithPublicClient(svc: AuthService) {
  const cookie = await seedSession(
    svc,
    { id: "victim", name: "Victim", email: "victim@example.test" },
    "__Secure-svc.session_token",
  );
  const client = await svc.register({ name: "Public app", redirectUris: [REDIRECT], public: true });
  return { cookie, clientId: client.client_id };
}

async function countRows(svc: AuthService, table: string): Promise<number> {
  return Number((await svc.database.client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
}

Deno.test("a sibling subdomain's script gets no code from the authorization endpoint", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const { cookie, clientId } = await signedInWithPublicClient(svc);
  const url = new URL(`${BASE}/api/auth/oauth2/authorize`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: "openid profile",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    state: "s",
  }).toString();
  for (const extra of [{ accept: "application/json" }, {}] as Record<string, string>[]) {
    const response = await svc.handle(new Request(url, { headers: fromSibling(cookie, extra) }));
    const text = await response.text();
    assert.equal(response.headers.get("access-control-allow-origin"), null, "no CORS on the front channel");
    assert.equal(response.headers.get("access-control-allow-credentials"), null);
    assert.ok(!/code=|"url"/.test(text) && !/code=/.test(response.headers.get("location") ?? ""), text);
    assert.ok(response.status >= 400, `refused: ${response.status}`);
  }
  // Even without Sec-Fetch headers (an old browser), Accept: JSON gets a redirect, never a body with the URL.
  const json = await svc.handle(
    new Request(url, { headers: { cookie, accept: "application/json", origin: BLOG } }),
  );
  assert.ok(json.status === 302, `a redirect: ${json.status}`);
  assert.equal(await json.text(), "");
  assert.equal(json.headers.get("access-control-allow-origin"), null);
  assert.equal(json.headers.get("cache-control"), "no-store");
  assert.equal(await countRows(svc, "oauth_consent"), 0);
});

Deno.test("a sibling subdomain cannot grant, list or widen consent, nor manage clients", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const { cookie, clientId } = await signedInWithPublicClient(svc);
  const attempts: [string, string, unknown][] = [
    ["POST", "/api/auth/oauth2/consent", { accept: true, oauth_query: `client_id=${clientId}&scope=openid` }],
    ["GET", "/api/auth/oauth2/get-consents", undefined],
    ["POST", "/api/auth/oauth2/update-consent", {
      id: "x",
      update: { scopes: ["openid", "offline_access"] },
    }],
    ["POST", "/api/auth/oauth2/create-client", { redirect_uris: [`${BLOG}/steal`] }],
    ["POST", "/api/auth/oauth2/continue", { postLogin: true }],
  ];
  for (const [method, path, body] of attempts) {
    for (
      const headers of [fromSibling(cookie, { "content-type": "application/json" }), {
        cookie,
        origin: BASE,
        "content-type": "application/json",
      }]
    ) {
      const response = await svc.handle(
        new Request(`${BASE}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined }),
      );
      assert.equal(response.status, 404, `${method} ${path} from ${headers.origin}`);
      assert.equal(response.headers.get("access-control-allow-origin"), null);
      await response.body?.cancel();
    }
  }
  const preflight = await svc.handle(
    new Request(`${BASE}/api/auth/oauth2/token`, {
      method: "OPTIONS",
      headers: { origin: BLOG, "access-control-request-method": "POST" },
    }),
  );
  assert.equal(preflight.headers.get("access-control-allow-origin"), null, "no CORS preflight on /oauth2/*");
  await preflight.body?.cancel();
  // The consent form route takes only the service's own origin.
  const form = await svc.handle(
    new Request(`${BASE}/consent`, {
      method: "POST",
      headers: fromSibling(cookie, { "content-type": "application/x-www-form-urlencoded" }),
      body: new URLSearchParams({ decision: "allow", oauth_query: `client_id=${clientId}` }).toString(),
    }),
  );
  assert.equal(form.status, 403);
  await form.body?.cancel();
  assert.equal(await countRows(svc, "oauth_consent"), 0, "no consent was recorded");
  assert.equal(await countRows(svc, "oauth_client"), 1, "no client was created");
});

Deno.test("login CSRF: a cross-site or sibling POST to /api/auth/sign-in/social is refused with 403", async () => {
  await using svc = await startAuthService(DEPLOYED);
  for (const origin of ["https://evil.test", BLOG, "null"]) {
    const response = await svc.handle(
      new Request(`${BASE}/api/auth/sign-in/social`, {
        method: "POST",
        headers: { origin, "content-type": "application/json", "sec-fetch-site": "cross-site" },
        body: JSON.stringify({ provider: "github", callbackURL: "/sign-in" }),
      }),
    );
    assert.equal(response.status, 403, origin);
    assert.equal(response.headers.getSetCookie().length, 0, "no state cookie was set");
    await response.body?.cancel();
  }
  const own = await svc.handle(
    new Request(`${BASE}/api/auth/sign-in/social`, {
      method: "POST",
      headers: { origin: BASE, "content-type": "application/json" },
      body: JSON.stringify({ provider: "github", callbackURL: "/sign-in" }),
    }),
  );
  assert.equal(own.status, 200, "the service's own origin may start it");
  await own.body?.cancel();
});

Deno.test("the consent page renders only a query Better Auth signed", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const { cookie, clientId } = await signedInWithPublicClient(svc);
  const forged = new URLSearchParams({
    client_id: clientId,
    scope: "openid offline_access admin:everything",
    exp: String(Math.floor(Date.now() / 1000) + 600),
    sig: "forged",
  });
  for (const query of [forged.toString(), `client_id=${clientId}&scope=openid`]) {
    const response = await svc.handle(new Request(`${BASE}/consent?${query}`, { headers: { cookie } }));
    const html = await response.text();
    assert.equal(response.status, 400, query);
    assert.ok(
      !html.includes("admin:everything") && !html.includes("Public app"),
      "nothing unsigned is shown",
    );
  }
});
