/**
 * `deno task oauth:clients list | show <id> | update <id> [--name <n>] [--redirect-uri <url>…]
 * [--post-logout-redirect-uri <url>…] | rotate-secret <id> | delete <id>` with `--json` and `--remote`:
 * manages registered OAuth clients (auth/operations/clients.ts). Registration is `oauth:register`.
 */
import { parseCommandLine, runMain, usageError } from "@switchyard/lib/cli/support.ts";
import { AppError } from "@switchyard/lib/errors.ts";
import { recordAudit } from "../audit/mod.ts";
import { openCommandDatabase, textTable } from "./_command_database.ts";
import {
  type ClientInfo,
  deleteClient,
  listClients,
  rotateClientSecret,
  showClient,
  updateClient,
} from "../operations/clients.ts";

const USAGE = `Usage: deno task oauth:clients <command> [options]

Commands:
  list                 every client: id, name, type, redirect URIs
  show <id>            one client, with its active tokens and consents
  update <id>          change --name, --redirect-uri, --post-logout-redirect-uri (a repeated option replaces
                       the whole list; URIs are checked as oauth:register checks them)
  rotate-secret <id>   new secret for a confidential client, printed once (only its hash is stored); the old
                       one stops working at once
  delete <id>          delete the client and revoke everything issued to it (tokens, consents)
Options:
  --name <name>                     update: new display name
  --redirect-uri <url>              update: exact redirect URI (repeatable)
  --post-logout-redirect-uri <url>  update: exact post-logout redirect URI (repeatable)
  --json                            machine-readable output
  --remote                          target the remote AUTH_DATABASE_URL (with AUTH_DATABASE_AUTH_TOKEN)`;

const COMMANDS = ["list", "show", "update", "rotate-secret", "delete"];

function describe(info: ClientInfo): string {
  return [
    `client_id:                 ${info.client_id}`,
    `name:                      ${info.name}`,
    `type:                      ${info.type}`,
    `redirect_uris:             ${info.redirect_uris.join(" ")}`,
    `post_logout_redirect_uris: ${info.post_logout_redirect_uris.join(" ") || "-"}`,
    `skip_consent:              ${info.skip_consent}`,
    `enable_end_session:        ${info.enable_end_session}`,
    `disabled:                  ${info.disabled}`,
    `created_at:                ${info.created_at ?? "-"}`,
  ].join("\n");
}

/** Runs the command; returns the exit code. */
export async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      "post-logout-redirect-uri": { type: "string", multiple: true },
      json: { type: "boolean" },
      remote: { type: "boolean" },
    },
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
  if (command !== "list" && !id?.trim()) return usageError(`${command} needs a client id`, USAGE);
  if (extra.length) return usageError(`unexpected argument ${JSON.stringify(extra[0])}`, USAGE);
  const changes = {
    name: values.name,
    redirectUris: values["redirect-uri"],
    postLogoutRedirectUris: values["post-logout-redirect-uri"],
  };
  const given = (["name", "redirect-uri", "post-logout-redirect-uri"] as const).filter((k) =>
    values[k] !== undefined
  );
  if (command !== "update" && given.length) return usageError(`--${given[0]} applies to update only`, USAGE);
  if (command === "update" && !given.length) {
    return usageError("update needs --name, --redirect-uri or --post-logout-redirect-uri", USAGE);
  }
  const database = await openCommandDatabase(env, values.remote ?? false);
  const print = (json: unknown, text: string) => console.log(values.json ? JSON.stringify(json) : text);
  try {
    const client = database.client;
    if (command === "list") {
      const clients = await listClients(client);
      print(
        clients,
        clients.length
          ? textTable(
            ["client_id", "name", "type", "redirect_uris"],
            clients.map((c) => [c.client_id, c.name, c.type, c.redirect_uris.join(" ")]),
          )
          : "no clients (register one with deno task oauth:register)",
      );
    } else if (command === "show") {
      const details = await showClient(client, id);
      print(
        details,
        `${describe(details)}\nactive refresh tokens:     ${details.active_refresh_tokens}\n` +
          `active access tokens:      ${details.active_access_tokens}\nconsents:                  ${details.consents}`,
      );
    } else if (command === "update") {
      const updated = await updateClient(client, id, changes);
      await recordAudit(client, {
        action: "client_update",
        outcome: "success",
        clientId: id,
        actor: "operator",
      });
      print(updated, describe(await showClient(client, id)));
    } else if (command === "rotate-secret") {
      const secret = await rotateClientSecret(client, id);
      await recordAudit(client, {
        action: "client_rotate_secret",
        outcome: "success",
        clientId: id,
        actor: "operator",
      });
      print(
        { client_id: id, client_secret: secret },
        `client_id:     ${id}\nclient_secret: ${secret}\nThe secret is shown only now; the database stores ` +
          "its hash. The previous secret no longer works.",
      );
    } else {
      const gone = await deleteClient(client, id);
      await recordAudit(client, {
        action: "client_delete",
        outcome: "success",
        clientId: id,
        actor: "operator",
      });
      print(
        {
          deleted: id,
          revoked_refresh_tokens: gone.active_refresh_tokens,
          revoked_access_tokens: gone.active_access_tokens,
          consents: gone.consents,
        },
        `deleted client ${id}: revoked ${gone.active_refresh_tokens} refresh and ${gone.active_access_tokens} ` +
          `access tokens, removed ${gone.consents} consents`,
      );
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
