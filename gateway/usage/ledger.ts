/**
 * The usage ledger's writer: rows are queued by the request path (an array push) and written in batches (one
 * transaction of multi-row INSERTs, rollup.ts), every `flushMs` or once `batchSize` are waiting, through a
 * {@link LedgerStore} (a worker thread for a local file, whose native client would block the request path). A
 * failed write keeps its rows and is retried with backoff (a user's request never waits for or fails on the
 * ledger); past `maxQueued` the oldest rows are dropped with an error log. `flush()` drains everything
 * (SIGTERM). Rows older than the retention (rounded down to a UTC day) are deleted at most once an hour.
 */
import type { Kysely } from "kysely";
import type { Logger } from "@switchyard/lib/log.ts";
import { kyselyLedgerStore, type LedgerStore } from "./ledger_store.ts";

// The row and schema types live in row.ts (ledger_store.ts and rollup.ts read them without this writer).
export type { UsageDatabase, UsageRow } from "./row.ts";
import type { UsageDatabase, UsageRow } from "./row.ts";

/**
 * Rows that trigger a write at once, by default. Under load a write costs a transaction, a WAL fsync and a
 * message to the writer thread whatever its size: 1,000 rows per write instead of 200 took the writer thread
 * from 8.4–9.3 to 6.4–7.7 µs per request at c=32 (bench server, docs/gateway.md "Usage ledger CPU"). A row
 * still waits at most `flushMs`.
 */
export const DEFAULT_BATCH_SIZE = 1_000;

/** Options of {@link UsageLedger}. */
export interface UsageLedgerOptions {
  /** Opens (once) the database the rows go to. */
  db: () => Promise<Kysely<UsageDatabase>>;
  /** Where batches are written instead of `db` (a worker thread for a local file: see ledger_store.ts). */
  store?: LedgerStore;
  /** Logs write failures. */
  logger: Logger;
  /** Days rows are kept. */
  retentionDays: number;
  /** Longest a row waits before its batch is written. */
  flushMs?: number;
  /** Rows that trigger a write at once. */
  batchSize?: number;
  /** Most rows held while writes fail. */
  maxQueued?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/** Batches ledger rows into the database. */
export class UsageLedger {
  #options: Required<Omit<UsageLedgerOptions, "now" | "store">> & { now: () => number };
  #store: LedgerStore;
  #queue: UsageRow[] = [];
  /** `performance.now()` when each queued row arrived (parallel to #queue). */
  #arrivals: number[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The pending timer writes at once (a full batch), not after a wait. */
  #timerAtOnce = false;
  #writing: Promise<void> | undefined;
  #failures = 0;
  #prunedAt = -Infinity;
  /** Rows written so far. */
  written = 0;

  /** Rows are written to `options.db()`. */
  constructor(options: UsageLedgerOptions) {
    this.#options = {
      flushMs: 1_000,
      batchSize: DEFAULT_BATCH_SIZE,
      maxQueued: 100_000,
      now: Date.now,
      ...options,
    };
    this.#store = options.store ?? kyselyLedgerStore(options.db);
  }

  /** Queues a row (never throws, never waits). */
  record(row: UsageRow): void {
    // Every row of a batch names the same columns (one multi-row INSERT): an absent format is the default's.
    row.ingress ??= "anthropic";
    this.#queue.push(row);
    this.#arrivals.push(performance.now());
    if (this.#queue.length > this.#options.maxQueued) {
      this.#arrivals.splice(0, this.#queue.length - this.#options.maxQueued);
      const dropped = this.#queue.splice(0, this.#queue.length - this.#options.maxQueued);
      this.#options.logger.error("usage ledger dropped rows", { rows: dropped.length });
    }
    if (this.#queue.length >= this.#options.batchSize) this.#kick(0);
    else this.#kick(this.#options.flushMs);
  }

  #kick(delayMs: number): void {
    if (this.#writing) return;
    if (this.#timer !== undefined) {
      // A write already due at once stays as it is (each row past a full batch would otherwise make a timer),
      // and so does a failed write's backoff (under load every row finds a full batch: no backoff at all).
      if (delayMs > 0 || this.#timerAtOnce || this.#failures > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timerAtOnce = delayMs === 0;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#writing = this.#write().finally(() => {
        this.#writing = undefined;
        if (this.#queue.length) {
          // Rows that arrived during the write wait out what is left of their own flushMs, not a fresh one.
          const due = Math.max(0, this.#arrivals[0] + this.#options.flushMs - performance.now());
          this.#kick(this.#failures ? Math.min(30_000, 250 * 2 ** this.#failures) : due);
        }
      });
    }, delayMs);
  }

  async #write(): Promise<void> {
    const batch = this.#queue.splice(0, this.#options.batchSize);
    const arrivals = this.#arrivals.splice(0, batch.length);
    if (!batch.length) return;
    try {
      await this.#store.insert(batch);
      this.written += batch.length;
      this.#failures = 0;
    } catch (error) {
      this.#queue.unshift(...batch);
      this.#arrivals.unshift(...arrivals);
      if (this.#failures++ === 0) {
        this.#options.logger.error("usage ledger write failed; retrying", { error });
      }
      return;
    }
    // Apart from the insert: a failed prune must not queue the written rows again.
    await this.#prune().catch((error) => this.#options.logger.error("usage ledger prune failed", { error }));
  }

  async #prune(): Promise<void> {
    const now = this.#options.now();
    if (now - this.#prunedAt < 3_600_000) return;
    this.#prunedAt = now;
    // Whole UTC days, so the daily rollups stay equal to the ledger: a row is kept up to a day past retention.
    const day = 86_400_000;
    await this.#store.prune(Math.floor((now - this.#options.retentionDays * day) / day) * day);
  }

  /** Writes every queued row (retrying failed writes up to `attempts` times). */
  async flush(attempts = 5): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (let i = 0; i < attempts && (this.#queue.length || this.#writing); i++) {
      if (this.#writing) await this.#writing;
      while (this.#queue.length) {
        const before = this.#queue.length;
        await this.#write();
        if (this.#queue.length >= before) break; // failed: try again after the next attempt's wait
      }
      if (this.#queue.length) await new Promise((r) => setTimeout(r, 100 * (i + 1)));
    }
  }

  /** Writes what is queued, then releases the store. */
  async close(): Promise<void> {
    await this.flush();
    this.#store.close();
  }

  /** Rows waiting to be written. */
  get queued(): number {
    return this.#queue.length;
  }
}
