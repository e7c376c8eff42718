/**
 * The logout token of OIDC Back-Channel Logout 1.0 §2.4: a JWT typed `logout+jwt`, signed with the ID-token
 * key, carrying `iss`, `aud`, `iat`, `exp`, `jti`, the back-channel logout event, and `sub` and/or `sid`;
 * never a `nonce` (§2.4 forbids it, so an RP cannot mistake it for an ID token).
 */
import type { JWTPayload } from "jose";

/** The `events` member that makes a JWT a logout token. */
export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";

/** The JOSE `typ` of a logout token (§2.4, recommended explicit typing). */
export const LOGOUT_TOKEN_TYPE = "logout+jwt";

/** How long a logout token is valid: RPs reject older ones, and a retry signs a fresh one. */
export const LOGOUT_TOKEN_SECONDS = 120;

/** The claims of one logout token. */
export function logoutTokenClaims(input: {
  issuer: string;
  clientId: string;
  userId: string;
  sessionId: string | null;
  now: number;
}): JWTPayload {
  const iat = Math.floor(input.now / 1000);
  return {
    iss: input.issuer,
    aud: input.clientId,
    iat,
    exp: iat + LOGOUT_TOKEN_SECONDS,
    jti: crypto.randomUUID(),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    sub: input.userId,
    ...(input.sessionId ? { sid: input.sessionId } : {}),
  };
}
