/**
 * The reference OP of `deno task bench:auth`: node-oidc-provider 9.13.3 from npm with its in-memory adapter,
 * configured like the service (code + PKCE S256, RS256 ID tokens, rotating refresh tokens, opaque access
 * tokens, introspection and userinfo on) and one confidential client. Prints one JSON line with its URL,
 * the client, and `grants` pre-minted grants (an authorization code and a refresh token each) that the
 * driver spends: the bench measures the token endpoint, not the peer's login pages. `bench:auth` runs it under
 * Node.js 22 as the peer is deployed (`--peer-runtime deno` runs it under Deno instead).
 */
import Provider from "oidc-provider";
import { exportJWK, generateKeyPair } from "jose";
import { createServer } from "node:http";
import process from "node:process";

// Runs under Node.js 22 (type stripping: no TypeScript-only syntax that needs transforming) or Deno.
const grants = Number(process.argv[2] ?? "2000");
// node:http, as node-oidc-provider is deployed (Koa's callback on a Node http server).
const nodeServer = createServer();
await new Promise<void>((ok) => nodeServer.listen(0, "127.0.0.1", () => ok()));
const issuer = `http://127.0.0.1:${(nodeServer.address() as { port: number }).port}`;
const { privateKey } = await generateKeyPair("RS256", { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: "bench", alg: "RS256", use: "sig" };
const client = {
  client_id: "bench",
  client_secret: "bench-secret-bench-secret-bench-secret",
  redirect_uris: ["http://127.0.0.1:9/cb"],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
};
/**
 * An unbounded in-memory store: the provider's quick-start adapter is an LRU of 1,000 entries, which would
 * evict the pre-minted grants before the driver spends them.
 */
class MapAdapter {
  static store = new Map<string, Record<string, unknown>>();
  readonly model: string;
  constructor(model: string) {
    this.model = model;
  }
  key(id: string) {
    return `${this.model}:${id}`;
  }
  upsert(id: string, payload: Record<string, unknown>) {
    MapAdapter.store.set(this.key(id), payload);
    if (payload.uid) MapAdapter.store.set(`uid:${payload.uid}`, { id });
    if (payload.userCode) MapAdapter.store.set(`user:${payload.userCode}`, { id });
    if (payload.grantId && this.model !== "Grant") {
      const list = MapAdapter.store.get(`grant:${payload.grantId}`) as { keys?: string[] } | undefined;
      MapAdapter.store.set(`grant:${payload.grantId}`, { keys: [...(list?.keys ?? []), this.key(id)] });
    }
    return Promise.resolve();
  }
  find(id: string) {
    return Promise.resolve(MapAdapter.store.get(this.key(id)));
  }
  findByUid(uid: string) {
    const ref = MapAdapter.store.get(`uid:${uid}`) as { id?: string } | undefined;
    return Promise.resolve(ref?.id ? MapAdapter.store.get(this.key(ref.id)) : undefined);
  }
  findByUserCode(code: string) {
    const ref = MapAdapter.store.get(`user:${code}`) as { id?: string } | undefined;
    return Promise.resolve(ref?.id ? MapAdapter.store.get(this.key(ref.id)) : undefined);
  }
  consume(id: string) {
    const found = MapAdapter.store.get(this.key(id));
    if (found) found.consumed = Math.floor(Date.now() / 1000);
    return Promise.resolve();
  }
  destroy(id: string) {
    MapAdapter.store.delete(this.key(id));
    return Promise.resolve();
  }
  revokeByGrantId(grantId: string) {
    const list = MapAdapter.store.get(`grant:${grantId}`) as { keys?: string[] } | undefined;
    for (const key of list?.keys ?? []) MapAdapter.store.delete(key);
    MapAdapter.store.delete(`grant:${grantId}`);
    return Promise.resolve();
  }
}

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  clients: [client],
  jwks: { keys: [jwk] },
  features: { introspection: { enabled: true }, revocation: { enabled: true }, userinfo: { enabled: true } },
  pkce: { required: () => true },
  rotateRefreshToken: true,
  scopes: ["openid", "profile", "email", "offline_access"],
  claims: { openid: ["sub"], profile: ["name"], email: ["email", "email_verified"] },
  findAccount: (_ctx: unknown, sub: string) => ({
    accountId: sub,
    claims: () => ({ sub, name: "Bench User", email: "bench@example.test", email_verified: true }),
  }),
  issueRefreshToken: () => true,
  ttl: { AccessToken: 3600, AuthorizationCode: 600, RefreshToken: 86400, Grant: 86400, IdToken: 3600 },
});
nodeServer.on("request", provider.callback());
const base = issuer;

// Pre-minted grants, as after login and consent.
const verifier = "bench-verifier-bench-verifier-bench-verifier-0123456789";
const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
const challenge = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(
  /=+$/,
  "",
);
const minted: { code: string; refresh_token: string; access_token: string }[] = [];
const clientRecord = await provider.Client.find(client.client_id);
for (let i = 0; i < grants; i++) {
  const grant = new provider.Grant({ accountId: `user-${i}`, clientId: client.client_id });
  grant.addOIDCScope("openid profile email offline_access");
  const grantId = await grant.save();
  const common = {
    accountId: `user-${i}`,
    client: clientRecord,
    grantId,
    scope: "openid profile email offline_access",
  };
  const code = await new provider.AuthorizationCode({
    ...common,
    redirectUri: client.redirect_uris[0],
    codeChallenge: challenge,
    codeChallengeMethod: "S256",
  }).save();
  const refresh = await new provider.RefreshToken({
    ...common,
    rotations: 0,
    iat: Math.floor(Date.now() / 1000),
  }).save();
  const access = await new provider.AccessToken({ ...common }).save();
  minted.push({ code, refresh_token: refresh, access_token: access });
}
console.log(JSON.stringify({
  url: base,
  issuer,
  client_id: client.client_id,
  client_secret: client.client_secret,
  redirect_uri: client.redirect_uris[0],
  verifier,
  grants: minted,
}));
