/**
 * `deno task auth:users list | show <id> | disable <id> | enable <id>` with `--json` and `--remote`: the
 * service's users (auth/operations/users.ts). Disabling ends the user's sessions and grants at once; every
 * change is audited.
 */
import { parseCommandLine, runMain, usageError } from "@switchyard/lib/cli/support.ts";
import { AppError } from "@switchyard/lib/errors.ts";
import { openCommandDatabase, textTable } from "./_command_database.ts";
import { disableUser, enableUser, listUsers, showUser, type UserInfo } from "../operations/users.ts";
import { recordAudit } from "../audit/mod.ts";

const USAGE = `Usage: deno task auth:users <command> [options]

Commands:
  list            every user: id, GitHub login, email, groups, disabled
  show <id>       one user, with the last membership check
  disable <id>    the user can no longer sign in; ends every browser session, token and consent at once
  enable <id>     allows the user to sign in again
Options:
  --json          machine-readable output
  --remote        target the remote AUTH_DATABASE_URL (with AUTH_DATABASE_AUTH_TOKEN)`;

const COMMANDS = ["list", "show", "disable", "enable"];

function describe(user: UserInfo): string {
  return [
    `id:          ${user.id}`,
    `name:        ${user.name}`,
    `email:       ${user.email}`,
    `github:      ${user.github_login ?? "-"}`,
    `disabled:    ${user.disabled ? "yes" : "no"}`,
    `groups:      ${user.groups.join(", ") || "-"}`,
    `membership:  ${user.membership_status ?? "never checked"}${
      user.membership_checked_at ? ` (checked ${user.membership_checked_at})` : ""
    }`,
    `created:     ${user.created_at}`,
  ].join("\n");
}

/** Runs the command; returns the exit code. */
export async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean" }, remote: { type: "boolean" } },
  }, USAGE);
  if (typeof parsed === "number") return parsed;
  const { values, positionals } = parsed;
  const [command, id, ...extra] = positionals;
  if (!command) return usageError(`missing command (${COMMANDS.join(", ")})`, USAGE);
  if (!COMMANDS.includes(command)) {
    return usageError(`unknown command ${JSON.stringify(command)} (${COMMANDS.join(", ")})`, USAGE);
  }
  if (command === "list" && id !== undefined) {
    return usageError(`unexpected argument ${JSON.stringify(id)}`, USAGE);
  }
  if (command !== "list" && !id?.trim()) return usageError(`${command} needs a user id`, USAGE);
  if (extra.length) return usageError(`unexpected argument ${JSON.stringify(extra[0])}`, USAGE);
  const database = await openCommandDatabase(env, values.remote ?? false);
  const { client } = database;
  try {
    if (command === "list") {
      const users = await listUsers(client);
      if (values.json) console.log(JSON.stringify(users));
      else if (!users.length) console.log("no users");
      else {
        console.log(textTable(
          ["id", "github", "email", "groups", "disabled"],
          users.map((
            u,
          ) => [u.id, u.github_login ?? "-", u.email, u.groups.join(",") || "-", u.disabled ? "yes" : "no"]),
        ));
      }
    } else if (command === "show") {
      const user = await showUser(client, id);
      console.log(values.json ? JSON.stringify(user) : describe(user));
    } else if (command === "disable") {
      const revoked = await disableUser(client, id);
      await recordAudit(client, {
        action: "user_disable",
        outcome: "success",
        userId: id,
        actor: "operator",
      });
      if (values.json) console.log(JSON.stringify({ user_id: id, disabled: true, ...revoked }));
      else {
        console.log(
          `disabled ${id}: ended ${revoked.sessions} browser session(s), ${revoked.refresh_tokens} refresh and ` +
            `${revoked.access_tokens} access token(s), ${revoked.consents} consent(s)`,
        );
      }
    } else {
      await enableUser(client, id);
      await recordAudit(client, { action: "user_enable", outcome: "success", userId: id, actor: "operator" });
      console.log(values.json ? JSON.stringify({ user_id: id, disabled: false }) : `enabled ${id}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof AppError) {
      console.error(`error: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    client.close();
  }
}

if (import.meta.main) await runMain(() => main(Deno.args, Deno.env.toObject()));
