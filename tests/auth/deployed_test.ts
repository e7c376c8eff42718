/** Deployed configuration: GitHub only, shared parent-domain cookies, trusted origins, rate limits, config. */
import assert from "node:assert/strict";
import { startAuthService } from "./harness.ts";
import { readAuthConfig } from "../../auth/config.ts";

const BASE = "https://auth.example.test";
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

Deno.test("a deployed configuration names every missing or invalid key at once", () => {
  assert.throws(
    () =>
      readAuthConfig({ AUTH_BASE_URL: "http://auth.example.test", AUTH_SECRET: "short", LOG_LEVEL: "loud" }),
    (error: Error) => {
      for (
        const pattern of [
          /AUTH_SECRET: must be at least 32 characters/,
          /SOCIAL_CLIENT_ID: is required outside local mode/,
          /SOCIAL_CLIENT_SECRET: is required outside local mode/,
          /AUTH_COOKIE_DOMAIN: is required outside local mode/,
          /AUTH_BASE_URL: must use https outside local mode/,
          /LOG_LEVEL: expected one of/,
        ]
      ) assert.match(error.message, pattern);
      assert.ok(!error.message.includes("short"), "secret values are not echoed");
      return true;
    },
  );
  assert.throws(() => readAuthConfig({}), /AUTH_BASE_URL: is required/);
  assert.throws(
    () => readAuthConfig({ ...DEPLOYED, AUTH_COOKIE_DOMAIN: ".other.test" }),
    /does not contain the AUTH_BASE_URL host/,
  );
  assert.equal(readAuthConfig(DEPLOYED).AUTH_LOCAL_MODE, false);
});

Deno.test("deployed sign-in offers GitHub only and starts it with the callback /api/auth/callback/github", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const page = await svc.handle(new Request(`${BASE}/sign-in`));
  const html = await page.text();
  assert.ok(html.includes("Continue with GitHub"));
  assert.ok(!html.includes("local developer"));
  const start = await svc.handle(
    new Request(`${BASE}/sign-in/github`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: BASE },
      body: "oauth_query=",
    }),
  );
  assert.equal(start.status, 303);
  const location = new URL(start.headers.get("location")!);
  assert.equal(location.origin + location.pathname, "https://github.com/login/oauth/authorize");
  assert.equal(location.searchParams.get("client_id"), "gh-client-id");
  assert.equal(location.searchParams.get("redirect_uri"), `${BASE}/api/auth/callback/github`);
  const state = start.headers.getSetCookie().find((c) => c.startsWith("__Secure-svc."));
  assert.ok(state, start.headers.getSetCookie().join(" | "));
  assert.match(state, /Domain=\.?example\.test/i);
  assert.match(state, /;\s*Secure/i);
  assert.match(state, /;\s*HttpOnly/i);
  assert.match(state, /SameSite=Lax/i);
  for (const path of ["/sign-in/local-developer", "/api/auth/local-developer/sign-in"]) {
    const r = await svc.handle(new Request(`${BASE}${path}`, { method: "POST", headers: { origin: BASE } }));
    assert.equal(r.status, 404, `${path} does not exist outside local mode`);
    await r.body?.cancel();
  }
});

Deno.test("the deployed session cookie is the shared __Secure- parent-domain cookie", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const { createBetterAuth } = await import("../../auth/better_auth/mod.ts");
  const auth = createBetterAuth({ config: svc.config, db: svc.database.db, secureCookies: true });
  const cookie = (await auth.$context).authCookies.sessionToken;
  assert.equal(cookie.name, "__Secure-svc.session_token");
  assert.equal(cookie.attributes.domain, ".example.test");
  assert.equal(cookie.attributes.secure, true);
  assert.equal(cookie.attributes.httpOnly, true);
  assert.equal(String(cookie.attributes.sameSite).toLowerCase(), "lax");
});

