-- The service's own access records (auth/membership/, auth/operations/users.ts), beside Better Auth's tables.
-- One row per user: the GitHub login the allowlist matches, the last membership check (when, what it found,
-- when it last succeeded) and the groups it found among the allowed organisations and teams, and whether an
-- operator disabled the user. The refresh grant reads it in the same query as the user (a LEFT JOIN), so a
-- cached check costs no extra round trip and no GitHub call.
CREATE TABLE svc_user_access (
  user_id TEXT PRIMARY KEY NOT NULL REFERENCES user (id) ON DELETE CASCADE,
  github_login TEXT,
  checked_at INTEGER,
  check_status TEXT CHECK (check_status IN ('member', 'denied', 'unavailable')),
  check_reason TEXT,
  ok_at INTEGER,
  groups TEXT NOT NULL DEFAULT '[]',
  disabled_at INTEGER
);

-- Append-only audit log (auth/audit/): who did what, when, with which outcome and why; never a secret or a
-- token. Rows are only inserted, and deleted by the bounded retention prune.
CREATE TABLE svc_audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL,
  user_id TEXT,
  client_id TEXT,
  subject TEXT,
  actor TEXT NOT NULL,
  reason TEXT
);
CREATE INDEX svc_audit_at_idx ON svc_audit (at);
CREATE INDEX svc_audit_user_idx ON svc_audit (user_id, at);
CREATE TRIGGER svc_audit_no_update BEFORE UPDATE ON svc_audit
BEGIN
  SELECT RAISE(ABORT, 'svc_audit is append-only');
END;
