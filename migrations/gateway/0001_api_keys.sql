-- Gateway API keys. Only a SHA-256 of each key is stored; the key itself is shown once at creation.
CREATE TABLE gateway_api_keys (
  id TEXT PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX gateway_api_keys_active ON gateway_api_keys (revoked_at);
