/**
 * Verification of the OAuth query Better Auth 1.6.23 signs when it sends the browser to `/sign-in` or
 * `/consent` (`sig` = HMAC-SHA256 with the service secret over the sorted signed parameters, `exp` in
 * seconds, `ba_param` naming the signed parameters). The pages render only what verifies: an attacker's
 * link to `/consent?client_id=…&scope=…` must not show a made-up request.
 */
import { constantTimeEqual, makeSignature } from "better-auth/crypto";

const SIGNED_NAMES_PARAM = "ba_param";

/** The signed parameters of `search` when its signature verifies and it has not expired, else undefined. */
export async function verifiedOAuthQuery(
  search: string,
  secret: string,
  now = Date.now(),
): Promise<URLSearchParams | undefined> {
  const params = new URLSearchParams(search);
  const signatures = params.getAll("sig");
  const names = new Set(params.getAll(SIGNED_NAMES_PARAM));
  if (signatures.length !== 1 || names.size === 0) return undefined;
  const signed = new URLSearchParams();
  for (const [key, value] of params) {
    if (key !== "sig" && (key === SIGNED_NAMES_PARAM || names.has(key))) signed.append(key, value);
  }
  const canonical = new URLSearchParams(
    [...signed.entries()].sort(([ka, va], [kb, vb]) =>
      ka < kb ? -1 : ka > kb ? 1 : va < vb ? -1 : va > vb ? 1 : 0
    ),
  );
  const expected = await makeSignature(canonical.toString(), secret);
  if (!constantTimeEqual(signatures[0], expected)) return undefined;
  const exp = Number(signed.get("exp"));
  if (!Number.isFinite(exp) || exp * 1000 < now) return undefined;
  return signed;
}
