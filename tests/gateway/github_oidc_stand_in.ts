/**
 * A stand-in for GitHub's Actions OIDC issuer on loopback: discovery, its own JWKS (RS256, kid `k1`), and
 * tokens with GitHub-shaped claims (repository, repository_owner, ref, workflow_ref, environment, run_id).
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";

/** A running stand-in issuer. */
export interface GithubIssuerStandIn {
  /** Its issuer URL (also the discovery base). */
  issuer: string;
  /** The JWKS it publishes. */
  jwks: { keys: Record<string, unknown>[] };
  /** A token for `claims` over the defaults; `options` moves times (seconds) or changes kid/aud/iss. */
  mint(
    claims?: Record<string, unknown>,
    options?: { iat?: number; exp?: number; nbf?: number; kid?: string; aud?: string; iss?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

/** GitHub-shaped claims of a run of `acme/widgets` on main. */
export function runClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sub: "repo:acme/widgets:ref:refs/heads/main",
    repository: "acme/widgets",
    repository_owner: "acme",
    repository_id: "42",
    ref: "refs/heads/main",
    workflow_ref: "acme/widgets/.github/workflows/agent.yml@refs/heads/main",
    run_id: "777",
    run_attempt: "1",
    event_name: "push",
    ...overrides,
  };
}

/** Starts the stand-in; tokens are for `audience` unless a mint says otherwise. */
export async function startGithubIssuer(audience: string): Promise<GithubIssuerStandIn> {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const jwks = { keys: [jwk] };
  let issuer = "";
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/openid-configuration") {
      return Response.json({ issuer, jwks_uri: `${issuer}/.well-known/jwks` });
    }
    if (path === "/.well-known/jwks") return Response.json(jwks);
    return new Response("not found", { status: 404 });
  });
  issuer = `http://127.0.0.1:${server.addr.port}`;
  return {
    issuer,
    jwks,
    async mint(claims = runClaims(), options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "k1", typ: "JWT" })
        .setIssuer(options.iss ?? issuer)
        .setAudience(options.aud ?? audience)
        .setIssuedAt(options.iat ?? now)
        .setExpirationTime(options.exp ?? now + 300);
      jwt.setNotBefore(options.nbf ?? now - 5);
      return await jwt.sign(privateKey);
    },
    close: () => server.shutdown(),
  };
}
