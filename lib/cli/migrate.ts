/**
 * `deno task db:migrate [--remote] [--only auth|gateway]`: applies pending migrations. Locally it targets
 * the `file:` databases of local.env; with `--remote` it targets the URLs and tokens of the environment and
 * refuses local files, so a deploy can never migrate the wrong database by accident.
 */
import { parseArgs } from "node:util";
import { openClient } from "../db.ts";
import { isAppError } from "../errors.ts";
import { migrateDirectory } from "../migrate.ts";
import { DATABASE_TARGETS } from "../database_targets.ts";
import { isDatabaseUrl } from "../config.ts";

const USAGE = `Usage: deno task db:migrate [--remote] [--only auth|gateway]

Applies pending forward-only migrations.
  --remote       target the remote databases named by AUTH_DATABASE_URL / GATEWAY_DATABASE_URL
                 (libsql:// or https://, tokens in *_DATABASE_AUTH_TOKEN)
  --only <name>  migrate only the auth or the gateway database`;

async function main(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        remote: { type: "boolean" },
        only: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const targets = DATABASE_TARGETS.filter((t) => values.only === undefined || t.name === values.only);
  if (targets.length === 0) {
    console.error(`error: --only must be auth or gateway, got ${JSON.stringify(values.only)}\n\n${USAGE}`);
    return 2;
  }
  for (const target of targets) {
    const configured = Deno.env.get(target.urlKey);
    const url = values.remote ? configured : configured || target.defaultUrl;
    if (values.remote && (!url || url.startsWith("file:") || !isDatabaseUrl(url))) {
      console.error(
        `error: --remote needs ${target.urlKey} set to the remote libsql:// or https:// URL (got ${
          JSON.stringify(url ?? null)
        })`,
      );
      return 1;
    }
    if (!values.remote && !url!.startsWith("file:")) {
      console.error(`error: ${target.urlKey} is remote (${url}); pass --remote to migrate a remote database`);
      return 1;
    }
    const client = await openClient({ url: url!, authToken: Deno.env.get(target.tokenKey) });
    try {
      const result = await migrateDirectory(client, target.migrationsDir);
      const applied = result.applied.length ? result.applied.join(", ") : "nothing pending";
      console.log(
        `${target.name} (${redactUrl(url!)}): applied ${applied}; ${result.skipped.length} already applied`,
      );
    } finally {
      client.close();
    }
  }
  return 0;
}

function redactUrl(url: string): string {
  return url.replace(/(authToken=)[^&]+/i, "$1[redacted]");
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`error: ${isAppError(error) ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
