/**
 * libSQL database opening: a `file:` URL locally (native client), `libsql://` or `https://` with an auth
 * token remotely (the web client, which runs on edge runtimes without native addons).
 */
import type { Client } from "@libsql/client";
import { Kysely, type KyselyPlugin } from "kysely";
import { LibsqlDialect } from "@libsql/kysely-libsql";
import { AppError } from "./errors.ts";
import { serializedClient } from "./serialized_client.ts";
import { isDatabaseUrl } from "./config.ts";

/** Where a database lives. */
export interface DatabaseLocation {
  /** `file:path` locally; `libsql://host` or `https://host` remotely. */
  url: string;
  /** Auth token for a remote database. */
  authToken?: string;
}

/** True when the URL names a local file database. */
export function isLocalDatabaseUrl(url: string): boolean {
  return url.startsWith("file:");
}

/**
 * Opens a libSQL client. Local files get foreign keys enforced and a busy timeout so the two services of
 * the one-process suite can share a file safely. The directory of a local file is created when missing.
 */
export async function openClient(location: DatabaseLocation): Promise<Client> {
  if (!isDatabaseUrl(location.url)) {
    throw new AppError("CONFIG_INVALID", `not a libSQL database URL: ${JSON.stringify(location.url)}`);
  }
  if (isLocalDatabaseUrl(location.url)) {
    await ensureParentDirectory(location.url);
    // Statements prepared once per connection, and commits made durable by a WAL sync off the event loop
    // before each call resolves (lib/libsql_file_client.ts), hence `synchronous = NORMAL` below.
    const { libsqlFileClient } = await import("./libsql_file_client.ts");
    const client = libsqlFileClient(location.url, { walSync: true });
    await client.execute("PRAGMA foreign_keys = ON");
    await client.execute("PRAGMA busy_timeout = 5000");
    // Write-ahead log: one fsync per commit instead of the rollback journal's three plus a file create and
    // delete, readers never block the writer. `synchronous = NORMAL` leaves the per-commit fsync to the client,
    // which runs it on an I/O thread before the committing call resolves (coalesced across callers), so every
    // commit is still durable when its caller goes on.
    const mode = (await client.execute("PRAGMA journal_mode = WAL")).rows[0]?.journal_mode;
    // Without a WAL (a file system that cannot share its memory map) SQLite keeps its rollback journal, whose
    // commits only FULL makes durable: the client's WAL sync then finds no log and does nothing.
    await client.execute(`PRAGMA synchronous = ${mode === "wal" ? "NORMAL" : "FULL"}`);
    // One connection per process, transactions serialized on it (lib/serialized_client.ts).
    return serializedClient(client);
  }
  // The web build speaks HTTP/WebSockets only, so remote use never loads the native addon.
  const { createClient } = await import("@libsql/client/web");
  return createClient({ url: location.url, authToken: location.authToken });
}

async function ensureParentDirectory(fileUrl: string): Promise<void> {
  const path = fileUrl.slice("file:".length).replace(/\?.*$/, "");
  if (path === ":memory:" || path === "") return;
  const slash = path.lastIndexOf("/");
  if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
}

/** Wraps a libSQL client in Kysely. `plugins` adapt naming or types (for example snake_case, epoch dates). */
export function kyselyFor<DB>(client: Client, plugins: KyselyPlugin[] = []): Kysely<DB> {
  // kysely-libsql declares the 0.8 client type; the driver uses only execute/batch/transaction, which the
  // pinned newer client provides unchanged, so the cast bridges a declaration-only difference.
  const dialectClient = client as unknown as ConstructorParameters<typeof LibsqlDialect>[0] extends infer C
    ? C extends { client: infer K } ? K : never
    : never;
  return new Kysely<DB>({ dialect: new LibsqlDialect({ client: dialectClient }), plugins });
}

/** Opens a database as a libSQL client plus a Kysely instance over it. */
export async function openDatabase<DB>(
  location: DatabaseLocation,
  plugins: KyselyPlugin[] = [],
): Promise<{ client: Client; db: Kysely<DB> }> {
  const client = await openClient(location);
  return { client, db: kyselyFor<DB>(client, plugins) };
}
