/** Conformance: oidcc-discovery-endpoint-verification on all three discovery URLs, and the JWKS. */
import assert from "node:assert/strict";
import { startAuthService } from "./harness.ts";
import { discover } from "./rp.ts";

Deno.test("the three discovery URLs serve the same validated metadata with issuer {base}/api/auth", async () => {
  await using svc = await startAuthService();
  const urls = [
    `${svc.url}/api/auth/.well-known/openid-configuration`,
    `${svc.url}/api/auth/.well-known/oauth-authorization-server`,
    `${svc.url}/.well-known/oauth-authorization-server/api/auth`,
  ];
  const bodies = [];
  for (const url of urls) {
    const response = await fetch(url);
    assert.equal(response.status, 200, url);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    bodies.push(await response.json());
  }
  assert.deepEqual(bodies[1], bodies[0]);
  assert.deepEqual(bodies[2], bodies[0]);
  const as = await discover(svc.issuer);
  assert.equal(as.issuer, svc.issuer);
  assert.deepEqual(as.response_types_supported, ["code"]);
  assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
  assert.deepEqual(as.id_token_signing_alg_values_supported, ["RS256"]);
  assert.deepEqual(as.scopes_supported, ["openid", "profile", "email", "offline_access", "groups"]);
  assert.ok(
    (as.claims_supported as string[] | undefined)?.includes("groups"),
    "the groups claim is advertised",
  );
  assert.equal(as.authorization_response_iss_parameter_supported, true);
  for (const key of ["authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"] as const) {
    assert.ok(as[key]?.startsWith(`${svc.issuer}/`), key);
  }
  assert.ok(as.introspection_endpoint && as.revocation_endpoint && as.end_session_endpoint);
  const root = await fetch(`${svc.url}/.well-known/openid-configuration`);
  assert.equal(root.status, 404, "OIDC discovery appends to the issuer path only");
  await root.body?.cancel();
});

Deno.test("the JWKS publishes RS256 keys whose kid signs the ID tokens", async () => {
  await using svc = await startAuthService();
  const as = await discover(svc.issuer);
  const jwks = await (await fetch(as.jwks_uri!)).json() as { keys: Record<string, string>[] };
  assert.ok(jwks.keys.length >= 1);
  for (const key of jwks.keys) {
    assert.equal(key.kty, "RSA");
    assert.equal(key.alg, "RS256");
    assert.ok(key.kid && key.n && key.e);
    assert.equal(key.d, undefined, "no private material");
  }
  const stored = await svc.database.client.execute("SELECT private_key FROM jwks");
  assert.ok(!String(stored.rows[0].private_key).includes('"d"'), "the private key is encrypted at rest");
});

Deno.test("discovery answers HEAD and refuses other methods", async () => {
  await using svc = await startAuthService();
  const head = await fetch(`${svc.url}/api/auth/.well-known/openid-configuration`, { method: "HEAD" });
  assert.equal(head.status, 200);
  const post = await fetch(`${svc.url}/.well-known/oauth-authorization-server/api/auth`, {
    method: "POST",
    headers: { origin: svc.url },
  });
  assert.ok(post.status === 404 || post.status === 405, `got ${post.status}`);
  await post.body?.cancel();
});
