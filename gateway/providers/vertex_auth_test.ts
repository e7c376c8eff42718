import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { GatewayError } from "../errors.ts";
import type { UpstreamFetch } from "../upstream/response.ts";
import { createAccessTokenSource, JWT_BEARER_GRANT } from "./vertex_auth.ts";

const PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs8",
  format: "pem",
})
  .toString();
const KEY = {
  clientEmail: "sa@p.iam.gserviceaccount.com",
  privateKey: PEM,
  privateKeyId: "k1",
  tokenUri: "https://t/token",
};

function tokenEndpoint(answer: () => { status: number; body: unknown }) {
  const forms: URLSearchParams[] = [];
  let gate: Promise<void> = Promise.resolve();
  const fetch: UpstreamFetch = async (_url, init) => {
    forms.push(new URLSearchParams(String(init.body)));
    await gate;
    const { status, body } = answer();
    return new Response(JSON.stringify(body), { status });
  };
  return { fetch, forms, hold: (p: Promise<void>) => (gate = p) };
}

Deno.test("a service-account token is minted once, shared by concurrent callers and cached", async () => {
  let n = 0;
  const endpoint = tokenEndpoint(() => ({
    status: 200,
    body: { access_token: `tok-${++n}`, expires_in: 3600 },
  }));
  let release!: () => void;
  endpoint.hold(new Promise((resolve) => (release = resolve)));
  let now = 1_700_000_000_000;
  const source = createAccessTokenSource("vx", { type: "service_account", key: KEY }, {
    fetch: endpoint.fetch,
    now: () => now,
  });
  const waiting = Promise.all([source.token(), source.token(), source.token()]);
  await new Promise((resolve) => setTimeout(resolve, 10));
  release();
  assert.deepEqual(await waiting, ["tok-1", "tok-1", "tok-1"]);
  assert.equal(endpoint.forms.length, 1);
  const form = endpoint.forms[0];
  assert.equal(form.get("grant_type"), JWT_BEARER_GRANT);
  const claims = decodeJwt(form.get("assertion")!);
  assert.equal(claims.iss, KEY.clientEmail);
  assert.equal(claims.aud, KEY.tokenUri);
  assert.equal(claims.exp! - claims.iat!, 3600);
  assert.equal(claims.iat, now / 1000);
  assert.deepEqual(decodeProtectedHeader(form.get("assertion")!), { alg: "RS256", typ: "JWT", kid: "k1" });
  now += 54 * 60_000; // within the token's life minus the refresh margin
  assert.equal(await source.token(), "tok-1");
  now += 2 * 60_000; // inside the last five minutes: replaced before it can lapse in flight
  assert.equal(await source.token(), "tok-2");
  source.invalidate();
  assert.equal(await source.token(), "tok-3");
});

Deno.test("a refused grant is a 502 naming the provider and the OAuth error, never the assertion", async () => {
  const endpoint = tokenEndpoint(() => ({
    status: 400,
    body: { error: "invalid_grant", error_description: "Invalid JWT Signature." },
  }));
  const source = createAccessTokenSource("vx", { type: "service_account", key: KEY }, {
    fetch: endpoint.fetch,
  });
  const error = await source.token().catch((e) => e);
  assert.ok(error instanceof GatewayError);
  assert.equal(error.status, 502);
  assert.equal(
    error.message,
    "upstream provider vx refused the gateway's credentials (token endpoint HTTP 400 invalid_grant)",
  );
  // A failure is not cached: the next call tries again.
  await source.token().catch(() => {});
  assert.equal(endpoint.forms.length, 2);
});

Deno.test("a given access token is used as is", async () => {
  const source = createAccessTokenSource("vx", { type: "token", token: "ya29.given" }, {
    fetch: () => Promise.reject(new Error("no network expected")),
  });
  assert.equal(await source.token(), "ya29.given");
});
