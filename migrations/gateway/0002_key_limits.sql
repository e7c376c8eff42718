-- Per-key limits and budgets (NULL: no limit), the models a key may use, its expiry, and admin keys
-- (which call the admin API and nothing else).
ALTER TABLE gateway_api_keys ADD COLUMN rpm INTEGER;
ALTER TABLE gateway_api_keys ADD COLUMN tpm INTEGER;
ALTER TABLE gateway_api_keys ADD COLUMN max_concurrency INTEGER;
ALTER TABLE gateway_api_keys ADD COLUMN budget_usd REAL;
ALTER TABLE gateway_api_keys ADD COLUMN budget_period TEXT;
ALTER TABLE gateway_api_keys ADD COLUMN models TEXT;
ALTER TABLE gateway_api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE gateway_api_keys ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
