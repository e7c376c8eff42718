/**
 * Where the usage ledger's batches go: straight to Kysely (remote libSQL, whose client is asynchronous
 * network I/O), or, for a local `file:` database, to a worker thread (ledger_worker.ts) so the native
 * client's synchronous writes never block the request path.
 */
import { type Kysely, sql } from "kysely";
import { type UsageDatabase, type UsageRow, usageValues } from "./row.ts";
import { writeUsageBatch } from "./rollup.ts";

/** Writes and prunes ledger rows. */
export interface LedgerStore {
  /** Inserts `rows` and adds them to the rollups in one transaction; resolves once committed. */
  insert(rows: UsageRow[]): Promise<void>;
  /** Deletes rows older than `before` (epoch ms, a UTC day boundary) and their rollups. */
  prune(before: number): Promise<void>;
  /** Releases the store (the worker thread). */
  close(): void;
}

/** A store over a Kysely database opened on first use. */
export function kyselyLedgerStore(db: () => Promise<Kysely<UsageDatabase>>): LedgerStore {
  return {
    insert: async (rows) => {
      await writeUsageBatch(await db(), rows);
    },
    prune: async (before) => pruneLedger(await db(), before),
    close: () => {},
  };
}

/**
 * Deletes ledger rows older than `before` and the rollup rows (migration 0005) of the same hours and days, in
 * one transaction. `before` must be a UTC day boundary, or a daily rollup would keep rows the ledger lost.
 */
export async function pruneLedger(db: Kysely<UsageDatabase>, before: number): Promise<void> {
  if (before % 86_400_000 !== 0) throw new Error(`pruneLedger needs a UTC day boundary, got ${before}`);
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("gateway_usage").where("at", "<", before).execute();
    await sql`DELETE FROM gateway_usage_rollup WHERE start < ${before}`.execute(tx);
  });
}

/** A store whose writes run on a worker thread with its own connection to the `file:` database `url`. */
export function workerLedgerStore(
  url: string,
  /** The writer's module (tests give a stand-in). */
  script: URL = new URL("./ledger_worker.ts", import.meta.url),
): LedgerStore {
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  const send = (message: { values?: unknown[]; before?: number }): Promise<void> => {
    if (!worker) {
      const started = worker = new Worker(script, { type: "module" });
      worker.onmessage = (event: MessageEvent<{ id: number; error?: string }>) => {
        const done = waiting.get(event.data.id);
        waiting.delete(event.data.id);
        if (event.data.error === undefined) done?.resolve();
        else done?.reject(new Error(event.data.error));
      };
      // An error the writer did not catch (its module failing to load, say) would otherwise reach the main
      // thread and end the gateway, and leave its writes unanswered: they fail instead (the ledger retries
      // them with backoff), and the next write starts a new writer.
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        started.terminate();
        if (worker === started) worker = undefined;
        for (const done of waiting.values()) {
          done.reject(new Error(`usage ledger writer failed: ${event.message}`));
        }
        waiting.clear();
      };
    }
    const id = nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, url, ...message });
    return promise;
  };
  return {
    // Flat values, not the row objects: structured clone writes and reads every key of every object again.
    insert: (rows) => send({ values: usageValues(rows) }),
    prune: (before) => send({ before }),
    close: () => {
      worker?.terminate();
      worker = undefined;
      for (const done of waiting.values()) done.reject(new Error("usage ledger store closed"));
      waiting.clear();
    },
  };
}
