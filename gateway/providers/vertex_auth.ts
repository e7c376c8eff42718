/**
 * OAuth access tokens for Vertex AI: a configured token as is, or one obtained from a service account by
 * the JWT bearer grant (RFC 7523): an RS256 assertion signed with the account's key (jose), POSTed to the
 * key file's `token_uri`. Tokens are cached until shortly before they expire, and concurrent requests
 * share one refresh (single flight) instead of each minting its own. Failures name the provider and the
 * token endpoint's error code, never the key, the assertion or a token.
 */
import { importPKCS8, SignJWT } from "jose";
import { GatewayError } from "../errors.ts";
import type { ServiceAccountKey, VertexAuth } from "./contract.ts";
import type { UpstreamFetch } from "../upstream/response.ts";

/** The scope Vertex AI needs. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";
/** The OAuth grant type of a signed JWT assertion. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/** Lifetime asked for in the assertion (Google's maximum). */
const ASSERTION_SECONDS = 3600;
/** A token is replaced this long before it expires, so no request carries one that lapses in flight. */
const REFRESH_MARGIN_MS = 5 * 60_000;
/** Longest wait for the token endpoint. */
const TOKEN_TIMEOUT_MS = 30_000;

/** Gives a valid access token for each upstream request. */
export interface AccessTokenSource {
  /** A token valid for at least the refresh margin (or as long as the endpoint grants). */
  token(): Promise<string>;
  /** Forgets a cached token the upstream refused (a revoked token then costs one failure, not an hour). */
  invalidate(): void;
}

/** What a service-account token source needs from the world. */
export interface TokenDeps {
  /** The upstream client (the token endpoint is one more upstream). */
  fetch: UpstreamFetch;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

/** Creates the token source for a provider's auth settings. */
export function createAccessTokenSource(
  provider: string,
  auth: VertexAuth,
  deps: TokenDeps,
): AccessTokenSource {
  if (auth.type === "token") return { token: () => Promise.resolve(auth.token), invalidate: () => {} };
  return serviceAccountTokens(provider, auth.key, deps);
}

function tokenError(provider: string, message: string, cause?: unknown): GatewayError {
  return new GatewayError("api_error", `upstream provider ${provider} ${message}`, { status: 502, cause });
}

function serviceAccountTokens(provider: string, key: ServiceAccountKey, deps: TokenDeps): AccessTokenSource {
  const now = deps.now ?? Date.now;
  let signingKey: ReturnType<typeof importPKCS8> | undefined;
  let cached: { token: string; refreshAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  const assertion = async (): Promise<string> => {
    signingKey ??= importPKCS8(key.privateKey, "RS256");
    const privateKey = await signingKey;
    const iat = Math.floor(now() / 1000);
    return await new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
      .setProtectedHeader({
        alg: "RS256",
        typ: "JWT",
        ...(key.privateKeyId ? { kid: key.privateKeyId } : {}),
      })
      .setIssuer(key.clientEmail)
      .setAudience(key.tokenUri)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_SECONDS)
      .sign(privateKey);
  };

  const refresh = async (): Promise<string> => {
    const body = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: await assertion() })
      .toString();
    let response;
    try {
      response = await deps.fetch(key.tokenUri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body,
        signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      });
    } catch (error) {
      throw tokenError(provider, "could not reach its OAuth token endpoint", error);
    }
    const text = await response.text().catch(() => "");
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) ?? {};
    } catch {
      // reported below without the body
    }
    if (!response.ok) {
      const code = typeof json.error === "string" && /^[\w.-]{1,60}$/.test(json.error)
        ? ` ${json.error}`
        : "";
      throw tokenError(
        provider,
        `refused the gateway's credentials (token endpoint HTTP ${response.status}${code})`,
      );
    }
    const token = json.access_token;
    const expiresIn = typeof json.expires_in === "number" ? json.expires_in * 1000 : ASSERTION_SECONDS * 1000;
    if (typeof token !== "string" || !token) {
      throw tokenError(provider, "got no access token from its token endpoint");
    }
    const margin = Math.min(REFRESH_MARGIN_MS, expiresIn / 2);
    cached = { token, refreshAt: now() + expiresIn - margin };
    return token;
  };

  return {
    token() {
      if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token);
      inFlight ??= refresh().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
