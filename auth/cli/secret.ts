/** `deno task auth:secret`: prints a fresh AUTH_SECRET (32 random bytes, base64). */

/** A new secret: 32 bytes from the platform CSPRNG, base64-encoded (44 characters). */
export function generateAuthSecret(): string {
  return crypto.getRandomValues(new Uint8Array(32)).toBase64();
}

if (import.meta.main) console.log(generateAuthSecret());
