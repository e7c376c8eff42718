/**
 * `deno task db:schema:generate [--output <file>]`: prints (or writes) the SQLite schema implied by the auth
 * configuration. Generation only: it opens no database and reads no URL, token or secret.
 */
import { parseArgs } from "node:util";
import { betterAuthOptions } from "../better_auth.ts";
import type { AuthConfig } from "../config.ts";
import { generateSchemaSql } from "../schema_sql.ts";

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

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { output: { type: "string", short: "o" } } });
  const sql = schemaSql();
  if (values.output) {
    await Deno.writeTextFile(values.output, sql);
    console.error(`wrote ${values.output}`);
  } else {
    console.log(sql.trimEnd());
  }
}