Deno.test("trusted origins are the cookie domain and its subdomains only", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const signOut = (origin: string) =>
    svc.handle(
      new Request(`${BASE}/api/auth/sign-out`, {
        method: "POST",
        headers: { origin, cookie: "__Secure-svc.session_token=x.y", "content-type": "application/json" },
        body: "{}",
      }),
    );
  const evil = await signOut("https://evil.test");
  assert.equal(evil.status, 403);
  assert.equal((await evil.json()).code, "INVALID_ORIGIN");
  const lookalike = await signOut("https://example.test.evil.test");
  assert.equal(lookalike.status, 403);
  await lookalike.body?.cancel();
  for (const origin of ["https://app.example.test", "https://example.test"]) {
    const ok = await signOut(origin);
    assert.notEqual(ok.status, 403, origin);
    await ok.body?.cancel();
  }
  const preflight = await svc.handle(
    new Request(`${BASE}/api/auth/get-session`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.test", "access-control-request-method": "GET" },
    }),
  );
  assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example.test");
  assert.equal(preflight.headers.get("access-control-allow-credentials"), "true");
  const foreign = await svc.handle(
    new Request(`${BASE}/api/auth/get-session`, { headers: { origin: "https://evil.test" } }),
  );
  assert.equal(foreign.headers.get("access-control-allow-origin"), null);
  await foreign.body?.cancel();
});

Deno.test("deployed mode answers any Host (no loopback allow-list) and health needs nothing", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const r = await svc.handle(new Request(`${BASE}/api/health`, { headers: { host: "auth.example.test" } }));
  assert.equal(r.status, 200);
  await r.body?.cancel();
});

Deno.test("deployed page forms accept only the service's own origin (login CSRF)", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const post = (headers: Record<string, string>) =>
    svc.handle(
      new Request(`${BASE}/sign-in/github`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: "oauth_query=",
      }),
    );
  const cases: Record<string, string>[] = [
    { origin: "https://evil.test" },
    {},
    { origin: "null", "sec-fetch-site": "cross-site" },
  ];
  for (const headers of cases) {
    const refused = await post(headers);
    assert.equal(refused.status, 403, JSON.stringify(headers));
    assert.equal((await refused.json()).code, "INVALID_ORIGIN");
  }
  const own = await post({ origin: "null", "sec-fetch-site": "same-origin" });
  assert.equal(own.status, 303, "the page's own form post under no-referrer");
  await own.body?.cancel();
});

Deno.test("AUTH_GITHUB_STAND_IN is test-only: loopback origins only, never in local mode", () => {
  assert.equal(
    readAuthConfig({ ...DEPLOYED, AUTH_GITHUB_STAND_IN: "http://127.0.0.1:4000" }).AUTH_GITHUB_STAND_IN,
    "http://127.0.0.1:4000",
  );
  for (const value of ["https://github.example.com", "http://10.0.0.5:4000", "http://127.0.0.1:4000/path"]) {
    assert.throws(
      () => readAuthConfig({ ...DEPLOYED, AUTH_GITHUB_STAND_IN: value }),
      /AUTH_GITHUB_STAND_IN: is test-only and must be a loopback origin/,
      value,
    );
  }
  assert.throws(
    () =>
      readAuthConfig({
        AUTH_LOCAL_MODE: "true",
        AUTH_BASE_URL: "http://localhost:37960",
        AUTH_GITHUB_STAND_IN: "http://127.0.0.1:4000",
      }),
    /AUTH_GITHUB_STAND_IN/,
  );
});

Deno.test("AUTH_FIRST_PARTY_ORIGINS narrows credentialed CORS to the listed apps", async () => {
  assert.throws(
    () =>
      readAuthConfig({
        ...DEPLOYED,
        AUTH_FIRST_PARTY_ORIGINS: "https://app.example.test,http://x.example.test",
      }),
    /AUTH_FIRST_PARTY_ORIGINS: "http:\/\/x.example.test" is not an https origin on .example.test/,
  );
  assert.throws(
    () => readAuthConfig({ ...DEPLOYED, AUTH_FIRST_PARTY_ORIGINS: "https://app.other.test" }),
    /AUTH_FIRST_PARTY_ORIGINS/,
  );
  await using svc = await startAuthService({
    ...DEPLOYED,
    AUTH_FIRST_PARTY_ORIGINS: "https://app.example.test",
  });
  const preflight = (origin: string) =>
    svc.handle(
      new Request(`${BASE}/api/auth/get-session`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "GET" },
      }),
    );
  const app = await preflight("https://app.example.test");
  assert.equal(app.headers.get("access-control-allow-origin"), "https://app.example.test");
  await app.body?.cancel();
  const blog = await preflight("https://blog.example.test");
  assert.equal(
    blog.headers.get("access-control-allow-origin"),
    null,
    "a sibling not on the list gets no CORS",
  );
  await blog.body?.cancel();
});
