/**
 * The auth database: libSQL through Kysely, with the two plugins that bridge Better Auth's Kysely adapter to
 * the snake_case, integer-millisecond schema of migrations/0001_initial.sql.
 */
import type { Client } from "@libsql/client";
import { CamelCasePlugin, type Kysely } from "kysely";
import { openDatabase } from "@switchyard/lib/db.ts";
import { EpochMsDatePlugin } from "./epoch_ms_dates.ts";

/** An open auth database: the raw client (for the shims' small SQL) and Kysely for Better Auth. */
export interface AuthDatabase {
  /** The libSQL client. */
  client: Client;
  /** Kysely with CamelCasePlugin + EpochMsDatePlugin. */
  db: Kysely<unknown>;
}

/** Opens the auth database at `url` (`file:` locally, `libsql://`/`https://` with a token remotely). */
export async function openAuthDatabase(url: string, authToken?: string): Promise<AuthDatabase> {
  const { client, db } = await openDatabase<unknown>({ url, authToken }, [
    new CamelCasePlugin(),
    new EpochMsDatePlugin(),
  ]);
  return { client, db };
}
