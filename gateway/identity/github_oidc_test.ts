import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { parseGithubOidc } from "./config.ts";
import { GithubOidcExchange, globToRegExp, TrustRules } from "./github_oidc.ts";
import { identityCheck } from "./identity_check.ts";
import { runClaims, startGithubIssuer } from "../../tests/gateway/github_oidc_stand_in.ts";

const AUDIENCE = "https://gateway.example";
const SECRET = "x".repeat(40);
const sanitize = { sanitizeOps: false, sanitizeResources: false };

function trustFor(issuer: string, rules?: unknown[]) {
  const parsed = parseGithubOidc(JSON.stringify({
    issuer,
    audience: AUDIENCE,
    rules: rules ?? [
      { repository: "acme/*", ref: "refs/heads/main", policy: { rpm: 30, models: ["fast"] } },
      { repository_owner: "acme", environment: "prod-*", policy: {} },
    ],
  }));
  assert.deepEqual(parsed.problems, []);
  return parsed.trust!;
}

const b64 = (value: unknown) =>
  btoa(JSON.stringify(value)).replaceAll("=", "").replaceAll("+", "-").replaceAll("/", "_");

Deno.test("globs: * stays within a path segment, ** crosses them, repository names ignore case", () => {
  assert.ok(globToRegExp("acme/*").test("acme/widgets"));
  assert.ok(!globToRegExp("acme/*").test("acme/widgets/x"));
  assert.ok(globToRegExp("refs/heads/**").test("refs/heads/release/1.2"));
  assert.ok(!globToRegExp("refs/heads/main").test("refs/heads/main2"));
  assert.ok(!globToRegExp("acme.io/*").test("acmexio/a"), "dots are literal");
  const rules = new TrustRules(trustFor("http://x").rules);
  assert.ok(rules.match({ repository: "ACME/Widgets", repository_owner: "acme", ref: "refs/heads/main" }));
  assert.equal(
    rules.match({ repository: "acme/widgets", repository_owner: "acme", ref: "refs/heads/dev" }),
    undefined,
  );
  assert.ok(rules.match({ repository: "acme/w", repository_owner: "acme", environment: "prod-eu" }));
});

Deno.test("GATEWAY_GITHUB_OIDC refuses a rule that names no repository or owner, and bad policies", () => {
  const { problems } = parseGithubOidc(JSON.stringify({
    audience: "a",
    rules: [{ ref: "refs/heads/main" }, { repository: "a/b", policy: { budget_usd: 5 } }, {
      repository: "a/c",
      policy: { rpm: -1 },
    }],
  }));
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems.join("\n"), /must name repository or repository_owner/);
  assert.match(problems.join("\n"), /budget_usd and budget_period go together/);
  assert.deepEqual(parseGithubOidc("{").problems.length, 1);
  assert.equal(
    parseGithubOidc(JSON.stringify({ audience: "a", rules: [{ repository: "a/b" }] })).trust?.issuer,
    "https://token.actions.githubusercontent.com",
  );
});

Deno.test(
  "a GitHub OIDC token from the stand-in issuer is exchanged for a credential bound to its repository and run",
  sanitize,
  async () => {
    const gh = await startGithubIssuer(AUDIENCE);
    try {
      const exchange = new GithubOidcExchange({ trust: trustFor(gh.issuer), secret: SECRET });
      const result = await exchange.exchange(await gh.mint());
      assert.ok("credential" in result, JSON.stringify(result));
      assert.equal(result.principal, "repo:acme/widgets");
      assert.ok(result.expiresAt <= Date.now() + 6 * 3600_000 + 1000);
      const check = identityCheck({
        keys: { verify: () => Promise.resolve(null) },
        repos: { secret: SECRET, rules: exchange.rules },
      });
      const policy = await check.verify(result.credential);
      assert.equal(policy?.id, "repo:acme/widgets");
      assert.equal(policy?.limits?.rpm, 30);
      assert.deepEqual(policy?.models, ["fast"]);
      // Another secret (another gateway) or a flipped character: not a credential.
      const other = identityCheck({
        keys: { verify: () => Promise.resolve(null) },
        repos: { secret: "y".repeat(40), rules: exchange.rules },
      });
      assert.equal(await other.verify(result.credential), null);
      const flipped = result.credential.slice(0, 10) + (result.credential[10] === "A" ? "B" : "A") +
        result.credential.slice(11);
      assert.equal(await check.verify(flipped), null);
      // A shorter lifetime is honoured.
      const short = await exchange.exchange(await gh.mint(), 120);
      assert.ok("expiresAt" in short && short.expiresAt <= Date.now() + 121_000);
    } finally {
      await gh.close();
    }
  },
);

