/**
 * ID-token signing without per-token key work, for the grants the service answers itself. Better Auth
 * 1.6.23 signs each token by reading every row of `jwks`, decrypting the newest private key with the
 * service secret and importing it — about a millisecond before the RSA signature itself. Here the decrypted
 * key is kept per `kid`, which key is current (the newest usable row, as Better Auth chooses it) is looked up
 * at most once a second, so a key added by rotation in another process signs within a second, and the RSA
 * signature itself runs off the event loop (key_signer.ts: libcrypto, else signing threads).
 */
import { symmetricDecrypt } from "better-auth/crypto";
import { importJWK, type JWTPayload, SignJWT } from "jose";
import type { Client } from "@libsql/client";
import { type KeySigner, offThreadSigner } from "./off_thread_signer.ts";

/** How long the current key's id is trusted before the table is asked again. */
const CURRENT_KEY_TTL_MS = 1000;

interface KeyRow {
  id: string;
  privateKey: string;
}

/** What the signer needs. */
export interface IdTokenSignerDeps {
  /** The auth database. */
  client: Client;
  /** The secret the private keys are encrypted with. */
  secret: string;
  /** Mints the first key the way Better Auth does (its JWKS endpoint creates one when there is none). */
  ensureKey(): Promise<unknown>;
  /** Clock, for tests. */
  now?: () => number;
  /** Signs with a decrypted key (default: signing threads; the service passes key_signer.ts's choice). */
  signer?: KeySigner;
}

/**
 * Signs a JWT with the current RS256 key (`kid` in the header); with `typ`, the header also carries it (the
 * logout tokens of auth/logout/, rare enough to sign in-thread).
 */
export type JwtSigner = (payload: JWTPayload, typ?: string) => Promise<string>;

/** Creates a signer over the service's `jwks` table. */
export function idTokenSigner(deps: IdTokenSignerDeps): JwtSigner {
  const now = deps.now ?? Date.now;
  const signer = deps.signer ?? offThreadSigner();
  const decrypted = new Map<string, Promise<Record<string, unknown>>>();
  let current: { row: KeyRow; checkedAt: number } | undefined;

  const latestKey = async (): Promise<KeyRow | undefined> => {
    const result = await deps.client.execute({
      // A rotated-in key is published before its created_at and signs only from then on.
      sql:
        "SELECT id, private_key FROM jwks WHERE (expires_at IS NULL OR expires_at > ?) AND created_at <= ? " +
        "ORDER BY created_at DESC, id DESC LIMIT 1",
      args: [now(), now()],
    });
    const row = result.rows[0];
    return row ? { id: String(row.id), privateKey: String(row.private_key) } : undefined;
  };

  const currentKey = async (): Promise<KeyRow> => {
    if (current && now() - current.checkedAt < CURRENT_KEY_TTL_MS) return current.row;
    let row = await latestKey();
    if (!row) {
      await deps.ensureKey();
      row = await latestKey();
    }
    if (!row) throw new Error("no ID-token signing key could be created");
    current = { row, checkedAt: now() };
    return row;
  };

  const privateJwk = (row: KeyRow): Promise<Record<string, unknown>> => {
    let jwk = decrypted.get(row.id);
    if (!jwk) {
      jwk = symmetricDecrypt({ key: deps.secret, data: JSON.parse(row.privateKey) }).then((text) =>
        JSON.parse(text) as Record<string, unknown>
      );
      jwk.catch(() => decrypted.delete(row.id));
      decrypted.set(row.id, jwk);
    }
    return jwk;
  };

  return async (payload, typ) => {
    const row = await currentKey();
    const jwk = await privateJwk(row);
    if (typ === undefined) return await signer(row.id, jwk, payload);
    return await new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: row.id, typ })
      .sign(await importJWK(jwk, "RS256"));
  };
}
