/** The usage ledger's row and table, as stored (shared by the writer, its stores and the rollups). */

/** One ledger row, as stored. */
export interface UsageRow {
  at: number;
  key_id: string;
  model: string;
  provider: string | null;
  served_model: string | null;
  attempts: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  status: number;
  error_type: string | null;
  latency_ms: number;
  ttft_ms: number | null;
  stream: number;
  trace_id: string;
  request_id: string;
  warning: string | null;
  /** The API format of the request (`anthropic`, `openai-chat`, `openai-responses`); default `anthropic`. */
  ingress?: string;
}

/** Database schema of the ledger table. */
export interface UsageDatabase {
  gateway_usage: UsageRow & { id?: number };
}
