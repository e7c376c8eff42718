/**
 * Key verification without a database round trip per request: an in-memory snapshot of active key hashes,
 * refreshed in the background once it is older than `ttlMs`, refreshed before answering once it is older
 * than `2 × ttlMs` (so a revocation is honoured within that bound), and refreshed at most every
 * `missRefreshMs` for keys it does not know (a new key works at once; garbage keys cannot flood the DB).
 */
import { hashKey, KEY_SHAPE } from "./store.ts";
import { type KeyPolicy, policyOfRow, type PolicyRow } from "../limits/policy.ts";

/** Loads the active key hashes with their policy columns. */
export type ActiveKeysLoader = () => Promise<Array<PolicyRow & { key_hash: string }>>;

/** Options of {@link KeyVerifier}. */
export interface KeyVerifierOptions {
  /** Age after which the snapshot is refreshed in the background. */
  ttlMs: number;
  /** Minimum gap between refreshes triggered by unknown keys. */
  missRefreshMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** Verifies presented API keys against a cached snapshot. */
export class KeyVerifier {
  #load: ActiveKeysLoader;
  #ttl: number;
  #missGap: number;
  #now: () => number;
  #snapshot = new Map<string, KeyPolicy>();
  #loadedAt = -Infinity;
  #inflight: Promise<void> | null = null;
  /** Number of snapshot loads so far (observability and tests). */
  loads = 0;

  /** `load` reads active hashes from the database. */
  constructor(load: ActiveKeysLoader, options: KeyVerifierOptions) {
    this.#load = load;
    this.#ttl = options.ttlMs;
    this.#missGap = options.missRefreshMs ?? 250;
    // Date.now: a V8 builtin, where performance.now is an op call on every request. A clock stepped
    // backwards makes the age negative, which counts as stale (see verify).
    this.#now = options.now ?? Date.now;
  }

  /** Reloads the snapshot (single flight). */
  refresh(): Promise<void> {
    if (this.#inflight) return this.#inflight;
    const started = this.#now();
    this.#inflight = this.#load().then((rows) => {
      this.#snapshot = new Map(rows.map((r) => [r.key_hash, policyOfRow(r)]));
      this.#loadedAt = started;
      this.loads++;
    }).finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  /**
   * The key's policy when the snapshot is fresh (younger than the TTL) and knows the key, else undefined
   * (`verify` then refreshes or refuses as it does). No promise: the hot path's common case.
   */
  verifyNow(key: string): KeyPolicy | undefined {
    const age = this.#now() - this.#loadedAt;
    if (age >= this.#ttl || age < 0 || !KEY_SHAPE.test(key)) return undefined;
    return this.#snapshot.get(hashKey(key));
  }

  /** The key's policy when it is an active key, else null. */
  async verify(key: string): Promise<KeyPolicy | null> {
    if (!KEY_SHAPE.test(key)) return null;
    const hash = hashKey(key);
    const age = this.#now() - this.#loadedAt;
    if (age >= 2 * this.#ttl || age < 0) await this.refresh();
    else if (age >= this.#ttl) this.refresh().catch(() => {});
    let policy = this.#snapshot.get(hash);
    if (policy === undefined && this.#now() - this.#loadedAt >= this.#missGap) {
      await this.refresh();
      policy = this.#snapshot.get(hash);
    }
    return policy ?? null;
  }
}
