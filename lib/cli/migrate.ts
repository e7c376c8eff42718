/**
 * `deno task db:migrate [--remote] [--only auth|gateway]`: applies pending migrations. Locally it targets
 * the `file:` databases of local.env; with `--remote` it targets the URLs and tokens of the environment and
 * refuses local files, so a deploy can never migrate the wrong database by accident.
 */
import { openClient } from "../db.ts";
import { migrateDirectory } from "../migrate.ts";
import { DATABASE_TARGETS, redactUrl, resolveTargetUrl } from "../database_targets.ts";
import { parseCommandLine, runMain, usageError } from "./support.ts";

const USAGE = `Usage: deno task db:migrate [--remote] [--only auth|gateway]

Applies pending forward-only migrations.
  --remote       target the remote databases named by AUTH_DATABASE_URL / GATEWAY_DATABASE_URL
                 (libsql:// or https://, tokens in *_DATABASE_AUTH_TOKEN)
  --only <name>  migrate only the auth or the gateway database`;

async function main(args: string[], env: Record<string, string | undefined>): Promise<number> {
  const parsed = parseCommandLine({
    args,
    options: { remote: { type: "boolean" }, only: { type: "string" } },
  }, USAGE);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const targets = DATABASE_TARGETS.filter((t) => values.only === undefined || t.name === values.only);
  if (targets.length === 0) {
    return usageError(`--only must be auth or gateway, got ${JSON.stringify(values.only)}`, USAGE);
  }
  for (const target of targets) {
    const resolved = resolveTargetUrl(target, env, values.remote ?? false);
    if ("error" in resolved) {
      console.error(`error: ${resolved.error}`);
      return 1;
    }
    const { url } = resolved;
    const client = await openClient({ url, authToken: env[target.tokenKey] });
    try {
      const result = await migrateDirectory(client, target.migrationsDir);
      const applied = result.applied.length ? result.applied.join(", ") : "nothing pending";
      console.log(
        `${target.name} (${redactUrl(url)}): applied ${applied}; ${result.skipped.length} already applied`,
      );
    } finally {
      client.close();
    }
  }
  return 0;
}

if (import.meta.main) await runMain(() => main(Deno.args, Deno.env.toObject()));
