/**
 * The ledger's writer thread for a local (`file:`) database: the native libSQL client runs each INSERT
 * synchronously on the thread that calls it (≈ 10 ms for a batch of 200 rows with its fsync), which on the
 * main thread would stall every request in flight. Here it stalls only this worker. Messages:
 * `{ id, url, rows }` inserts, `{ id, url, before }` deletes rows older than `before` and their rollups; each is answered
 * `{ id, error? }` once committed.
 */
/// <reference lib="deno.worker" />
import type { Kysely } from "kysely";
import { openDatabase } from "@switchyard/lib/db.ts";
import type { UsageDatabase, UsageRow } from "./ledger.ts";
import { pruneLedger } from "./ledger_store.ts";
import { writeUsageBatch } from "./rollup.ts";

let database: Promise<Kysely<UsageDatabase>> | undefined;

self.onmessage = async (
  event: MessageEvent<{ id: number; url: string; rows?: UsageRow[]; before?: number }>,
) => {
  const { id, url, rows, before } = event.data;
  try {
    database ??= openDatabase<UsageDatabase>({ url }).then((opened) => opened.db);
    const db = await database.catch((error) => {
      database = undefined; // open again next time
      throw error;
    });
    if (rows) await writeUsageBatch(db, rows);
    if (before !== undefined) await pruneLedger(db, before);
    self.postMessage({ id });
  } catch (error) {
    self.postMessage({ id, error: (error as Error)?.message ?? String(error) });
  }
};
