-- OIDC Back-Channel Logout 1.0 (auth/logout/). Better Auth 1.6.23's oauth_client has no columns for it, and
-- the schema test pins that table to the library's model, so a client's registration lives beside it.
CREATE TABLE svc_backchannel_client (
  client_id TEXT PRIMARY KEY NOT NULL REFERENCES oauth_client (client_id) ON DELETE CASCADE,
  logout_uri TEXT NOT NULL,
  session_required INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL
);

-- Logout notifications to deliver: one row per relying party and session (or per user when no session is
-- known), written in the same transaction that ends the session or revokes the grant, delivered in the
-- background by the running service (also for rows a CLI command wrote). No token is stored: the logout
-- token is signed at each attempt.
CREATE TABLE svc_backchannel_outbox (
  id TEXT PRIMARY KEY NOT NULL,
  client_id TEXT NOT NULL,
  logout_uri TEXT NOT NULL,
  user_id TEXT NOT NULL,
  session_id TEXT,
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  done_at INTEGER,
  outcome TEXT
);
CREATE INDEX svc_backchannel_outbox_due_idx ON svc_backchannel_outbox (done_at, next_attempt_at);

-- The refresh reuse window (AUTH_REFRESH_REUSE_SECONDS, auth/grants/refresh_reuse.ts): a rotation's token
-- response, AES-GCM encrypted under a key derived from the rotated-out refresh token (which is stored only
-- as its hash), kept for the window so the same token presented again gets the same answer.
CREATE TABLE svc_refresh_reuse (
  token_hash TEXT PRIMARY KEY NOT NULL,
  grant_id TEXT NOT NULL,
  successor_hash TEXT NOT NULL,
  response TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX svc_refresh_reuse_expiry_idx ON svc_refresh_reuse (expires_at);
