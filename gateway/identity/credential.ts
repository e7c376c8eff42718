/**
 * Gateway credentials minted by the GitHub Actions OIDC exchange: `syc_<payload>.<mac>`, the payload the
 * base64url JSON of the repository, run and the claims the trust rules look at, the MAC an HMAC-SHA-256 of it
 * under GATEWAY_IDENTITY_SECRET (the same on every instance, so any instance accepts any instance's
 * credential without shared state). The rules are applied again on every verification, so a rule removed
 * from the configuration stops the credentials it admitted.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

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

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Signs and checks credentials with one secret. */
export class CredentialSigner {
  #secret: string;

  /** `secret` is GATEWAY_IDENTITY_SECRET. */
  constructor(secret: string) {
    this.#secret = secret;
  }

  #mac(payload: string): Uint8Array {
    return createHmac("sha256", this.#secret).update(payload).digest();
  }

  /** A credential for `claims`. */
  mint(claims: CredentialClaims): string {
    const payload = base64url(encoder.encode(JSON.stringify({ v: 1, ...claims })));
    return `${CREDENTIAL_PREFIX}${payload}.${base64url(this.#mac(payload))}`;
  }

  /** The claims of a well-formed credential with a valid MAC, not yet expired at `nowMs`; else null. */
  open(credential: string, nowMs: number): CredentialClaims | null {
    if (credential.length > MAX_CREDENTIAL_LENGTH || !credential.startsWith(CREDENTIAL_PREFIX)) return null;
    const body = credential.slice(CREDENTIAL_PREFIX.length);
    const dot = body.indexOf(".");
    if (dot < 1 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(body)) return null;
    const payload = body.slice(0, dot);
    let presented: Uint8Array;
    try {
      presented = fromBase64url(body.slice(dot + 1));
    } catch {
      return null;
    }
    const expected = this.#mac(payload);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return null;
    let claims: CredentialClaims & { v?: number };
    try {
      claims = JSON.parse(decoder.decode(fromBase64url(payload)));
    } catch {
      return null;
    }
    if (claims.v !== 1 || typeof claims.exp !== "number" || nowMs >= claims.exp * 1000) return null;
    return claims;
  }
}
