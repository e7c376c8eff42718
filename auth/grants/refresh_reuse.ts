/**
 * The refresh reuse window (`AUTH_REFRESH_REUSE_SECONDS`): for a few seconds after a rotation, presenting
 * the rotated-out refresh token again (two tabs, a response lost on the way) gets the rotation's own token
 * response instead of revoking the grant. The response is kept in `svc_refresh_reuse` encrypted (AES-GCM)
 * under a key derived from the presented refresh token itself, which the database never holds: a copy of the
 * database cannot read the tokens in it, and the row expires with the window. The answer is given only while
 * its successor refresh token still exists (a revoked grant has none).
 */
import type { Client, InStatement } from "@libsql/client";

const KEY_LABEL = "switchyard refresh reuse v1\0";

async function keyOf(presentedToken: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(KEY_LABEL + presentedToken),
  );
  return await crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** The statements that keep `body` for `windowSeconds` under the presented token's hash (and sweep old rows). */
export async function keepForReuse(input: {
  presentedToken: string;
  presentedHash: string;
  successorHash: string;
  grantId: string;
  body: string;
  now: number;
  windowSeconds: number;
}): Promise<InStatement[]> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(input.presentedHash) },
      await keyOf(input.presentedToken),
      new TextEncoder().encode(input.body),
    ),
  );
  const blob = new Uint8Array(iv.length + sealed.length);
  blob.set(iv);
  blob.set(sealed, iv.length);
  return [
    { sql: "DELETE FROM svc_refresh_reuse WHERE expires_at < ?", args: [input.now] },
    {
      sql:
        "INSERT OR REPLACE INTO svc_refresh_reuse (token_hash, grant_id, successor_hash, response, expires_at) " +
        "VALUES (?, ?, ?, ?, ?)",
      args: [
        input.presentedHash,
        input.grantId,
        input.successorHash,
        blob.toBase64(),
        input.now + input.windowSeconds * 1000,
      ],
    },
  ];
}

/** The kept token response for a rotated-out token presented within the window, or undefined. */
export async function reusedResponse(
  client: Client,
  presentedToken: string,
  presentedHash: string,
  now = Date.now(),
): Promise<Response | undefined> {
  const result = await client.execute({
    sql:
      "SELECT r.response FROM svc_refresh_reuse r JOIN oauth_refresh_token t ON t.token = r.successor_hash " +
      "WHERE r.token_hash = ? AND r.expires_at > ?",
    args: [presentedHash, now],
  });
  const row = result.rows[0];
  if (!row) return undefined;
  try {
    const blob = Uint8Array.fromBase64(String(row.response));
    const body = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: blob.slice(0, 12), additionalData: new TextEncoder().encode(presentedHash) },
      await keyOf(presentedToken),
      blob.slice(12),
    );
    return new Response(body, {
      headers: { "content-type": "application/json", "cache-control": "no-store", pragma: "no-cache" },
    });
  } catch {
    return undefined;
  }
}
