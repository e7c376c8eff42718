/**
 * Gateway credentials minted by the GitHub Actions OIDC exchange: `syc_<payload>.<mac>`, the payload the
 * base64url JSON of the repository, run and the claims the trust rules look at, the MAC an HMAC-SHA-256 of it
 * under GATEWAY_IDENTITY_SECRET (the same on every instance, so any instance accepts any instance's
 * credential without shared state). The rules are applied again on every verification, so a rule removed
 * from the configuration stops the credentials it admitted.
 */
import { base64urlDecode, base64urlEncode, hmacSha256, timingSafeEqual } from "@switchyard/lib/crypto.ts";

/** Every credential starts with this (an API key starts `sy_`). */
export const CREDENTIAL_PREFIX = "syc_";
/** Longest credential looked at. */
const MAX_CREDENTIAL_LENGTH = 4096;

/** The claims a credential carries (those of the GitHub token the rules match on, plus its run). */
export interface CredentialClaims {
  repository: string;
  repository_owner: string;
  ref?: string;
  workflow_ref?: string;
  environment?: string;
  run_id: string;
  run_attempt?: string;
  /** Expiry, epoch seconds. */
  exp: number;
}

const decoder = new TextDecoder();

/** Signs and checks credentials with one secret. */
export class CredentialSigner {
  #secret: string;

  /** `secret` is GATEWAY_IDENTITY_SECRET. */
  constructor(secret: string) {
    this.#secret = secret;
  }

  #mac(payload: string): Uint8Array {
    return hmacSha256(this.#secret, payload);
  }

  /** A credential for `claims`. */
  mint(claims: CredentialClaims): string {
    const payload = base64urlEncode(JSON.stringify({ v: 1, ...claims }));
    return `${CREDENTIAL_PREFIX}${payload}.${base64urlEncode(this.#mac(payload))}`;
  }

  /** The claims of a well-formed credential with a valid MAC, not yet expired at `nowMs`; else null. */
  open(credential: string, nowMs: number): CredentialClaims | null {
    if (credential.length > MAX_CREDENTIAL_LENGTH || !credential.startsWith(CREDENTIAL_PREFIX)) return null;
    const body = credential.slice(CREDENTIAL_PREFIX.length);
    const dot = body.indexOf(".");
    if (dot < 1 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(body)) return null;
    const payload = body.slice(0, dot);
    const presented = base64urlDecode(body.slice(dot + 1));
    if (!presented || !timingSafeEqual(presented, this.#mac(payload))) return null;
    const json = base64urlDecode(payload);
    if (!json) return null;
    let claims: CredentialClaims & { v?: number };
    try {
      claims = JSON.parse(decoder.decode(json));
    } catch {
      return null;
    }
    if (claims.v !== 1 || typeof claims.exp !== "number" || nowMs >= claims.exp * 1000) return null;
    return claims;
  }
}
