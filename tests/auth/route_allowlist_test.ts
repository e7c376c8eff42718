/**
 * Item 2 of the fail-closed work: Better Auth's routes are exposed by an explicit allowlist. This test asks
 * Better Auth 1.6.23 which routes it registers with the service's own configuration (local and deployed)
 * and sends every method of every non-allowlisted one, with and without a session: each must be a 404. A
 * plugin added later registers more routes, and they are checked here without anyone listing them.
 */
import assert from "node:assert/strict";
import { createBetterAuth } from "../../auth/better_auth/mod.ts";
import {
  isPublicAuthRoute,
  publicAuthRoutes,
  SERVICE_OWN_AUTH_PATHS,
} from "../../auth/edge/route_allowlist.ts";
import { type AuthService, seedSession, startAuthService } from "./harness.ts";

const DEPLOYED = {
  AUTH_LOCAL_MODE: "false",
  AUTH_BASE_URL: "https://auth.example.test",
  AUTH_COOKIE_DOMAIN: ".example.test",
  AUTH_SECRET: "0123456789abcdef0123456789abcdef0123456789ab",
  SOCIAL_CLIENT_ID: "gh-client-id",
  SOCIAL_CLIENT_SECRET: "gh-client-secret",
  AUTH_GITHUB_ALLOW_ANY: "true",
  AUTH_CLIENT_IP: "socket",
};

/** Every (method, path) Better Auth registers for the service's configuration, `:params` filled in. */
function registeredRoutes(svc: AuthService): { method: string; path: string }[] {
  const auth = createBetterAuth({ config: svc.config, db: svc.database.db, secureCookies: true });
  const routes: { method: string; path: string }[] = [];
  for (const endpoint of Object.values(auth.api) as { path?: string; options?: { method?: unknown } }[]) {
    if (!endpoint.path) continue;
    const declared = endpoint.options?.method;
    const methods = Array.isArray(declared)
      ? declared.map(String)
      : declared === "*" || declared === undefined
      ? ["GET", "POST", "PUT", "PATCH", "DELETE"]
      : [String(declared)];
    const path = `/api/auth${endpoint.path.replace(/:[a-zA-Z]+/g, "probe")}`;
    for (const method of methods) routes.push({ method, path });
  }
  return routes;
}

async function checkSurface(svc: AuthService, local: boolean, sessionCookie: string) {
  const routes = registeredRoutes(svc);
  assert.ok(routes.length >= 50, `Better Auth registers its routes (${routes.length})`);
  const refused = routes.filter((r) =>
    !isPublicAuthRoute(r.method, r.path, local) && !SERVICE_OWN_AUTH_PATHS.includes(r.path)
  );
  for (
    const name of [
      "/oauth2/create-client",
      "/oauth2/get-consents",
      "/oauth2/update-consent",
      "/oauth2/consent",
    ]
  ) {
    assert.ok(refused.some((r) => r.path === `/api/auth${name}`), `${name} is not public`);
  }
  const origin = new URL(svc.config.AUTH_BASE_URL).origin;
  for (const { method, path } of refused) {
    for (const cookie of [undefined, sessionCookie]) {
      const headers: Record<string, string> = { origin, "content-type": "application/json" };
      if (cookie) headers.cookie = cookie;
      const body = method === "GET" || method === "HEAD" ? undefined : "{}";
      const response = await svc.handle(new Request(`${origin}${path}`, { method, headers, body }));
      assert.equal(response.status, 404, `${method} ${path} ${cookie ? "with" : "without"} a session`);
      await response.body?.cancel();
    }
  }
  // The allowlist names routes that exist (a typo would silently expose nothing and break a flow).
  const registered = new Set(routes.map((r) => `${r.method} ${r.path}`));
  for (const route of publicAuthRoutes(local)) {
    if (route.path.includes(".well-known") || route.path.endsWith("/callback/github")) continue;
    assert.ok(
      route.methods.some((m) => registered.has(`${m} ${route.path}`)),
      `${route.path} is a Better Auth route`,
    );
  }
}

Deno.test("deployed: every Better Auth route outside the allowlist is a 404, with and without a session", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const cookie = await seedSession(
    svc,
    { id: "u1", name: "User One", email: "u1@example.test" },
    "__Secure-svc.session_token",
  );
  const session = await svc.handle(
    new Request(`${DEPLOYED.AUTH_BASE_URL}/api/auth/get-session`, { headers: { cookie } }),
  );
  assert.equal((await session.json())?.user?.id, "u1", "the seeded session is valid");
  await checkSurface(svc, false, cookie);
});

Deno.test("local: every Better Auth route outside the allowlist is a 404, with and without a session", async () => {
  await using svc = await startAuthService();
  const signIn = await svc.handle(
    new Request(`${svc.url}/api/auth/local-developer/sign-in`, {
      method: "POST",
      headers: { origin: svc.url, "content-type": "application/json" },
      body: "{}",
    }),
  );
  assert.equal(signIn.status, 200);
  const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  await signIn.body?.cancel();
  await checkSurface(svc, true, cookie);
});

Deno.test("client registration over HTTP is impossible: create-client and register answer 404", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const cookie = await seedSession(
    svc,
    { id: "u2", name: "User Two", email: "u2@example.test" },
    "__Secure-svc.session_token",
  );
  for (const path of ["/api/auth/oauth2/create-client", "/api/auth/oauth2/register"]) {
    const response = await svc.handle(
      new Request(`${DEPLOYED.AUTH_BASE_URL}${path}`, {
        method: "POST",
        headers: { cookie, origin: DEPLOYED.AUTH_BASE_URL, "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["https://evil.test/cb"], client_name: "x" }),
      }),
    );
    assert.equal(response.status, 404, path);
    await response.body?.cancel();
  }
  const count = await svc.database.client.execute("SELECT count(*) AS n FROM oauth_client");
  assert.equal(Number(count.rows[0].n), 0, "no client was created");
});

Deno.test("get-session never carries the bare session token", async () => {
  await using svc = await startAuthService(DEPLOYED);
  const cookie = await seedSession(
    svc,
    { id: "u3", name: "User Three", email: "u3@example.test" },
    "__Secure-svc.session_token",
  );
  const response = await svc.handle(
    new Request(`${DEPLOYED.AUTH_BASE_URL}/api/auth/get-session`, {
      headers: { cookie, origin: "https://app.example.test" },
    }),
  );
  assert.equal(response.headers.get("access-control-allow-origin"), "https://app.example.test");
  const body = await response.json();
  assert.equal(body.user.id, "u3");
  assert.ok(body.session.id, "the session is described");
  assert.equal(body.session.token, undefined, "no token in the body");
  const token = cookie.split("=")[1].split(".")[0];
  assert.ok(!JSON.stringify(body).includes(token), "the token appears nowhere");
});
