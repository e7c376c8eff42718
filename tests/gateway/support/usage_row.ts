/** A ledger row for tests: a plain successful request with one token each way. */
import type { UsageRow } from "../../../gateway/usage/row.ts";

export function usageRow(requestId: string): UsageRow {
  return {
    at: Date.now(),
    key_id: "key_a",
    model: "m",
    provider: "p",
    served_model: "m",
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
    request_id: requestId,
    warning: null,
  };
}
