/**
 * Issue 30 (chaos scenario 3): rows that arrived while a batch was being written waited a fresh
 * GATEWAY_USAGE_FLUSH_MS after that write ended, so under a slow disk a row could sit in memory for the flush
 * interval plus the write — longer than the documented window a SIGKILL may lose. Each row now waits at most
 * its own flush interval (plus the write under way).
 */
import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { UsageLedger } from "./ledger.ts";
import { usageRow as row } from "../../tests/gateway/support/usage_row.ts";
import type { LedgerStore } from "./ledger_store.ts";

/** A ledger over `store` (no database), with `options`' flush interval and batch size. */
function ledgerOver(store: LedgerStore, options: { flushMs: number; batchSize?: number }): UsageLedger {
  return new UsageLedger({
    db: () => Promise.reject(new Error("unused")),
    store,
    logger: createLogger({ level: "silent" }),
    retentionDays: 90,
    ...options,
  });
}

Deno.test("a row queued during a slow write is written within its own flush interval after that write", async () => {
  const WRITE_MS = 300;
  const FLUSH_MS = 200;
  const committed = new Map<string, number>();
  const store: LedgerStore = {
    insert: async (rows) => {
      await new Promise((r) => setTimeout(r, WRITE_MS));
      for (const r of rows) committed.set(r.request_id, performance.now());
    },
    prune: () => Promise.resolve(),
    close: () => {},
  };
  const ledger = ledgerOver(store, { flushMs: FLUSH_MS });
  ledger.record(row("a")); // written at FLUSH_MS, committed at FLUSH_MS + WRITE_MS
  await new Promise((r) => setTimeout(r, FLUSH_MS + 50));
  const queuedB = performance.now(); // during a's write
  ledger.record(row("b"));
  await new Promise((r) => setTimeout(r, FLUSH_MS + 3 * WRITE_MS));
  const waited = committed.get("b")! - queuedB;
  // b is due FLUSH_MS after it arrived, which is before a's write ends: it goes right after, then commits
  // (≈ 550 ms). The old behaviour waited a fresh FLUSH_MS after a's write (≈ 750 ms); the bound sits between,
  // with room for a loaded machine's timer lag.
  assert.ok(waited < FLUSH_MS + WRITE_MS + 150, `b waited ${Math.round(waited)} ms`);
  await ledger.close();
});

Deno.test("a full batch is written at once, however many rows arrive before its write starts", async () => {
  const batches: string[][] = [];
  const store: LedgerStore = {
    insert: (rows) => {
      batches.push(rows.map((r) => r.request_id));
      return Promise.resolve();
    },
    prune: () => Promise.resolve(),
    close: () => {},
  };
  const ledger = ledgerOver(store, { flushMs: 60_000, batchSize: 3 });
  // Rows 3 to 7 each find a full batch waiting (its write due at once): one write of the first 3; the rest
  // wait for the next row (a full batch again) or their flush interval.
  for (let i = 1; i <= 7; i++) ledger.record(row(`r${i}`));
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(batches, [["r1", "r2", "r3"]]);
  ledger.record(row("r8")); // a full batch waiting again (r4..r8): written at once
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(batches, [["r1", "r2", "r3"], ["r4", "r5", "r6"]]);
  assert.equal(ledger.queued, 2, "r7 and r8 wait for their flush interval");
  await ledger.close();
  assert.deepEqual(batches.at(-1), ["r7", "r8"]);
});

Deno.test("a failed write is retried after its backoff, which rows arriving past a full batch do not cut short", async () => {
  let inserts = 0;
  const store: LedgerStore = {
    insert: () => {
      inserts++;
      return Promise.reject(new Error("database down"));
    },
    prune: () => Promise.resolve(),
    close: () => {},
  };
  const ledger = ledgerOver(store, { flushMs: 60_000, batchSize: 2 });
  // Under load every row finds a full batch waiting: the first write goes at once and fails; the retry waits
  // its backoff (250 ms), not the next row.
  for (let i = 0; i < 40; i++) {
    ledger.record(row(`r${i}`));
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.ok(inserts <= 2, `${inserts} writes in about 200 ms of a database that is down`);
  assert.equal(ledger.queued, 40, "no row lost");
  await ledger.flush(1);
});
