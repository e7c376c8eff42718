/**
 * Creation of the ID-token signing key, at most once. Better Auth's JWT plugin mints a key lazily when it
 * finds none, so concurrent first requests (in one isolate or across several over one database) would each
 * insert their own key. This adapter makes the insert conditional — one SQL statement, atomic in SQLite and
 * libSQL — and hands every caller the key that won.
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
        WHERE expires_at IS NULL OR expires_at > ${now}
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
  };
}
