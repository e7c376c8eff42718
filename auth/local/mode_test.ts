import assert from "node:assert/strict";
import {
  asOrigin,
  checkLocalOrigin,
  effectiveOrigin,
  isAllowedLocalHost,
  isLoopbackAddress,
  parseHost,
  wantsSecureCookies,
} from "./mode.ts";

const BASE = "http://localhost:37960";

Deno.test("parseHost splits names and ports, keeping IPv6 brackets", () => {
  assert.deepEqual(parseHost("localhost:37960"), { hostname: "localhost", port: "37960" });
  assert.deepEqual(parseHost("[::1]:37960"), { hostname: "[::1]", port: "37960" });
  assert.deepEqual(parseHost("[::1]"), { hostname: "[::1]", port: undefined });
  assert.deepEqual(parseHost("LOCALHOST"), { hostname: "localhost", port: undefined });
});

Deno.test("isAllowedLocalHost accepts loopback names with no port or the service port only", () => {
  for (
    const host of ["localhost", "127.0.0.1", "[::1]", "localhost:37960", "127.0.0.1:37960", "[::1]:37960"]
  ) {
    assert.ok(isAllowedLocalHost(host, "37960"), host);
  }
  for (
    const host of [undefined, "", "localhost:80", "127.0.0.2", "::1", "evil.test", "localhost.evil.test"]
  ) {
    assert.ok(!isAllowedLocalHost(host, "37960"), String(host));
  }
});

Deno.test("asOrigin accepts exact http(s) origins only", () => {
  assert.equal(asOrigin("https://app.localhost:5173"), "https://app.localhost:5173");
  assert.equal(asOrigin("http://localhost:5173/"), "http://localhost:5173");
  for (const bad of ["https://a.test/path", "javascript:alert(1)", "null", "", "file:///x"]) {
    assert.equal(asOrigin(bad), undefined, bad);
  }
});

Deno.test("isLoopbackAddress recognises IPv4, IPv6 and mapped loopback peers", () => {
  for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) assert.ok(isLoopbackAddress(a), a);
  for (const a of [undefined, "10.0.0.1", "::ffff:10.0.0.1", "fe80::1"]) {
    assert.ok(!isLoopbackAddress(a), String(a));
  }
});

Deno.test("checkLocalOrigin compares Origin with the dev header, else with the service's own origins", () => {
  const req = (headers: Record<string, string>) => new Request(`${BASE}/x`, { method: "POST", headers });
  assert.equal(
    checkLocalOrigin(
      req({ origin: "https://a.test", "x-svc-auth-dev-origin": "https://a.test" }),
      BASE,
      "127.0.0.1",
    ),
    undefined,
  );
  assert.equal(checkLocalOrigin(req({ origin: "http://127.0.0.1:37960" }), BASE, "127.0.0.1"), undefined);
  assert.equal(checkLocalOrigin(req({}), BASE, "::1"), undefined);
  assert.equal(
    checkLocalOrigin(
      req({ origin: "https://b.test", "x-svc-auth-dev-origin": "https://a.test" }),
      BASE,
      "127.0.0.1",
    )?.status,
    403,
  );
  assert.equal(checkLocalOrigin(req({}), BASE, "192.168.0.2")?.status, 403);
});

Deno.test("effectiveOrigin trusts Origin null only for same-origin fetches", () => {
  const req = (site: string) =>
    new Request(`${BASE}/consent`, { headers: { origin: "null", "sec-fetch-site": site } });
  assert.equal(effectiveOrigin(req("same-origin"), BASE), BASE);
  assert.equal(effectiveOrigin(req("cross-site"), BASE), "null");
});

Deno.test("wantsSecureCookies follows the dev header's scheme, else a __Secure- cookie", () => {
  const req = (headers: Record<string, string>) => new Request(`${BASE}/x`, { headers });
  assert.equal(wantsSecureCookies(req({ "x-svc-auth-dev-origin": "https://a.test" })), true);
  assert.equal(
    wantsSecureCookies(
      req({ "x-svc-auth-dev-origin": "http://a.test", cookie: "__Secure-svc.session_token=x" }),
    ),
    false,
  );
  assert.equal(wantsSecureCookies(req({ cookie: "a=1; __Secure-svc.session_token=x" })), true);
  assert.equal(wantsSecureCookies(req({ cookie: "svc.session_token=x" })), false);
});
