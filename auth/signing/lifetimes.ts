/**
 * Lifetimes of what the service signs, and how long a retired signing key stays published. A leaf module:
 * the Better Auth config (`jwks.gracePeriod`) and signing-key rotation (auth/operations/signing_keys.ts) both
 * read it, so neither imports the other.
 */

/** ID-token lifetime: `@better-auth/oauth-provider` 1.6.23's `idTokenExpiresIn` default (the service keeps it). */
export const ID_TOKEN_LIFETIME_SECONDS = 36_000;
/** JWT access tokens (issued only for a `resource`, which the service refuses): `accessTokenExpiresIn`. */
export const JWT_ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
/** The jwt plugin's own `/token` JWT (`jwt.expirationTime` default 15m; the route is disabled). */
export const JWT_PLUGIN_TOKEN_LIFETIME_SECONDS = 900;
/** The longest lifetime of anything signed with a key of the `jwks` table. */
export const SIGNED_TOKEN_MAX_LIFETIME_SECONDS = Math.max(
  ID_TOKEN_LIFETIME_SECONDS,
  JWT_ACCESS_TOKEN_LIFETIME_SECONDS,
  JWT_PLUGIN_TOKEN_LIFETIME_SECONDS,
);
/** How long a key stays in the JWKS after it stopped signing (Better Auth's `jwks.gracePeriod`). */
export const RETIRED_KEY_PUBLISH_SECONDS = SIGNED_TOKEN_MAX_LIFETIME_SECONDS + 600;
