/**
 * bench:ledger's "before" writer thread: gateway/usage/ledger_worker.ts as it was at 462c234 (row objects
 * posted as they are, written through Kysely's query builder). Messages `{ id, url, rows }`, answered `{ id,
 * error? }`.
 */
/// <reference lib="deno.worker" />
import type { Kysely } from "kysely";
import { openDatabase } from "@switchyard/lib/db.ts";
import type { UsageDatabase, UsageRow } from "../gateway/usage/row.ts";
import { writeUsageBatchWithBuilder } from "./ledger_kysely_writer.ts";

let database: Promise<Kysely<UsageDatabase>> | undefined;

self.onmessage = async (event: MessageEvent<{ id: number; url: string; rows: UsageRow[] }>) => {
  const { id, url, rows } = event.data;
  try {
    database ??= openDatabase<UsageDatabase>({ url }).then((opened) => opened.db);
    await writeUsageBatchWithBuilder(await database, rows);
    self.postMessage({ id });
  } catch (error) {
    self.postMessage({ id, error: (error as Error)?.message ?? String(error) });
  }
};
