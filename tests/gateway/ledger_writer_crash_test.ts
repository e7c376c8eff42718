import assert from "node:assert/strict";
import { workerLedgerStore } from "../../gateway/usage/ledger_store.ts";
import type { UsageRow } from "../../gateway/usage/row.ts";

const row: UsageRow = {
  at: Date.now(),
  key_id: "k",
  model: "m",
  provider: null,
  served_model: null,
  attempts: 1,
  input_tokens: 1,
  output_tokens: 1,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost_usd: 0,
  status: 200,
  error_type: null,
  latency_ms: 1,
  ttft_ms: null,
  stream: 0,
  trace_id: "t",
  request_id: "r",
  warning: null,
};

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
