/**
 * The ledger's writer thread for a local (`file:`) database: the native libSQL client runs each INSERT
 * synchronously on the thread that calls it (≈ 10 ms for a batch of 200 rows with its fsync), which on the
 * main thread would stall every request in flight. Here it stalls only this worker. Messages:
 * `{ id, url, values }` inserts (a batch as row.ts's `usageValues`, flat), `{ id, url, before }` deletes rows
 * older than `before` and their rollups; each is answered `{ id, error? }` once committed.
 */
/// <reference lib="deno.worker" />
import type { Kysely } from "kysely";
import { openDatabase } from "@switchyard/lib/db.ts";
import type { UsageDatabase } from "./row.ts";
import { pruneLedger } from "./ledger_store.ts";
import { writeUsageValues } from "./rollup.ts";

let database: Promise<Kysely<UsageDatabase>> | undefined;

self.onmessage = async (
  event: MessageEvent<{ id: number; url: string; values?: unknown[]; before?: number }>,
) => {
  const { id, url, values, before } = event.data;
  try {
    database ??= openDatabase<UsageDatabase>({ url }).then((opened) => opened.db);
    const db = await database.catch((error) => {
      database = undefined; // open again next time
      throw error;
    });
    if (values) await writeUsageValues(db, values);
    if (before !== undefined) await pruneLedger(db, before);
    self.postMessage({ id });
  } catch (error) {
    self.postMessage({ id, error: (error as Error)?.message ?? String(error) });
  }
};
