/**
 * Gateway API keys in the gateway's libSQL database. A key is `sy_` + 43 base64url characters (256 random
 * bits); only its SHA-256 is stored (high-entropy keys need no salt or slow hash), with a short prefix for
 * recognising it in listings. The same key works on every API path.
 */
import { base64urlEncode, sha256Hex } from "@switchyard/lib/crypto.ts";
import type { Kysely } from "kysely";
import type { BudgetPeriod, PolicyRow } from "../limits/policy.ts";

/** Database schema of the keys table. */
export interface KeysDatabase {
  gateway_api_keys: {
    id: string;
    name: string;
    key_hash: string;
    key_prefix: string;
    created_at: number;
    revoked_at: number | null;
    rpm: number | null;
    tpm: number | null;
    max_concurrency: number | null;
    budget_usd: number | null;
    budget_period: string | null;
    /** JSON array of model names, or NULL for all models. */
    models: string | null;
    expires_at: number | null;
    admin: number;
  };
}

/** The settings of a key, as `create` takes them and `update` changes them (null clears one). */
export interface KeySettings {
  rpm?: number | null;
  tpm?: number | null;
  maxConcurrency?: number | null;
  budgetUsd?: number | null;
  budgetPeriod?: BudgetPeriod | null;
  models?: string[] | null;
  /** Epoch ms. */
  expiresAt?: number | null;
}

/** The columns of {@link KeySettings}. */
function settingsColumns(settings: KeySettings): Partial<KeysDatabase["gateway_api_keys"]> {
  const columns: Partial<KeysDatabase["gateway_api_keys"]> = {};
  if (settings.rpm !== undefined) columns.rpm = settings.rpm;
  if (settings.tpm !== undefined) columns.tpm = settings.tpm;
  if (settings.maxConcurrency !== undefined) columns.max_concurrency = settings.maxConcurrency;
  if (settings.budgetUsd !== undefined) columns.budget_usd = settings.budgetUsd;
  if (settings.budgetPeriod !== undefined) columns.budget_period = settings.budgetPeriod;
  if (settings.models !== undefined) columns.models = settings.models && JSON.stringify(settings.models);
  if (settings.expiresAt !== undefined) columns.expires_at = settings.expiresAt;
  return columns;
}

/** A key as listed (never the key itself). */
export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  /** `admin` keys call the admin API only. */
  admin: boolean;
  rpm: number | null;
  tpm: number | null;
  maxConcurrency: number | null;
  budgetUsd: number | null;
  budgetPeriod: string | null;
  models: string[] | null;
  expiresAt: string | null;
}

/** The shape every issued key has; anything else is rejected without a database lookup. */
export const KEY_SHAPE = /^sy_[A-Za-z0-9_-]{43}$/;

/** Lowercase hex SHA-256 of a key. */
export function hashKey(key: string): string {
  return sha256Hex(key);
}

/** Creates, lists and revokes keys. */
export class ApiKeyStore {
  #db: Kysely<KeysDatabase>;

  /** Wraps an opened database whose gateway migrations are applied. */
  constructor(db: Kysely<KeysDatabase>) {
    this.#db = db;
  }

  /** Creates a key named `name`; the returned `key` is never retrievable again. */
  async create(
    name: string,
    settings: KeySettings & { admin?: boolean } = {},
    now = Date.now(),
  ): Promise<{ id: string; key: string }> {
    const key = `sy_${base64urlEncode(crypto.getRandomValues(new Uint8Array(32)))}`;
    const id = `key_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    await this.#db.insertInto("gateway_api_keys").values({
      id,
      name,
      key_hash: hashKey(key),
      key_prefix: key.slice(0, 10),
      created_at: now,
      revoked_at: null,
      rpm: null,
      tpm: null,
      max_concurrency: null,
      budget_usd: null,
      budget_period: null,
      models: null,
      expires_at: null,
      admin: settings.admin ? 1 : 0,
      ...settingsColumns(settings),
    }).execute();
    return { id, key };
  }

  /** Changes the settings of active key `id`; false when there is none. */
  async update(id: string, settings: KeySettings): Promise<boolean> {
    const columns = settingsColumns(settings);
    if (!Object.keys(columns).length) return (await this.list()).some((k) => k.id === id && !k.revokedAt);
    const result = await this.#db.updateTable("gateway_api_keys").set(columns)
      .where("id", "=", id).where("revoked_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Every key, newest first. */
  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.#db.selectFrom("gateway_api_keys").selectAll()
      .orderBy("created_at", "desc").execute();
    const iso = (ms: number | null) => ms === null ? null : new Date(Number(ms)).toISOString();
    const num = (value: number | null) => value === null ? null : Number(value);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.key_prefix,
      createdAt: iso(r.created_at)!,
      revokedAt: iso(r.revoked_at),
      admin: Number(r.admin) === 1,
      rpm: num(r.rpm),
      tpm: num(r.tpm),
      maxConcurrency: num(r.max_concurrency),
      budgetUsd: num(r.budget_usd),
      budgetPeriod: r.budget_period,
      models: r.models === null ? null : JSON.parse(r.models),
      expiresAt: iso(r.expires_at),
    }));
  }

  /** Revokes key `id`; false when no active key has that id. */
  async revoke(id: string, now = Date.now()): Promise<boolean> {
    const result = await this.#db.updateTable("gateway_api_keys").set({ revoked_at: now })
      .where("id", "=", id).where("revoked_at", "is", null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Hashes of every active key with their policy columns (what the verifier caches). */
  async activeHashes(): Promise<Array<PolicyRow & { key_hash: string }>> {
    return await this.#db.selectFrom("gateway_api_keys").select([
      "id",
      "key_hash",
      "rpm",
      "tpm",
      "max_concurrency",
      "budget_usd",
      "budget_period",
      "models",
      "expires_at",
      "admin",
    ]).where("revoked_at", "is", null).execute();
  }
}
