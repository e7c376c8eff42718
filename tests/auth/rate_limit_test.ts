/**
 * Item 7 of the fail-closed work: deployed rate limiting identifies clients the way the operator's edge
 * does (AUTH_CLIENT_IP), never lets a client pick its bucket, never shares one bucket between everyone,
 * counts failed client authentication, and says when to retry.
 */
import assert from "node:assert/strict";
import { readAuthConfig } from "../../auth/config.ts";
import { startAuthService } from "./harness.ts";

const BASE = "https://auth.example.test";
const DEPLOYED = {
  AUTH_LOCAL_MODE: "false",
  AUTH_BASE_URL: BASE,
  AUTH_COOKIE_DOMAIN: ".example.test",
  AUTH_SECRET: "0123456789abcdef0123456789abcdef0123456789ab",
  SOCIAL_CLIENT_ID: "gh-client-id",
  SOCIAL_CLIENT_SECRET: "gh-client-secret",
  AUTH_GITHUB_ALLOW_ANY: "true",
};

/** A token request with a wrong secret for `clientId`. */
function badTokenRequest(clientId: string, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}/api/auth/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: "x",
      client_id: clientId,
      client_secret: "wrong",
    }),
  });
}

Deno.test("deployed start-up refuses a configuration without AUTH_CLIENT_IP, naming the key", () => {
  assert.throws(() => readAuthConfig(DEPLOYED), /AUTH_CLIENT_IP: is required outside local mode/);
  assert.throws(
    () => readAuthConfig({ ...DEPLOYED, AUTH_CLIENT_IP: "x-forwarded-for" }),
    /AUTH_CLIENT_IP: expected socket, header:<name>/,
  );
  for (const value of ["socket", "header:cf-connecting-ip", "forwarded-for:1", "forwarded-for:2"]) {
    assert.ok(readAuthConfig({ ...DEPLOYED, AUTH_CLIENT_IP: value }).AUTH_CLIENT_IP, value);
  }
  assert.throws(() => readAuthConfig({ ...DEPLOYED, AUTH_CLIENT_IP: "forwarded-for:0" }), /AUTH_CLIENT_IP/);
});

Deno.test("socket mode: the peer address is the client; X-Forwarded-For is ignored; 429 has Retry-After", async () => {
  await using svc = await startAuthService({ ...DEPLOYED, AUTH_CLIENT_IP: "socket" });
  const statuses: number[] = [];
  let limited: Response | undefined;
  for (let i = 0; i < 70; i++) {
    // Rotating the claimed address must not reset the limit.
    const r = await svc.handle(
      badTokenRequest(`client-${i}`, { "x-forwarded-for": `198.51.100.${i}` }),
      "192.0.2.7",
    );
    statuses.push(r.status);
    if (r.status === 429) limited ??= r;
    else await r.body?.cancel();
  }
  assert.ok(limited, `the attacker is limited: ${[...new Set(statuses)]}`);
  const retryAfter = Number(limited.headers.get("retry-after"));
  assert.ok(retryAfter >= 1 && retryAfter <= 300, `Retry-After is a delay in seconds: ${retryAfter}`);
  assert.equal((await limited.json()).error, "too_many_requests");
  // Another client is not locked out by the attacker.
  const other = await svc.handle(new Request(`${BASE}/api/auth/jwks`), "192.0.2.8");
  assert.equal(other.status, 200, "another address is served");
  await other.body?.cancel();
  const otherToken = await svc.handle(badTokenRequest("someone"), "192.0.2.8");
  assert.equal(otherToken.status, 401, "another address still reaches client authentication");
  await otherToken.body?.cancel();
});

Deno.test("failed client authentication is limited per address before the 401 is answered", async () => {
  await using svc = await startAuthService({ ...DEPLOYED, AUTH_CLIENT_IP: "socket" });
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    const r = await svc.handle(badTokenRequest(`client-${i}`), "192.0.2.20");
    statuses.push(r.status);
    await r.body?.cancel();
  }
  assert.deepEqual(statuses.slice(0, 10), Array(10).fill(401));
  assert.deepEqual(statuses.slice(10), [429, 429], "after 10 failures the address gets 429, not 401");
  for (const path of ["introspect", "revoke"]) {
    const r = await svc.handle(
      new Request(`${BASE}/api/auth/oauth2/${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "token=x&client_id=c&client_secret=s",
      }),
      "192.0.2.20",
    );
    assert.equal(r.status, 429, path);
    assert.ok(r.headers.get("retry-after"));
    await r.body?.cancel();
  }
});

Deno.test("failed authentication of one client id is limited across addresses", async () => {
  await using svc = await startAuthService({ ...DEPLOYED, AUTH_CLIENT_IP: "socket" });
  const statuses: number[] = [];
  for (let i = 0; i < 32; i++) {
    const r = await svc.handle(badTokenRequest("victim-client"), `192.0.2.${100 + i}`);
    statuses.push(r.status);
    await r.body?.cancel();
  }
  assert.equal(statuses.filter((s) => s === 401).length, 30);
  assert.deepEqual(statuses.slice(30), [429, 429]);
  const basic = await svc.handle(
    badTokenRequest("ignored", { authorization: `Basic ${btoa("victim-client:guess")}` }),
    "192.0.2.250",
  );
  assert.equal(basic.status, 429, "the client id is read from Basic credentials too");
  await basic.body?.cancel();
});

Deno.test("header mode trusts only the edge's header; a request without it is its own peer's", async () => {
  await using svc = await startAuthService({ ...DEPLOYED, AUTH_CLIENT_IP: "header:cf-connecting-ip" });
  for (let i = 0; i < 10; i++) {
    const r = await svc.handle(badTokenRequest(`c${i}`, { "cf-connecting-ip": "203.0.113.1" }), "10.0.0.1");
    await r.body?.cancel();
  }
  const same = await svc.handle(badTokenRequest("c", { "cf-connecting-ip": "203.0.113.1" }), "10.0.0.1");
  assert.equal(same.status, 429);
  await same.body?.cancel();
  const neighbour = await svc.handle(badTokenRequest("c", { "cf-connecting-ip": "203.0.113.2" }), "10.0.0.1");
  assert.equal(neighbour.status, 401, "another client behind the same edge address is not limited");
  await neighbour.body?.cancel();
  const bypass = await svc.handle(badTokenRequest("c"), "10.0.0.1");
  assert.equal(bypass.status, 401, "no header: the peer, not a bucket shared by everyone");
  await bypass.body?.cancel();
});

Deno.test("forwarded-for:n takes the n-th address from the right; the client's own prefix is ignored", async () => {
  await using svc = await startAuthService({ ...DEPLOYED, AUTH_CLIENT_IP: "forwarded-for:1" });
  for (let i = 0; i < 10; i++) {
    const r = await svc.handle(
      badTokenRequest(`c${i}`, { "x-forwarded-for": `198.51.100.${i}, 203.0.113.5` }),
      "10.0.0.1",
    );
    await r.body?.cancel();
  }
  const rotated = await svc.handle(
    badTokenRequest("c", { "x-forwarded-for": "198.51.100.200, 203.0.113.5" }),
    "10.0.0.1",
  );
  assert.equal(rotated.status, 429, "rotating the left-hand part does not escape the limit");
  await rotated.body?.cancel();
  const other = await svc.handle(badTokenRequest("c", { "x-forwarded-for": "203.0.113.6" }), "10.0.0.1");
  assert.equal(other.status, 401);
  await other.body?.cancel();
});
