/**
 * The signing key is created once: concurrent first token requests (one service) and concurrent first JWKS
 * requests (two service instances over one database, like two cold edge isolates) end with one key.
 */
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { decodeProtectedHeader } from "jose";
import { silentLogger } from "@switchyard/lib/log.ts";
import { createAuthApp } from "../../auth/app.tsx";
import { openAuthDatabase } from "../../auth/better_auth/database.ts";
import { authorizeInBrowser, Browser, startAuthService } from "./harness.ts";
import { basic, discover, postForm, prepareAuthorization } from "./rp.ts";

const REDIRECT = "http://127.0.0.1:9/cb";
const CONCURRENT = 6;

async function keyCount(
  svc: { database: { client: { execute(sql: string): Promise<{ rows: unknown[] }> } } },
) {
  const result = await svc.database.client.execute("SELECT COUNT(*) AS n FROM jwks");
  return Number((result.rows[0] as { n: number }).n);
}

Deno.test("concurrent first token requests create exactly one signing key, and every ID token uses it", async () => {
  await using svc = await startAuthService();
  const reg = await svc.register({ redirectUris: [REDIRECT], skipConsent: true });
  const as = await discover(svc.issuer);
  const browser = new Browser();
  const grants: { code: string; verifier: string }[] = [];
  for (let i = 0; i < CONCURRENT; i++) {
    const prepared = await prepareAuthorization(as, reg.client_id, REDIRECT);
    const { callback } = await authorizeInBrowser(browser, prepared.url.href, REDIRECT);
    grants.push({ code: callback.searchParams.get("code")!, verifier: prepared.verifier });
  }
  assert.equal(await keyCount(svc), 0, "no key exists before the first token request");
  const responses = await Promise.all(grants.map((g) =>
    postForm(as.token_endpoint!, {
      grant_type: "authorization_code",
      code: g.code,
      code_verifier: g.verifier,
      redirect_uri: REDIRECT,
    }, { authorization: basic(reg.client_id, reg.client_secret!) })
  ));
  const bodies = await Promise.all(responses.map((r) => r.json() as Promise<oauth.TokenEndpointResponse>));
  assert.deepEqual(responses.map((r) => r.status), grants.map(() => 200));
  assert.equal(await keyCount(svc), 1, "one signing key");
  const kids = new Set(bodies.map((b) => decodeProtectedHeader(b.id_token!).kid));
  assert.equal(kids.size, 1, "every ID token names the same key");
  const jwks = await (await fetch(as.jwks_uri!)).json() as { keys: { kid: string }[] };
  assert.deepEqual(jwks.keys.map((k) => k.kid), [...kids]);
});

Deno.test("two service instances over one fresh database agree on a single key under concurrent JWKS requests", async () => {
  await using svc = await startAuthService();
  const second = await openAuthDatabase(svc.config.AUTH_DATABASE_URL);
  try {
    const other = createAuthApp(svc.config, { logger: silentLogger, database: second });
    const info = { remoteAddr: { transport: "tcp" as const, hostname: "127.0.0.1", port: 50000 } };
    const jwksUrl = `${svc.issuer}/jwks`;
    const responses = await Promise.all(
      Array.from(
        { length: CONCURRENT },
        (_, i) =>
          i % 2 === 0
            ? svc.handle(new Request(jwksUrl))
            : Promise.resolve(other.fetch(new Request(jwksUrl), { info })),
      ),
    );
    const sets = await Promise.all(responses.map((r) => r.json() as Promise<{ keys: { kid: string }[] }>));
    assert.equal(await keyCount(svc), 1, "one signing key in the database");
    for (const set of sets) assert.equal(set.keys.length, 1, "each answer publishes one key");
    assert.equal(new Set(sets.map((s) => s.keys[0].kid)).size, 1, "both instances publish the same key");
  } finally {
    second.client.close();
  }
});
