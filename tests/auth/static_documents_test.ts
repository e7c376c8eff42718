/** Discovery and JWKS from memory: ETag/304, cache headers, and a new key published within a second. */
import assert from "node:assert/strict";
import { startAuthService } from "./harness.ts";

Deno.test("discovery and JWKS carry ETags and answer a matching If-None-Match with 304", async () => {
  await using svc = await startAuthService();
  for (const path of ["/api/auth/.well-known/openid-configuration", "/api/auth/jwks"]) {
    const first = await fetch(`${svc.url}${path}`);
    const body = await first.json();
    assert.equal(first.status, 200);
    const etag = first.headers.get("etag");
    assert.ok(etag, path);
    assert.match(first.headers.get("cache-control") ?? "", /public, max-age=\d+/);
    const again = await fetch(`${svc.url}${path}`, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304, path);
    await again.body?.cancel();
    const other = await fetch(`${svc.url}${path}`, { headers: { "if-none-match": '"other"' } });
    assert.deepEqual(await other.json(), body, "the same document");
  }
  const discovery = await (await fetch(`${svc.issuer}/.well-known/openid-configuration`)).json();
  assert.equal(discovery.issuer, svc.issuer);
});

Deno.test("a key added to the table (rotation in another process) is published within a second", async () => {
  await using svc = await startAuthService();
  const before = await (await fetch(`${svc.issuer}/jwks`)).json();
  assert.equal(before.keys.length, 1);
  const row = (await svc.database.client.execute("SELECT * FROM jwks")).rows[0];
  await svc.database.client.execute({
    sql: "INSERT INTO jwks (id, public_key, private_key, created_at, expires_at) VALUES (?, ?, ?, ?, NULL)",
    args: ["second-key", row.public_key, row.private_key, Number(row.created_at) + 1],
  });
  await new Promise((r) => setTimeout(r, 1100));
  const after = await (await fetch(`${svc.issuer}/jwks`)).json();
  assert.deepEqual(
    after.keys.map((k: { kid: string }) => k.kid).sort(),
    [before.keys[0].kid, "second-key"].sort(),
  );
});

Deno.test("local mode's Host allow-list still applies to the documents served from memory", async () => {
  await using svc = await startAuthService();
  const response = await svc.handle(
    new Request(`${svc.url}/api/auth/jwks`, { headers: { host: "evil.example:37960" } }),
  );
  assert.equal(response.status, 403);
  await response.body?.cancel();
});
