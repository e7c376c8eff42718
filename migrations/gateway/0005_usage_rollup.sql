-- Rollups of the usage ledger for the console's Usage page and exports: one row per hour and per UTC day
-- (`width` in ms, `start` the bucket's first ms) and key, model and provider ('' for none), kept by a trigger
-- as the ledger writes, so a range is summed from at most a few thousand rows instead of every ledger row
-- (over 100k rows the covering index of 0004 took 75–86 ms against a 50 ms target; bench:admin). Pruning
-- deletes ledger rows at UTC day boundaries and the rollup rows of the same days (ledger_store.ts), so both
-- stay equal.
CREATE TABLE gateway_usage_rollup (
  width INTEGER NOT NULL,
  start INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  provider TEXT NOT NULL,
  requests INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  latency_sum REAL NOT NULL,
  max_latency_ms REAL NOT NULL,
  PRIMARY KEY (width, start, key_id, model, provider)
) WITHOUT ROWID;
INSERT INTO gateway_usage_rollup
  SELECT w.width, at - at % w.width AS bucket, key_id, model, coalesce(provider, '') AS prov, count(*),
    sum(status >= 400), sum(input_tokens), sum(output_tokens), sum(cost_usd), sum(latency_ms), max(latency_ms)
  FROM gateway_usage, (SELECT 3600000 AS width UNION ALL SELECT 86400000) AS w
  GROUP BY w.width, bucket, key_id, model, prov;
CREATE TRIGGER gateway_usage_rollup_insert AFTER INSERT ON gateway_usage
BEGIN
  INSERT INTO gateway_usage_rollup
    VALUES (3600000, NEW.at - NEW.at % 3600000, NEW.key_id, NEW.model, coalesce(NEW.provider, ''), 1,
      NEW.status >= 400, NEW.input_tokens, NEW.output_tokens, NEW.cost_usd, NEW.latency_ms, NEW.latency_ms),
    (86400000, NEW.at - NEW.at % 86400000, NEW.key_id, NEW.model, coalesce(NEW.provider, ''), 1,
      NEW.status >= 400, NEW.input_tokens, NEW.output_tokens, NEW.cost_usd, NEW.latency_ms, NEW.latency_ms)
  ON CONFLICT DO UPDATE SET requests = requests + excluded.requests, errors = errors + excluded.errors,
    input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
    cost_usd = cost_usd + excluded.cost_usd, latency_sum = latency_sum + excluded.latency_sum,
    max_latency_ms = max(max_latency_ms, excluded.max_latency_ms);
END;
