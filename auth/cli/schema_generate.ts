/**
 * `deno task db:schema:generate [--output <file>]`: prints (or writes) the SQLite schema implied by the auth
 * configuration. Generation only: it opens no database and reads no URL, token or secret.
 */
import { parseCommandLine, runMain } from "@switchyard/lib/cli/support.ts";
import { betterAuthOptions } from "../better_auth/mod.ts";
import type { AuthConfig } from "../config.ts";
import { generateSchemaSql } from "../better_auth/schema_sql.ts";

/** A configuration with placeholders only: the schema depends on the plugin set, not on deployment values. */
const GENERATION_CONFIG: AuthConfig = Object.freeze({
  AUTH_BASE_URL: "http://localhost:37960",
  AUTH_DATABASE_URL: "file:unused",
  AUTH_LOCAL_MODE: false,
  LOG_LEVEL: "silent",
});

/** The schema SQL of the service's auth options. */
export function schemaSql(): string {
  return generateSchemaSql(betterAuthOptions({ config: GENERATION_CONFIG, secureCookies: true }));
}

const USAGE = `Usage: deno task db:schema:generate [--output <file>]

Prints the SQLite schema implied by the auth configuration (or writes it to <file>).`;

async function main(args: string[]): Promise<number> {
  const parsed = parseCommandLine({ args, options: { output: { type: "string", short: "o" } } }, USAGE);
  if (typeof parsed === "number") return parsed;
  const sql = schemaSql();
  if (parsed.values.output) {
    await Deno.writeTextFile(parsed.values.output, sql);
    console.error(`wrote ${parsed.values.output}`);
  } else {
    console.log(sql.trimEnd());
  }
  return 0;
}

if (import.meta.main) await runMain(() => main(Deno.args));
