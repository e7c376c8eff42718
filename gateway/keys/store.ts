/**
 * Gateway API keys in the gateway's libSQL database. A key is `sy_` + 43 base64url characters (256 random
 * bits); only its SHA-256 is stored (high-entropy keys need no salt or slow hash), with a short prefix for
 * recognising it in listings. The same key works on every API path.
 */
import { sha256Hex } from "./sha256.ts";
import type { Kysely } from "kysely";

/** Database schema of the keys table. */
export interface KeysDatabase {
  gateway_api_keys: {
    id: string;
    name: string;
    key_hash: string;
    key_prefix: string;
    created_at: number;
    revoked_at: number | null;
  };
}

/** A key as listed (never the key itself). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** The shape every issued key has; anything else is rejected without a database lookup. */
export const KEY_SHAPE = /^sy_[A-Za-z0-9_-]{43}$/;

/** Lowercase hex SHA-256 of a key. */
export function hashKey(key: string): string {
  return sha256Hex(key);
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Creates, lists and revokes keys. */
export class ApiKeyStore {
  #db: Kysely<KeysDatabase>;

  /** Wraps an opened database whose gateway migrations are applied. */
  constructor(db: Kysely<KeysDatabase>) {
    this.#db = db;
  }

  /** Creates a key named `name`; the returned `key` is never retrievable again. */
  async create(name: string, now = Date.now()): Promise<{ id: string; key: string }> {
    const key = `sy_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
    const id = `key_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    await this.#db.insertInto("gateway_api_keys").values({
      id,
      name,
      key_hash: hashKey(key),
      key_prefix: key.slice(0, 10),
      created_at: now,
      revoked_at: null,
    }).execute();
    return { id, key };
  }

  /** Every key, newest first. */
  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.#db.selectFrom("gateway_api_keys")
      .select(["id", "name", "key_prefix", "created_at", "revoked_at"])
      .orderBy("created_at", "desc").execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.key_prefix,
      createdAt: new Date(Number(r.created_at)).toISOString(),
      revokedAt: r.revoked_at === null ? null : new Date(Number(r.revoked_at)).toISOString(),
    }));
  }

  /** Revokes key `id`; false when no active key has that id. */
  async revoke(id: string, now = Date.now()): Promise<boolean> {
    const result = await this.#db.updateTable("gateway_api_keys").set({ revoked_at: now })
      .where("id", "=", id).where("revoked_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Hashes of every active key with their ids (what the verifier caches). */
  async activeHashes(): Promise<Array<{ id: string; key_hash: string }>> {
    return await this.#db.selectFrom("gateway_api_keys").select(["id", "key_hash"])
      .where("revoked_at", "is", null).execute();
  }
}
