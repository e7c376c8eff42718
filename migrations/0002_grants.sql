-- The service's own grant tracking (auth/grants/), beside Better Auth's tables. Better Auth 1.6.23 links no
-- token to the authorization that produced it, so replay detection could only revoke "everything of this
-- user and client". Each code redemption starts a grant; every access and refresh token issued from it, and
-- from its refresh chain, is recorded here by the stored (hashed) token, so a replay revokes that grant only.
CREATE TABLE svc_grant_token (
  token_hash TEXT PRIMARY KEY NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX svc_grant_token_grant_idx ON svc_grant_token (grant_id);

-- One row per redeemed code or rotated refresh token: the first request to insert it wins, every later one
-- is a replay (also across instances sharing the database).
CREATE TABLE svc_grant_claim (
  claim_key TEXT PRIMARY KEY NOT NULL,
  grant_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX svc_grant_claim_expiry_idx ON svc_grant_claim (expires_at);

-- Grants revoked by a replay or by revocation: tokens a winner records after the revocation are dropped.
CREATE TABLE svc_grant_revoked (
  grant_id TEXT PRIMARY KEY NOT NULL,
  revoked_at INTEGER NOT NULL
);
