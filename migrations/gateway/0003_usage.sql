-- The usage and cost ledger: one row per authenticated messages request, written in batches off the
-- request path; rows older than GATEWAY_USAGE_RETENTION_DAYS are deleted by the gateway.
CREATE TABLE gateway_usage (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT,
  served_model TEXT,
  attempts INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  status INTEGER NOT NULL,
  error_type TEXT,
  latency_ms REAL NOT NULL,
  ttft_ms REAL,
  stream INTEGER NOT NULL,
  trace_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  warning TEXT
);
CREATE INDEX gateway_usage_at ON gateway_usage (at);
CREATE INDEX gateway_usage_key_at ON gateway_usage (key_id, at);
