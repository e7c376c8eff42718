/**
 * `deno task auth:audit [--since ISO] [--user id] [--action a] [--limit n] [--json] [--remote]`: the audit
 * log (auth/audit/mod.ts), newest first. Rows older than AUTH_AUDIT_RETENTION_DAYS are pruned by the
 * service; `--prune` prunes now (bounded, like the service's own pruning).
 */
import { parseCommandLine, runMain, usageError } from "@switchyard/lib/cli/support.ts";
import { openCommandDatabase, textTable } from "./_command_database.ts";
import { AUDIT_ACTIONS, listAudit, pruneAudit } from "../audit/mod.ts";
import { DEFAULT_AUDIT_RETENTION_DAYS } from "../config.ts";

const USAGE = `Usage: deno task auth:audit [options]

Options:
  --since <ISO>    only rows at or after this time (e.g. 2026-01-31 or 2026-01-31T12:00:00Z)
  --user <id>      only this user's rows
  --action <a>     only this action (${AUDIT_ACTIONS.join(", ")})
  --limit <n>      at most n rows (default 1000)
  --prune          delete rows older than AUTH_AUDIT_RETENTION_DAYS (default ${DEFAULT_AUDIT_RETENTION_DAYS}) first
  --json           machine-readable output (one JSON array)
  --remote         target the remote AUTH_DATABASE_URL (with AUTH_DATABASE_AUTH_TOKEN)`;

/** Runs the command; returns the exit code. */
export async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine({
    args,
    options: {
      since: { type: "string" },
      user: { type: "string" },
      action: { type: "string" },
      limit: { type: "string" },
      prune: { type: "boolean" },
      json: { type: "boolean" },
      remote: { type: "boolean" },
    },
  }, USAGE);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  let since: number | undefined;
  if (values.since !== undefined) {
    since = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(values.since)
      ? Date.parse(values.since)
      : NaN;
    if (Number.isNaN(since)) {
      return usageError(`--since ${JSON.stringify(values.since)} is not an ISO date or time`, USAGE);
    }
  }
  if (values.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(values.action)) {
    return usageError(
      `--action ${JSON.stringify(values.action)} is not one of ${AUDIT_ACTIONS.join(", ")}`,
      USAGE,
    );
  }
  const limit = values.limit === undefined ? 1000 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) {
    return usageError(
      `--limit must be an integer from 1 to 100000, got ${JSON.stringify(values.limit)}`,
      USAGE,
    );
  }
  const retention = env.AUTH_AUDIT_RETENTION_DAYS
    ? Number(env.AUTH_AUDIT_RETENTION_DAYS)
    : DEFAULT_AUDIT_RETENTION_DAYS;
  if (values.prune && (!Number.isInteger(retention) || retention < 1)) {
    return usageError(
      `AUTH_AUDIT_RETENTION_DAYS must be a whole number of days, got ${env.AUTH_AUDIT_RETENTION_DAYS}`,
      USAGE,
    );
  }
  const database = await openCommandDatabase(env, values.remote ?? false);
  try {
    if (values.prune) {
      const removed = await pruneAudit(database.client, retention);
      if (!values.json) console.error(`pruned ${removed} row(s) older than ${retention} day(s)`);
    }
    const rows = await listAudit(database.client, {
      since,
      userId: values.user,
      action: values.action,
      limit,
    });
    if (values.json) console.log(JSON.stringify(rows));
    else if (!rows.length) console.log("no audit rows");
    else {
      console.log(textTable(
        ["at", "action", "outcome", "user", "client", "subject", "actor", "reason"],
        rows.map((
          r,
        ) => [
          r.at,
          r.action,
          r.outcome,
          r.user_id ?? "-",
          r.client_id ?? "-",
          r.subject ?? "-",
          r.actor,
          r.reason ?? "-",
        ]),
      ));
    }
    return 0;
  } finally {
    database.client.close();
  }
}

if (import.meta.main) await runMain(() => main(Deno.args, Deno.env.toObject()));
