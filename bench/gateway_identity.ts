/**
 * What an OP access token costs next to an API key, in-process (the instant upstream of
 * gateway_inprocess.ts): the real auth service (local mode, its own database) answers introspection on
 * loopback; the gateway's credential check is the one main.ts builds (API keys, OP tokens, policies).
 * Warm: the same pass-through request with an API key and with a cached OP token, interleaved request by
 * request; added p50/p99 is the median over rounds of (token − key). Miss: each of `misses` fresh tokens'
 * first request, against the key's p50 in the same run — one introspection round trip each.
 */
import { createGatewayApp } from "../gateway/app.ts";
import { readGatewayConfig } from "../gateway/config/mod.ts";
import { KeyVerifier } from "../gateway/keys/verifier.ts";
import { hashKey } from "../gateway/keys/store.ts";
import { identityCheck } from "../gateway/identity/identity_check.ts";
import { TokenIntrospector } from "../gateway/identity/introspection.ts";
import { PolicySnapshot } from "../gateway/identity/policy_store.ts";
import { randomToken } from "../auth/grants/refresh_grant.ts";
import { sha256Base64Url } from "../auth/endpoints/client_auth.ts";
import { createLogger } from "@switchyard/lib/log.ts";
import { seedSession, startAuthService } from "../tests/auth/harness.ts";
import { instantFetch } from "./gateway_inprocess.ts";

/** The figures of one run (ms). */
export interface IdentityCost {
  /** The API key's p50. */
  keyP50: number;
  /** Added p50/p99 of a warm OP token over the API key. */
  warmAdded: [number, number];
  /** Added p50/p99 of a token's first (uncached) request over the API key's p50. */
  missAdded: [number, number];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const at = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** Measures warm and cold OP tokens against an API key. */
export async function measureIdentity(
  body: string,
  n: number,
  rounds: number,
  misses = 300,
): Promise<IdentityCost> {
  await using auth = await startAuthService();
  const gateway = await auth.register({ name: "Gateway", redirectUris: ["http://127.0.0.1:9/cb"] });
  await seedSession(auth, { id: "bench-user", name: "Bench", email: "bench@example.com" });
  const client = auth.database.client;
  const mint = async () => {
    const token = randomToken();
    const now = Date.now();
    await client.execute({
      sql: "INSERT INTO oauth_access_token (id, token, client_id, user_id, expires_at, created_at, scopes) " +
        "VALUES (?, ?, ?, 'bench-user', ?, ?, ?)",
      args: [
        randomToken(),
        await sha256Base64Url(token),
        gateway.client_id,
        now + 3_600_000,
        now,
        '["openid"]',
      ],
    });
    return token;
  };
  const apiKey = `sy_${"b".repeat(43)}`;
  const keys = new KeyVerifier(
    () => Promise.resolve([{ id: "key_bench", key_hash: hashKey(apiKey), admin: 0 }]),
    {
      ttlMs: 60_000,
    },
  );
  const introspector = new TokenIntrospector({
    issuer: auth.issuer,
    clientId: gateway.client_id,
    clientSecret: gateway.client_secret!,
    tokenClients: [],
    cacheMs: 600_000,
    timeoutMs: 5_000,
  });
  const policies = new PolicySnapshot(
    () => Promise.resolve([{ id: "default:user", subject: "default:user" }]),
    60_000,
  );
  const config = readGatewayConfig({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" });
  const app = createGatewayApp(config, {
    logger: createLogger({ level: "warn" }),
    keys: identityCheck({ keys, users: { introspector, policies } }),
    fetch: instantFetch,
  });
  const once = async (credential: string) => {
    const t0 = performance.now();
    const response = await app.fetch(
      new Request("http://gateway/v1/messages", {
        method: "POST",
        headers: { "x-api-key": credential },
        body,
      }),
    );
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`bench request answered ${response.status}`);
    return performance.now() - t0;
  };
  try {
    const warmToken = await mint();
    const added: Array<[number, number]> = [];
    const key50: number[] = [];
    const per = Math.ceil(n / rounds);
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < 300; i++) await once(i % 2 ? warmToken : apiKey);
      const withKey: number[] = [];
      const withToken: number[] = [];
      for (let i = 0; i < per; i++) {
        withKey.push(await once(apiKey));
        withToken.push(await once(warmToken));
      }
      withKey.sort((a, b) => a - b);
      withToken.sort((a, b) => a - b);
      added.push([at(withToken, 0.5) - at(withKey, 0.5), at(withToken, 0.99) - at(withKey, 0.99)]);
      key50.push(at(withKey, 0.5));
    }
    const fresh = await Promise.all(Array.from({ length: misses }, mint));
    const cold: number[] = [];
    const keyNow: number[] = [];
    for (const token of fresh) {
      keyNow.push(await once(apiKey));
      cold.push(await once(token));
    }
    cold.sort((a, b) => a - b);
    keyNow.sort((a, b) => a - b);
    if (introspector.roundTrips !== misses + 1) {
      throw new Error(`expected ${misses + 1} introspections, saw ${introspector.roundTrips}`);
    }
    return {
      keyP50: median(key50),
      warmAdded: [median(added.map((a) => a[0])), median(added.map((a) => a[1]))],
      missAdded: [at(cold, 0.5) - at(keyNow, 0.5), at(cold, 0.99) - at(keyNow, 0.5)],
    };
  } finally {
    await app.close();
  }
}
