-- Placeholder on branch h-auth-logout only: the audit log's migration (another branch) takes this number.
-- Migrations are numbered without gaps, so 0004 needs a 0003; at merge the other branch's 0003 replaces
-- this file (delete it if its name differs).
SELECT 1;
