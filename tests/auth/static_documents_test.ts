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
  for (const path of ["/api/auth/jwks", "/api/auth/.well-known/openid-configuration"]) {
    // Loaded into memory first, so the refusal is the answer of the path that skips the router.
    const loaded = await svc.handle(new Request(`${svc.url}${path}`));
    assert.equal(loaded.status, 200, path);
    await loaded.body?.cancel();
    const response = await svc.handle(
      new Request(`${svc.url}${path}`, { headers: { host: "evil.example:37960" } }),
    );
    assert.equal(response.status, 403, path);
    await response.body?.cancel();
  }
});

Deno.test("a document served from memory is the routed answer: same body, headers and HEAD/304 behaviour", async () => {
  await using svc = await startAuthService();
  const path = "/api/auth/.well-known/openid-configuration";
  const routed = await svc.handle(new Request(`${svc.url}${path}`));
  const routedBody = await routed.text();
  const cached = await svc.handle(new Request(`${svc.url}${path}`));
  assert.equal(await cached.text(), routedBody);
  for (const name of ["content-type", "cache-control", "etag", "access-control-allow-origin"]) {
    assert.equal(cached.headers.get(name), routed.headers.get(name), name);
  }
  const head = await svc.handle(new Request(`${svc.url}${path}`, { method: "HEAD" }));
  assert.equal(head.status, 200);
  assert.equal(await head.text(), "");
  const notModified = await svc.handle(
    new Request(`${svc.url}${path}`, { headers: { "if-none-match": `W/${routed.headers.get("etag")}` } }),
  );
  assert.equal(notModified.status, 304);
  await notModified.body?.cancel();
  const post = await svc.handle(new Request(`${svc.url}${path}`, { method: "POST" }));
  assert.notEqual(post.status, 200, "only GET and HEAD are documents");
  await post.body?.cancel();
});
