/**
 * Suite identities end to end: two gateway instances on one database and one Redis accept the OP's access
 * tokens (introspected by a stand-in OP) and credentials exchanged for GitHub Actions OIDC tokens (a stand-in
 * issuer with its own JWKS); policies apply per principal across both instances; the ledger, the usage report
 * and the access log carry the principal and never a token; OP outages fail closed.
 */
import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { startServer } from "@switchyard/lib/serve.ts";
import { createGatewayApp } from "../../gateway/app.ts";
import { KeyVerifier } from "../../gateway/keys/verifier.ts";
import { createIdentities } from "../../gateway/identity/mod.ts";
import { PolicyStore } from "../../gateway/identity/policy_store.ts";
import { usageReport } from "../../gateway/usage/report.ts";
import { type Harness, startHarness } from "./harness.ts";
import { startRedis } from "./redis_server.ts";
import { type OpStandIn, startOpStandIn } from "./op_stand_in.ts";
import { type GithubIssuerStandIn, runClaims, startGithubIssuer } from "./github_oidc_stand_in.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { model: "openai/fx-text", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
const AUDIENCE = "https://gateway.test";
const SECRET = "s".repeat(48);

interface Setup {
  h: Harness;
  op: OpStandIn;
  gh: GithubIssuerStandIn;
  b: { url: string; logs: string[]; close(): Promise<void> };
  policies: PolicyStore;
  close(): Promise<void>;
}

async function setup(cacheMs = 400): Promise<Setup> {
  const redis = await startRedis();
  const op = await startOpStandIn("gw", "gw-secret");
  const gh = await startGithubIssuer(AUDIENCE);
  const h = await startHarness({
    GATEWAY_REDIS_URL: redis.url,
    GATEWAY_OIDC_ISSUER: op.issuer,
    GATEWAY_OIDC_CLIENT_ID: "gw",
    GATEWAY_OIDC_CLIENT_SECRET: "gw-secret",
    GATEWAY_OIDC_TOKEN_CLIENTS: "cli",
    GATEWAY_IDENTITY_CACHE_MS: String(cacheMs),
    GATEWAY_IDENTITY_TIMEOUT_MS: "500",
    GATEWAY_IDENTITY_SECRET: SECRET,
    GATEWAY_GITHUB_OIDC: JSON.stringify({
      issuer: gh.issuer,
      audience: AUDIENCE,
      rules: [{ repository: "acme/*", ref: "refs/heads/main", policy: { rpm: 3 } }],
    }),
  });
  // A second instance: its own key cache, introspection cache, Redis connection and a captured log.
  const logs: string[] = [];
  const logger = createLogger({ level: "info", sink: (line) => logs.push(line) });
  const identities = createIdentities(h.config, {
    keys: new KeyVerifier(() => h.store.activeHashes(), { ttlMs: h.config.GATEWAY_KEY_CACHE_TTL_MS }),
    db: () => Promise.resolve(h.db as never),
    logger,
    policiesTtlMs: h.config.GATEWAY_KEY_CACHE_TTL_MS,
  });
  const app = createGatewayApp(h.config, {
    logger,
    keys: identities.check,
    githubOidc: identities.exchange,
    usage: { ledger: h.ledger, db: () => Promise.resolve(h.db) },
  });
  const server = await startServer(app.fetch, { port: 0 });
  const b = {
    url: server.url,
    logs,
    async close() {
      await server.shutdown();
      await app.close().catch(() => {});
    },
  };
  return {
    h,
    op,
    gh,
    b,
    policies: new PolicyStore(h.db as never),
    async close() {
      await b.close();
      await h.close();
      await op.close();
      await gh.close();
      await redis.close();
    },
  };
}

