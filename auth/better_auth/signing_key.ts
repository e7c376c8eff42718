/**
 * Creation of the ID-token signing key, at most once. Better Auth's JWT plugin mints a key lazily when it
 * finds none, so concurrent first requests (in one isolate or across several over one database) would each
 * insert their own key. This adapter makes the insert conditional — one SQL statement, atomic in SQLite and
 * libSQL — and hands every caller the key that won. It also lists the keys for Better Auth so that a key
 * published ahead of its `created_at` by a rotation (auth/operations/signing_keys.ts) is in the JWKS but
 * never chosen to sign before that moment.
 */
import type { Jwk } from "better-auth/plugins";
import { type Kysely, sql } from "kysely";

type KeyRow = {
  id: string;
  publicKey: string;
  privateKey: string;
  createdAt: string | number;
  expiresAt: string | number | null;
};

/** `jwt({ adapter })` for the service: `createJwk` inserts only when no usable key exists. */
export function singleSigningKeyAdapter(db: Kysely<unknown>) {
  return {
    async createJwk(data: Omit<Jwk, "id">): Promise<Jwk> {
      const now = Date.now();
      const id = crypto.randomUUID().replaceAll("-", "");
      const expiresAt = data.expiresAt ? new Date(data.expiresAt).getTime() : null;
      await sql`INSERT INTO jwks (id, public_key, private_key, created_at, expires_at)
        SELECT ${id}, ${data.publicKey}, ${data.privateKey}, ${now}, ${expiresAt}
        WHERE NOT EXISTS (SELECT 1 FROM jwks WHERE expires_at IS NULL OR expires_at > ${now})`.execute(db);
      const { rows } = await sql<KeyRow>`SELECT id, public_key, private_key, created_at, expires_at FROM jwks
        WHERE (expires_at IS NULL OR expires_at > ${now}) AND created_at <= ${now}
        ORDER BY created_at DESC, id DESC LIMIT 1`.execute(db);
      const row = rows[0];
      if (!row) throw new Error("no signing key after creating one");
      return {
        id: row.id,
        publicKey: row.publicKey,
        privateKey: row.privateKey,
        createdAt: new Date(row.createdAt),
        ...(row.expiresAt === null ? {} : { expiresAt: new Date(row.expiresAt) }),
        alg: data.alg,
        ...(data.crv ? { crv: data.crv } : {}),
      };
    },
    /**
     * Every key, for the JWKS and for Better Auth's newest-first choice of the signing key. A key whose
     * `created_at` is still ahead is reported as created at the epoch: listed, never the newest.
     */
    async getJwks(): Promise<Jwk[]> {
      const now = Date.now();
      const { rows } = await sql<KeyRow>`SELECT id, public_key, private_key, created_at, expires_at FROM jwks`
        .execute(db);
      return rows.map((row) => {
        const createdAt = new Date(row.createdAt).getTime();
        return {
          id: row.id,
          publicKey: row.publicKey,
          privateKey: row.privateKey,
          createdAt: new Date(createdAt > now ? 0 : createdAt),
          ...(row.expiresAt === null ? {} : { expiresAt: new Date(row.expiresAt) }),
        };
      });
    },
  };
}
