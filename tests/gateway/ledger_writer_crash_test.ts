import assert from "node:assert/strict";
import { workerLedgerStore } from "../../gateway/usage/ledger_store.ts";
import { usageRow } from "./support/usage_row.ts";

const row = usageRow("r");

Deno.test("a ledger writer that crashes fails its writes instead of ending the gateway, and the next write starts a new one", async () => {
  const store = workerLedgerStore(
    "file:unused.db",
    new URL("./support/failing_ledger_worker.ts", import.meta.url),
  );
  try {
    await assert.rejects(store.insert([row]), /usage ledger writer failed: .*writer crashed/);
    // Still running (an error left to reach the main thread would have ended this test's process), and the
    // writer is started again for the next batch.
    await assert.rejects(store.insert([row]), /usage ledger writer failed/);
    await assert.rejects(store.prune(0), /usage ledger writer failed/);
  } finally {
    store.close();
  }
});
