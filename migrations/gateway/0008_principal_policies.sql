-- Policies of signed-in identities (gateway/identity/): one row per subject, `user:<sub>`, `group:<org>` or
-- `group:<org/team>`, or `default:user`; the limit columns mean what they mean on gateway_api_keys. The most
-- specific row that matches a principal applies (user, then team, then organisation, then the default).
CREATE TABLE gateway_principal_policies (
  subject TEXT PRIMARY KEY NOT NULL,
  rpm INTEGER,
  tpm INTEGER,
  max_concurrency INTEGER,
  budget_usd REAL,
  budget_period TEXT,
  models TEXT,
  updated_at INTEGER NOT NULL
);
