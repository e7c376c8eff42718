/**
 * Host rules over raw HTTP (spec, Errors A): `deno task preview` serves health to any Host and refuses pages
 * and auth routes for a non-loopback Host with the plain-text 403 naming the host and the address to use;
 * `deno task dev` refuses every non-loopback Host, health included.
 */
import assert from "node:assert/strict";
import { rawGet, startSuiteTask } from "./suite_process.ts";

const FOREIGN = "preview.example.test";
const REFUSED_PATHS = [
  "/sign-in",
  "/consent",
  "/api/auth/.well-known/openid-configuration",
  "/api/auth/jwks",
  "/api/auth/oauth2/authorize?client_id=x",
  "/.well-known/oauth-authorization-server/api/auth",
];

function assertRefused(
  response: { status: number; headers: Map<string, string>; body: string },
  host: string,
  baseUrl: string,
) {
  assert.equal(response.status, 403);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
  assert.ok(response.body.includes(JSON.stringify(host)), `names the host: ${response.body}`);
  assert.ok(response.body.includes(`Use ${baseUrl} instead`), `names the address to use: ${response.body}`);
}

Deno.test({
  name: "deno task preview answers health to any host but pages and auth routes to loopback hosts only",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using suite = await startSuiteTask("preview");
    const port = suite.authPort;
    for (const host of [FOREIGN, `${FOREIGN}:${port}`, "192.168.1.20", "[fe80::1]"]) {
      const health = await rawGet(port, "/api/health", host);
      assert.equal(health.status, 200, `health for ${host}`);
      assert.deepEqual(JSON.parse(health.body), { status: "ok", service: "auth" });
    }
    for (const path of REFUSED_PATHS) {
      assertRefused(await rawGet(port, path, `${FOREIGN}:${port}`), `${FOREIGN}:${port}`, suite.baseUrl);
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
      assert.equal((await rawGet(port, "/sign-in", host)).status, 200, `sign-in for ${host}`);
      assert.equal((await rawGet(port, "/api/auth/jwks", host)).status, 200, `jwks for ${host}`);
    }
    assert.match(suite.stderr(), /preview: health answers any host/);
  },
});

Deno.test({
  name: "deno task dev refuses every non-loopback host, health included",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using suite = await startSuiteTask("dev");
    const port = suite.authPort;
    for (const path of ["/api/health", ...REFUSED_PATHS]) {
      assertRefused(await rawGet(port, path, `${FOREIGN}:${port}`), `${FOREIGN}:${port}`, suite.baseUrl);
    }
    assertRefused(await rawGet(port, "/api/health", "192.168.1.20"), "192.168.1.20", suite.baseUrl);
    const health = await rawGet(port, "/api/health", `localhost:${port}`);
    assert.equal(health.status, 200);
    assert.equal((await rawGet(port, "/sign-in", `127.0.0.1:${port}`)).status, 200);
  },
});
