import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import { TokenIntrospector } from "./introspection.ts";

const ISSUER = "http://op.test/api/auth";
const TOKEN = "tok_" + "a".repeat(40);

/** A stand-in OP: discovery plus an introspection answer per token; `down` makes every call fail. */
function standInOp(answers: Record<string, Record<string, unknown>>) {
  const state = { down: false, calls: 0, attempts: 0, lastAuth: "" };
  const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    state.attempts++;
    if (state.down) return Promise.reject(new TypeError("connection refused"));
    if (url.endsWith("/.well-known/openid-configuration")) {
      return Promise.resolve(
        Response.json({ issuer: ISSUER, introspection_endpoint: `${ISSUER}/oauth2/introspect` }),
      );
    }
    state.calls++;
    state.lastAuth = new Headers(init?.headers).get("authorization") ?? "";
    const token = new URLSearchParams(String(init?.body)).get("token")!;
    return Promise.resolve(Response.json(answers[token] ?? { active: false }));
  }) as typeof fetch;
  return { state, fetchImpl };
}

function live(overrides: Record<string, unknown> = {}) {
  return {
    active: true,
    token_type: "Bearer",
    iss: ISSUER,
    client_id: "gw",
    sub: "u1",
    groups: ["Acme", "acme/ml"],
    exp: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  };
}

function introspector(fetchImpl: typeof fetch, now = () => Date.now(), tokenClients = ["cli"]) {
  return new TokenIntrospector({
    issuer: ISSUER,
    clientId: "gw",
    clientSecret: "s3cret",
    tokenClients,
    cacheMs: 30_000,
    timeoutMs: 1_000,
    fetch: fetchImpl,
    now,
  });
}

Deno.test("introspection admits a live token once and answers again from the cache", async () => {
  const op = standInOp({ [TOKEN]: live() });
  const v = introspector(op.fetchImpl);
  const first = await v.verify(TOKEN);
  assert.deepEqual(first && { sub: first.sub, groups: first.groups }, {
    sub: "u1",
    groups: ["acme", "acme/ml"],
  });
  assert.equal(await v.verify(TOKEN), first);
  assert.equal(op.state.calls, 1);
  assert.equal(op.state.lastAuth, `Basic ${btoa("gw:s3cret")}`);
});

Deno.test("a revoked token is refused once its cached decision expires", async () => {
  const answers: Record<string, Record<string, unknown>> = { [TOKEN]: live() };
  const op = standInOp(answers);
  let now = Date.now();
  const v = introspector(op.fetchImpl, () => now);
  assert.ok(await v.verify(TOKEN));
  answers[TOKEN] = { active: false };
  now += 29_000;
  assert.ok(await v.verify(TOKEN), "within the cache period the decision holds");
  now += 2_000;
  assert.equal(await v.verify(TOKEN), null);
});

Deno.test("introspection refuses another client's token, another audience, a refresh token and another issuer", async () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["unknown client", live({ client_id: "other" })],
    ["accepted client without the gateway as audience", live({ client_id: "cli" })],
    ["accepted client for another audience", live({ client_id: "cli", aud: ["someone-else"] })],
    ["own client for another audience", live({ aud: "someone-else" })],
    ["refresh token (no token_type)", live({ token_type: undefined })],
    ["another issuer", live({ iss: "http://evil.test" })],
    ["expired", live({ exp: Math.floor(Date.now() / 1000) - 5 })],
    ["no sub", live({ sub: "" })],
  ];
  for (const [name, answer] of cases) {
    const op = standInOp({ [TOKEN]: answer });
    assert.equal(await introspector(op.fetchImpl).verify(TOKEN), null, name);
  }
  const op = standInOp({ [TOKEN]: live({ client_id: "cli", aud: ["gw"] }) });
  assert.equal(
    (await introspector(op.fetchImpl).verify(TOKEN))?.sub,
    "u1",
    "a CLI token meant for the gateway",
  );
});

Deno.test("malformed and oversized tokens are refused without a round trip", async () => {
  const op = standInOp({});
  const v = introspector(op.fetchImpl);
  for (
    const bad of [
      "short",
      "has space in it for sure",
      "x".repeat(4097),
      "tok\n" + "a".repeat(30),
      "ü".repeat(20),
    ]
  ) {
    assert.equal(await v.verify(bad), null);
  }
  assert.equal(op.state.calls, 0);
});

Deno.test("OP unreachable: cached decisions hold until they expire, then 503 overloaded_error naming the identity service", async () => {
  const other = "tok_" + "b".repeat(40);
  const op = standInOp({ [TOKEN]: live() });
  let now = Date.now();
  const v = introspector(op.fetchImpl, () => now);
  assert.ok(await v.verify(TOKEN));
  op.state.down = true;
  assert.ok(await v.verify(TOKEN), "cached decision");
  await assert.rejects(v.verify(other), (e: unknown) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.status, 503);
    assert.equal(e.type, "overloaded_error");
    assert.match(e.message, /identity service \(http:\/\/op\.test\/api\/auth\)/);
    assert.ok(!e.message.includes(other));
    return true;
  });
  const attempts = op.state.attempts;
  await assert.rejects(v.verify("tok_" + "c".repeat(40)), (e: unknown) => e instanceof GatewayError);
  assert.equal(op.state.attempts, attempts, "within a second of a failure the OP is not asked again");
  now += 31_000;
  await assert.rejects(v.verify(TOKEN), (e: unknown) => e instanceof GatewayError && e.status === 503);
  op.state.down = false;
  now += 1_001;
  assert.ok(await v.verify(TOKEN), "the OP is asked again once it answers");
});

Deno.test("parallel first uses of one token share one introspection", async () => {
  const op = standInOp({ [TOKEN]: live() });
  const v = introspector(op.fetchImpl);
  const results = await Promise.all(Array.from({ length: 20 }, () => v.verify(TOKEN)));
  assert.ok(results.every((r) => r?.sub === "u1"));
  assert.equal(op.state.calls, 1);
});