function post(url: string, headers: Record<string, string>, body: unknown = ask) {
  return fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const xApiKey = (token: string) => ({ "x-api-key": token });
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test(
  "OP tokens: deny by default, the most specific policy, limits per person across two instances",
  e2e,
  async () => {
    const s = await setup();
    try {
      const alice = s.op.issue("alice", ["acme"]);
      const bob = s.op.issue("bob", ["acme", "acme/ml"]);
      const refused = await post(s.h.url, bearer(alice));
      assert.equal(refused.status, 403);
      assert.match((await refused.json()).error.message, /no gateway policy admits user:alice/);

      await s.policies.set("default:user", { rpm: 4 });
      await s.policies.set("group:acme/ml", { rpm: 50, models: ["openai/fx-text"] });
      await settle(400); // past twice the policy snapshot's TTL
      for (let i = 0; i < 4; i++) {
        const r = await post(i % 2 ? s.b.url : s.h.url, i % 2 ? xApiKey(alice) : bearer(alice));
        assert.equal(r.status, 200, await r.text());
      }
      const fifth = await post(s.b.url, bearer(alice));
      assert.equal(fifth.status, 429);
      assert.match(
        (await fifth.json()).error.message,
        /user:alice is over its limit of 4 requests per minute/,
      );
      // Bob's team policy, counted apart from Alice.
      for (let i = 0; i < 6; i++) {
        assert.equal(
          (await post(i % 2 ? s.b.url : s.h.url, bearer(bob))).status,
          200,
        );
      }
      const otherModel = await post(s.h.url, bearer(bob), { ...ask, model: "mistral/fx-text" });
      assert.equal(otherModel.status, 403);
      // An API key still works beside them.
      assert.equal((await post(s.h.url, xApiKey(s.h.key))).status, 200);

      await s.h.ledger.flush();
      // Alice: 4 admitted and 1 over her limit (the refusal without a policy is not a request of hers yet).
      const byUser = await usageReport(s.h.db, { by: "user" });
      assert.deepEqual(byUser.groups?.map((g) => [g.group, g.requests]), [["user:alice", 5], [
        "user:bob",
        7,
      ]]);
      const rows = await s.h.db.selectFrom("gateway_usage").select(["key_id"]).execute();
      assert.ok(rows.some((r) => r.key_id.startsWith("key_")));
      const dbText = new TextDecoder().decode(await Deno.readFile(s.h.config.GATEWAY_DATABASE_URL.slice(5)));
      assert.ok(!dbText.includes(alice) && !dbText.includes(bob), "a token reached the database");
      const log = s.b.logs.join("\n");
      assert.match(log, /"key_id":"user:alice"/);
      assert.ok(!log.includes(alice) && !log.includes(bob), "a token reached the log");
    } finally {
      await s.close();
    }
  },
);

Deno.test(
  "OP tokens: revocation takes effect within the cache period; other clients' and malformed tokens get 401 without echo",
  e2e,
  async () => {
    const s = await setup(300);
    try {
      await s.policies.set("default:user", {});
      await settle(350);
      const token = s.op.issue("carol");
      assert.equal((await post(s.h.url, bearer(token))).status, 200);
      s.op.revoke(token);
      await settle(350);
      const revoked = await post(s.h.url, bearer(token));
      assert.equal(revoked.status, 401);
      assert.equal((await revoked.json()).error.type, "authentication_error");

      const foreign = s.op.issue("carol", [], { clientId: "someone-else", aud: ["gw"] });
      const cliNotForUs = s.op.issue("carol", [], { clientId: "cli", aud: ["another-api"] });
      const cliForUs = s.op.issue("carol", [], { clientId: "cli", aud: ["gw"] });
      assert.equal((await post(s.h.url, bearer(foreign))).status, 401);
      assert.equal((await post(s.h.url, bearer(cliNotForUs))).status, 401);
      assert.equal((await post(s.h.url, bearer(cliForUs))).status, 200);

      const before = s.op.calls;
      for (
        const bad of ["x".repeat(5000), "bad token with spaces", "short", "<script>alert(1)</script>xxxxxx"]
      ) {
        const r = await post(s.h.url, xApiKey(bad));
        const text = await r.text();
        assert.equal(r.status, 401, bad.slice(0, 20));
        assert.equal(JSON.parse(text).error.type, "authentication_error");
        assert.ok(!text.includes(bad.slice(0, 12)), "the token is echoed");
      }
      assert.equal(s.op.calls, before, "malformed tokens cost no introspection");
    } finally {
      await s.close();
    }
  },
);

Deno.test(
  "OP unreachable: cached decisions hold until they expire, then 503 overloaded_error naming the identity service",
  e2e,
  async () => {
    const s = await setup(600);
    try {
      await s.policies.set("default:user", {});
      await settle(350);
      const cached = s.op.issue("dave");
      const fresh = s.op.issue("erin");
      const t0 = Date.now();
      assert.equal((await post(s.h.url, bearer(cached))).status, 200);
      await s.op.down();
      assert.equal((await post(s.h.url, bearer(cached))).status, 200, "cached decision");
      const refused = await post(s.h.url, bearer(fresh));
      assert.equal(refused.status, 503);
      const body = await refused.json();
      assert.equal(body.error.type, "overloaded_error");
      assert.match(
        body.error.message,
        new RegExp(`identity service \\(${s.op.issuer.replaceAll(".", "\\.")}\\)`),
      );
      await settle(Math.max(0, 650 - (Date.now() - t0)));
      assert.equal((await post(s.h.url, bearer(cached))).status, 503, "expired decision, OP still down");
      s.op.up();
      await settle(1_100); // a second after the last failure the OP is asked again
      assert.equal((await post(s.h.url, bearer(cached))).status, 200);
    } finally {
      await s.close();
    }
  },
);

Deno.test(
  "GitHub OIDC: a run exchanges its token on one instance and uses the credential on both, attributed to repo:",
  e2e,
  async () => {
    const s = await setup();
    try {
      const exchange = (token: unknown, url = s.h.url) =>
        fetch(`${url}/v1/identity/github-oidc`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ token }),
        });
      const ghToken = await s.gh.mint();
      const answer = await exchange(ghToken);
      assert.equal(answer.status, 200);
      const { credential, principal, expires_at } = await answer.json();
      assert.equal(principal, "repo:acme/widgets");
      assert.ok(Date.parse(expires_at) <= Date.now() + 6 * 3600_000);
      for (let i = 0; i < 3; i++) {
        assert.equal((await post(i % 2 ? s.b.url : s.h.url, bearer(credential))).status, 200);
      }
      const over = await post(s.b.url, xApiKey(credential));
      assert.equal(over.status, 429, "the rule's rpm of 3, shared by both instances");
      const outsider = await exchange(
        await s.gh.mint(runClaims({ repository: "evil/x", repository_owner: "evil" })),
      );
      assert.equal(outsider.status, 403);
      const wrongAud = await exchange(await s.gh.mint(runClaims(), { aud: "other" }), s.b.url);
      assert.equal(wrongAud.status, 401);
      const wrongAudText = await wrongAud.text();
      assert.ok(!wrongAudText.includes("eyJ"), "the token is echoed");
      assert.equal((await exchange(42)).status, 400);
      await s.h.ledger.flush();
      const byRepo = await usageReport(s.h.db, { by: "repo" });
      assert.deepEqual(byRepo.groups?.map((g) => [g.group, g.requests]), [["repo:acme/widgets", 4]]);
      const dbText = new TextDecoder().decode(await Deno.readFile(s.h.config.GATEWAY_DATABASE_URL.slice(5)));
      assert.ok(!dbText.includes(credential.slice(0, 30)) && !dbText.includes(ghToken.slice(-30)));
      assert.ok(!s.b.logs.join("\n").includes(credential.slice(4, 30)));
    } finally {
      await s.close();
    }
  },
);
