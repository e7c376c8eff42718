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

/** The columns a batch writes, in the order of {@link usageValues} (every column of the table but `id`). */
export const USAGE_COLUMNS = [
  "at",
  "key_id",
  "model",
  "provider",
  "served_model",
  "attempts",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cost_usd",
  "status",
  "error_type",
  "latency_ms",
  "ttft_ms",
  "stream",
  "trace_id",
  "request_id",
  "warning",
  "ingress",
] as const satisfies readonly (keyof UsageRow)[];

/** Values per row in {@link usageValues}. */
export const USAGE_WIDTH = USAGE_COLUMNS.length;

/**
 * A batch as one flat array, row after row, each row's values in {@link USAGE_COLUMNS} order: the multi-row
 * INSERT's positional arguments as they are, and what the worker store posts to its thread (an array of
 * primitives clones several times cheaper than objects, whose every key is serialized again per row).
 * An absent format is the default's; an absent nullable value is NULL (as when Kysely left its column out).
 */
export function usageValues(rows: readonly UsageRow[]): unknown[] {
  // Pushed, not written into `new Array(n)`: a holey array is cloned as a sparse one, index by index.
  const values: unknown[] = [];
  for (const row of rows) {
    values.push(
      row.at,
      row.key_id,
      row.model,
      row.provider ?? null,
      row.served_model ?? null,
      row.attempts,
      row.input_tokens,
      row.output_tokens,
      row.cache_read_tokens,
      row.cache_write_tokens,
      row.cost_usd,
      row.status,
      row.error_type ?? null,
      row.latency_ms,
      row.ttft_ms ?? null,
      row.stream,
      row.trace_id,
      row.request_id,
      row.warning ?? null,
      row.ingress ?? "anthropic",
    );
  }
  return values;
}
