-- The admin console (gateway/console/): sign-ins in progress (state → PKCE verifier and nonce, bound to the
-- browser by a cookie whose hash is stored) and server-side sessions (only the SHA-256 of the cookie value is
-- stored). Plus ledger indexes for the console: filters by model and by status, and a covering index over
-- the columns the usage charts sum, so a date range is aggregated from the index alone (bench:admin).
CREATE TABLE gateway_console_logins (
  state_hash TEXT PRIMARY KEY NOT NULL,
  browser_hash TEXT NOT NULL,
  verifier TEXT NOT NULL,
  nonce TEXT NOT NULL,
  return_to TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX gateway_console_logins_created ON gateway_console_logins (created_at);
CREATE TABLE gateway_console_sessions (
  id_hash TEXT PRIMARY KEY NOT NULL,
  user_id TEXT NOT NULL,
  email TEXT,
  name TEXT,
  csrf TEXT NOT NULL,
  id_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX gateway_console_sessions_expires ON gateway_console_sessions (expires_at);
CREATE INDEX gateway_usage_model_at ON gateway_usage (model, at);
CREATE INDEX gateway_usage_status_at ON gateway_usage (status, at);
CREATE INDEX gateway_usage_at_totals ON gateway_usage
  (at, status, input_tokens, output_tokens, cost_usd, latency_ms, key_id, model, provider);
