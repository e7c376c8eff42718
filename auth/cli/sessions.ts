/**
 * `deno task auth:sessions list --user <id> | revoke --user <id> [--client <id>]` with `--json` and
 * `--remote`: a user's browser sessions and OAuth grants (auth/operations/sessions.ts).
 */
import { parseCommandLine, runMain, usageError } from "@switchyard/lib/cli/support.ts";
import { AppError } from "@switchyard/lib/errors.ts";
import { openCommandDatabase, textTable } from "./_command_database.ts";
import { listUserSessions, revokeUserSessions } from "../operations/sessions.ts";
import { recordAudit } from "../audit/mod.ts";

const USAGE = `Usage: deno task auth:sessions <command> --user <id> [options]

Commands:
  list --user <id>                   the user's active browser sessions (no tokens) and, per client, the
                                     consented scopes and active refresh and access tokens
  revoke --user <id> [--client <id>] end every browser session of the user and revoke all their tokens,
                                     consents and unredeemed codes; with --client only that client's
                                     (browser sessions stay)
Options:
  --user <id>     the user id (required)
  --client <id>   revoke: only this client's grant
  --json          machine-readable output
  --remote        target the remote AUTH_DATABASE_URL (with AUTH_DATABASE_AUTH_TOKEN)`;

/** Runs the command; returns the exit code. */
export async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine({
    args,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      client: { type: "string" },
      json: { type: "boolean" },
      remote: { type: "boolean" },
    },
  }, USAGE);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const [command, ...extra] = positionals;
  if (!command) return usageError("missing command (list, revoke)", USAGE);
  if (command !== "list" && command !== "revoke") {
    return usageError(`unknown command ${JSON.stringify(command)} (list, revoke)`, USAGE);
  }
  if (extra.length) return usageError(`unexpected argument ${JSON.stringify(extra[0])}`, USAGE);
  if (!values.user?.trim()) return usageError(`${command} needs --user <id>`, USAGE);
  if (values.client !== undefined && command !== "revoke") {
    return usageError("--client applies to revoke only", USAGE);
  }
  if (values.client !== undefined && !values.client.trim()) {
    return usageError("--client needs a client id", USAGE);
  }
  const database = await openCommandDatabase(env, values.remote ?? false);
  try {
    if (command === "list") {
      const result = await listUserSessions(database.client, values.user);
      if (values.json) console.log(JSON.stringify(result));
      else {
        console.log(`user ${result.user_id}: ${result.sessions.length} active browser session(s)`);
        if (result.sessions.length) {
          console.log(textTable(
            ["session", "created", "expires", "ip", "user agent"],
            result.sessions.map((
              s,
            ) => [s.id, s.created_at, s.expires_at, s.ip_address ?? "-", s.user_agent ?? "-"]),
          ));
        }
        console.log(`grants: ${result.grants.length}`);
        if (result.grants.length) {
          console.log(textTable(
            ["client_id", "name", "consented scopes", "refresh tokens", "access tokens"],
            result.grants.map((g) => [
              g.client_id,
              g.client_name ?? "-",
              g.consented_scopes.join(" ") || "-",
              String(g.active_refresh_tokens),
              String(g.active_access_tokens),
            ]),
          ));
        }
      }
    } else {
      const result = await revokeUserSessions(database.client, values.user, values.client);
      await recordAudit(database.client, {
        action: "sessions_revoke",
        outcome: "success",
        userId: values.user,
        clientId: values.client,
        actor: "operator",
      });
      if (values.json) {
        console.log(JSON.stringify({ user_id: values.user, client_id: values.client ?? null, ...result }));
      } else {
        console.log(
          `revoked for user ${values.user}${values.client ? ` and client ${values.client}` : ""}: ` +
            `${result.sessions} browser session(s), ${result.refresh_tokens} refresh and ${result.access_tokens} ` +
            `access token(s), ${result.consents} consent(s)`,
        );
      }
    }
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      console.error(`error: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    database.client.close();
  }
}

if (import.meta.main) await runMain(() => main(Deno.args, Deno.env.toObject()));