Deno.test("the exchange refuses every attack on the token", sanitize, async () => {
  const gh = await startGithubIssuer(AUDIENCE);
  try {
    const exchange = new GithubOidcExchange({ trust: trustFor(gh.issuer), secret: SECRET });
    const now = Math.floor(Date.now() / 1000);
    const good = await gh.mint();
    const [header, payload] = good.split(".");
    const hs256Header = b64({ alg: "HS256", kid: "k1", typ: "JWT" });
    const hs256Mac = (secret: string) =>
      createHmac("sha256", secret).update(`${hs256Header}.${payload}`).digest("base64url");
    const attacks: Array<[string, string, RegExp]> = [
      ["wrong aud", await gh.mint(runClaims(), { aud: "https://other.example" }), /claim aud/],
      [
        "wrong iss",
        await gh.mint(runClaims(), { iss: "https://token.actions.githubusercontent.com" }),
        /claim iss/,
      ],
      ["expired", await gh.mint(runClaims(), { iat: now - 900, nbf: now - 900, exp: now - 60 }), /expired/],
      ["not yet valid", await gh.mint(runClaims(), { nbf: now + 600 }), /not yet valid/],
      ["alg none", `${b64({ alg: "none", typ: "JWT" })}.${payload}.`, /algorithm|malformed/],
      [
        "HS256 keyed with the JWKS",
        `${hs256Header}.${payload}.${hs256Mac(JSON.stringify(gh.jwks))}`,
        /algorithm/,
      ],
      [
        "HS256 keyed with the public key",
        `${hs256Header}.${payload}.${hs256Mac(JSON.stringify(gh.jwks.keys[0]))}`,
        /algorithm/,
      ],
      ["unknown kid", await gh.mint(runClaims(), { kid: "k2" }), /kid/],
      [
        "tampered payload",
        `${header}.${b64({ ...runClaims(), repository: "evil/repo" })}.${good.split(".")[2]}`,
        /signature/,
      ],
      ["not a JWT", "hello", /malformed/],
    ];
    for (const [name, token, reason] of attacks) {
      const result = await exchange.exchange(token);
      assert.ok("code" in result, `${name} was admitted`);
      assert.equal(result.code, "invalid_token", name);
      assert.match(result.message, reason, name);
      assert.ok(!result.message.includes(token.slice(0, 20)), `${name} echoes the token`);
    }
    const outsider = await exchange.exchange(
      await gh.mint(runClaims({ repository: "evil/repo", repository_owner: "evil" })),
    );
    assert.ok("code" in outsider && outsider.code === "no_rule");
    assert.match(outsider.message, /no trust rule .* evil\/repo/);
    const wrongRef = await exchange.exchange(await gh.mint(runClaims({ ref: "refs/heads/feature" })));
    assert.ok("code" in wrongRef && wrongRef.code === "no_rule");
  } finally {
    await gh.close();
  }
});

Deno.test(
  "a token replayed after its expiry and a credential used after its run's expiry are refused",
  sanitize,
  async () => {
    const gh = await startGithubIssuer(AUDIENCE);
    try {
      let clock = Date.now();
      const exchange = new GithubOidcExchange({
        trust: trustFor(gh.issuer),
        secret: SECRET,
        now: () => clock,
      });
      const token = await gh.mint();
      const first = await exchange.exchange(token, 600);
      assert.ok("credential" in first);
      clock += 10 * 60_000; // the token lived 5 minutes
      const replay = await exchange.exchange(token);
      assert.ok("code" in replay && /expired/.test(replay.message));
      const check = identityCheck({
        keys: { verify: () => Promise.resolve(null) },
        repos: { secret: SECRET, rules: exchange.rules },
        now: () => clock,
      });
      assert.equal(await check.verify(first.credential), null, "600 s credential used after 10 min");
      // Never past 6 h after the token was issued, whatever is asked.
      clock = Date.now();
      const long = await exchange.exchange(
        await gh.mint(runClaims(), { iat: Math.floor(clock / 1000) - 5 * 3600 }),
        6 * 3600,
      );
      assert.ok("expiresAt" in long && long.expiresAt <= clock + 3600_000 + 1000);
    } finally {
      await gh.close();
    }
  },
);

Deno.test("an unreachable issuer is an issuer_unreachable refusal, not an admission", async () => {
  const exchange = new GithubOidcExchange({
    trust: trustFor("http://127.0.0.1:9"),
    secret: SECRET,
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  const token = `${b64({ alg: "RS256", kid: "k1" })}.${b64(runClaims())}.c2ln`;
  const result = await exchange.exchange(token);
  assert.ok("code" in result && result.code === "issuer_unreachable");
});
