/**
 * Client authentication for the token, introspection and revocation endpoints, done by the service before
 * Better Auth sees the request (1.6.23 consumes the authorization code before authenticating the client, and
 * reports unknown clients with 400). Secrets are compared as Better Auth stores them: base64url(SHA-256).
 */
import type { Client } from "@libsql/client";
import { sha256Base64url, timingSafeEqual } from "@switchyard/lib/crypto.ts";

/**
 * Base64url (no padding) SHA-256 of `value`, the hash Better Auth stores for secrets, codes and tokens
 * (lib/crypto.ts; synchronous: WebCrypto's `digest` is a thread-pool round trip, several times the cost of
 * hashing a token, and every token request hashes two to four values).
 */
export const sha256Base64Url: (value: string) => string = sha256Base64url;

/** Credentials presented by a client. */
export interface PresentedCredentials {
  /** The client id, from Basic or the body. */
  clientId?: string;
  /** The secret, from Basic or the body. */
  clientSecret?: string;
  /** True when HTTP Basic was used (failures then carry `WWW-Authenticate: Basic`). */
  basic: boolean;
  /** Set when the credentials are malformed or sent twice. */
  malformed?: string;
}

/** Reads the credentials of a form request (RFC 6749 §2.3.1: Basic values are form-urlencoded). */
export function presentedCredentials(
  authorization: string | null,
  form: URLSearchParams,
): PresentedCredentials {
  if (authorization?.toLowerCase().startsWith("basic ")) {
    let decoded: string;
    try {
      decoded = atob(authorization.slice(6).trim());
    } catch {
      return { basic: true, malformed: "malformed Basic credentials" };
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) return { basic: true, malformed: "malformed Basic credentials" };
    if (form.has("client_secret")) {
      return { basic: true, malformed: "client credentials sent with more than one method" };
    }
    const decode = (v: string) => decodeURIComponent(v.replaceAll("+", " "));
    try {
      return {
        basic: true,
        clientId: decode(decoded.slice(0, colon)),
        clientSecret: decode(decoded.slice(colon + 1)),
      };
    } catch {
      return { basic: true, malformed: "malformed Basic credentials" };
    }
  }
  return {
    basic: false,
    clientId: form.get("client_id") ?? undefined,
    clientSecret: form.get("client_secret") ?? undefined,
  };
}

/** The description of every failed authentication of a named client. */
export const CLIENT_AUTH_FAILED = "client authentication failed";

/** Why a client failed to authenticate, or the authenticated client. */
export type ClientAuthResult =
  | { ok: true; clientId: string; confidential: boolean }
  | { ok: false; description: string };

/** The stored columns client authentication reads (`oauth_client.client_secret`, `disabled`). */
export interface StoredClientSecret {
  client_secret: unknown;
  disabled: unknown;
}

/** Authenticates a client against `oauth_client`. Public clients authenticate with their id alone. */
export async function authenticateClient(
  client: Client,
  creds: PresentedCredentials,
): Promise<ClientAuthResult> {
  if (creds.malformed) return { ok: false, description: creds.malformed };
  if (!creds.clientId) return { ok: false, description: "client authentication required" };
  const result = await client.execute({
    sql: "SELECT client_secret, disabled FROM oauth_client WHERE client_id = ?",
    args: [creds.clientId],
  });
  return verifyClient(result.rows[0] as unknown as StoredClientSecret | undefined, creds);
}

/**
 * Checks presented credentials against the client's stored row (`undefined`: no such client), read by
 * {@link authenticateClient} or together with a grant's other rows (the refresh grant's one read).
 */
export function verifyClient(
  row: StoredClientSecret | undefined,
  creds: PresentedCredentials,
): ClientAuthResult {
  if (creds.malformed) return { ok: false, description: creds.malformed };
  if (!creds.clientId) return { ok: false, description: "client authentication required" };
  // One description for every way a named client fails, so that answers do not tell an unknown client id
  // from a known one with a wrong secret (client-id enumeration). The hash is computed in every case, so
  // the time taken does not tell them apart either.
  const failed = { ok: false as const, description: CLIENT_AUTH_FAILED };
  const presentedHash = creds.clientSecret === undefined ? undefined : sha256Base64url(creds.clientSecret);
  if (!row || Number(row.disabled ?? 0) === 1) return failed;
  const stored = row.client_secret === null ? undefined : String(row.client_secret);
  if (!stored) {
    if (creds.clientSecret) return failed;
    return { ok: true, clientId: creds.clientId, confidential: false };
  }
  if (presentedHash === undefined || !timingSafeEqual(presentedHash, stored)) return failed;
  return { ok: true, clientId: creds.clientId, confidential: true };
}
