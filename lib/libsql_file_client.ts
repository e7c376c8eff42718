/**
 * The `file:` database client: `@libsql/client`'s local client, but with each statement prepared once. The
 * library prepares every statement on every call and reads its columns twice; on the auth service's token
 * paths that was a third of the main thread's database time (bench:auth profile, docs/auth.md). Statements
 * are kept per SQL text (bounded), results have the library's shape (rows readable by index and by column
 * name), and errors carry SQLite's code. Transactions are serialized by lib/serialized_client.ts on top.
 *
 * Durable commits without blocking the event loop (`walSync`): the native client runs `COMMIT` inside a
 * synchronous call, and with `synchronous = FULL` that call includes the WAL's fsync — a third of the auth
 * service's main thread on the refresh path, during which nothing else is served. With `walSync` the
 * connection runs `synchronous = NORMAL` (the commit writes the WAL without syncing it) and every call that
 * committed waits, before it resolves, for an fdatasync of the WAL file on Deno's I/O threads; commits made
 * while one sync runs share the next. No caller continues before its commit is on stable storage, as with
 * FULL; unlike FULL, other requests of this process may read a commit in the moment before its sync ends.
 */
import Database from "libsql";
import { Buffer } from "node:buffer";
import type { Client, InArgs, InStatement, ResultSet, Row, TransactionMode } from "@libsql/client";
import type { ImmediateClient } from "./serialized_client.ts";

/** How many prepared statements a connection keeps (the services use a few dozen distinct texts). */
const STATEMENT_CACHE_SIZE = 512;

const BEGIN: Record<TransactionMode, string> = {
  write: "BEGIN IMMEDIATE",
  read: "BEGIN TRANSACTION READONLY",
  deferred: "BEGIN DEFERRED",
};

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_INT64 = -9223372036854775808n;
const MAX_INT64 = 9223372036854775807n;

/** A database error with SQLite's code (`SQLITE_CONSTRAINT_UNIQUE`…), as `@libsql/client` reports it. */
export class LibsqlFileError extends Error {
  override name = "LibsqlError";
  constructor(message: string, readonly code: string, readonly rawCode?: number, options?: ErrorOptions) {
    super(`${code}: ${message}`, options);
  }
}

interface PreparedStatement {
  safeIntegers(on: boolean): void;
  raw(on: boolean): void;
  columns(): { name: string; type: string | null }[];
  all(args: unknown): unknown[][];
  get(args: unknown): unknown[] | undefined;
  run(args: unknown): { changes: number; lastInsertRowid: number | bigint };
}

interface Prepared {
  statement: PreparedStatement;
  /** Only reads (SELECT, VALUES, EXPLAIN, or WITH … without a data change): never needs a sync. */
  readOnly: boolean;
  /** Column names and declared types; undefined for a statement that returns no rows. */
  columns?: string[];
  columnTypes?: string[];
}

interface NativeDatabase {
  prepare(sql: string): PreparedStatement;
  exec(sql: string): void;
  close(): void;
  inTransaction: boolean;
}

/** The path of a `file:` URL (`file:rel/path`, `file:/abs`, `file:///abs`, `file::memory:`). */
export function filePathOf(url: string): string {
  if (!url.startsWith("file:")) throw new TypeError(`not a file: URL: ${url}`);
  if (url.includes("?")) throw new TypeError("file: URLs with query parameters are not supported");
  let path = url.slice("file:".length);
  if (path.startsWith("//")) {
    const rest = path.slice(2);
    const slash = rest.indexOf("/");
    const host = slash < 0 ? rest : rest.slice(0, slash);
    if (host !== "" && host !== "localhost") throw new TypeError(`a file: URL names no host, got ${host}`);
    path = slash < 0 ? "" : rest.slice(slash);
  }
  return decodeURIComponent(path);
}

/** Options of {@link libsqlFileClient}. */
export interface FileClientOptions {
  /**
   * Make each commit durable by syncing the WAL file off the event loop before the call resolves (the
   * caller sets `journal_mode = WAL` and `synchronous = NORMAL`; see the module comment).
   */
  walSync?: boolean;
  /** Syncs the WAL file (tests count the calls); default: fdatasync of `<path>-wal`. */
  syncWal?: () => Promise<void>;
}

/** Opens a local database file as a {@link Client} (integers as JavaScript numbers). */
export function libsqlFileClient(url: string, options: FileClientOptions = {}): ImmediateClient {
  const path = filePathOf(url);
  let db: NativeDatabase | undefined = new Database(path) as unknown as NativeDatabase;
  const cache = new Map<string, Prepared>();
  const walFile = options.walSync && !options.syncWal ? walFileSync(`${path}-wal`) : undefined;
  const walSync = options.walSync && path !== ":memory:" && path !== ""
    ? coalescedSync(options.syncWal ?? walFile!.sync)
    : undefined;
  /** A statement that may have written was committed (autocommit or COMMIT) and is not yet synced. */
  let unsynced = false;

  const open = (): NativeDatabase => {
    if (!db) throw new LibsqlFileError("The client is closed", "CLIENT_CLOSED");
    return db;
  };

  const prepared = (sql: string): Prepared => {
    let entry = cache.get(sql);
    if (entry) {
      // Most recently used last, so the oldest is the first key.
      cache.delete(sql);
      cache.set(sql, entry);
      return entry;
    }
    const statement = open().prepare(sql);
    statement.safeIntegers(true);
    entry = { statement, readOnly: isReadOnly(sql) };
    try {
      statement.raw(true); // throws for a statement that returns no rows
      const columns = statement.columns();
      entry.columns = columns.map((c) => c.name);
      entry.columnTypes = columns.map((c) => c.type ?? "");
    } catch {
      entry.columns = undefined;
    }
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(sql, entry);
    return entry;
  };

  const run = (stmt: InStatement | string, extraArgs?: InArgs): ResultSet => {
    const { sql, args } = normalize(stmt, extraArgs);
    let entry: Prepared | undefined;
    try {
      entry = prepared(sql);
      const { statement, columns, columnTypes } = entry;
      if (columns) {
        const rows = statement.all(args).map((values) => rowOf(values, columns));
        return resultSet(columns, columnTypes!, rows, 0, undefined);
      }
      const info = statement.run(args);
      return resultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (error) {
      throw mapError(error);
    } finally {
      // Out of a transaction after a statement that may write: it committed (or rolled back) just now.
      if (walSync && !(entry?.readOnly ?? false) && db && !db.inTransaction) unsynced = true;
    }
  };

  /** Resolves once every commit made so far is on stable storage. */
  const durable = (): Promise<void> => {
    if (!unsynced || !walSync) return Promise.resolve();
    unsynced = false;
    return walSync();
  };

  const rollbackIfOpen = () => {
    if (db?.inTransaction) run("ROLLBACK");
  };

  const client: ImmediateClient = {
    queryNamed: (stmt, firstOnly = false) => {
      const { sql, args } = normalize(stmt);
      let entry: Prepared;
      try {
        entry = prepared(sql);
      } catch (error) {
        throw mapError(error);
      }
      if (!entry.readOnly || !entry.columns) throw new TypeError("queryNamed runs only statements that read");
      const { statement, columns } = entry;
      try {
        if (!firstOnly) return statement.all(args).map((values) => namedRowOf(values, columns));
        // One row without the library's row iterator (a hundred-row buffer per call).
        const values = statement.get(args);
        return values ? [namedRowOf(values, columns)] : [];
      } catch (error) {
        throw mapError(error);
      }
    },
    executeNow: (stmt) => {
      const result = run(stmt);
      return { result, durable: durable() };
    },
    execute: (async (stmtOrSql: InStatement | string, args?: InArgs) => {
      try {
        return run(stmtOrSql, args);
      } finally {
        await durable();
      }
    }) as Client["execute"],
    batch: async (stmts, mode = "deferred") => {
      try {
        run(BEGIN[mode] ?? BEGIN.deferred);
        try {
          const results = stmts.map((stmt) => {
            if (!open().inTransaction) {
              throw new LibsqlFileError("The transaction has been rolled back", "TRANSACTION_CLOSED");
            }
            return Array.isArray(stmt) ? run({ sql: stmt[0], args: stmt[1] ?? [] }) : run(stmt);
          });
          run("COMMIT");
          return results;
        } finally {
          rollbackIfOpen();
        }
      } finally {
        await durable();
      }
    },
    migrate: async (stmts) => {
      try {
        run("PRAGMA foreign_keys=off");
        try {
          run(BEGIN.deferred);
          const results = stmts.map((stmt) => run(stmt));
          run("COMMIT");
          return results;
        } finally {
          rollbackIfOpen();
          run("PRAGMA foreign_keys=on");
          cache.clear(); // the schema may have changed under the kept statements
        }
      } finally {
        await durable();
      }
    },
    transaction: () =>
      // lib/serialized_client.ts runs transactions on this one connection itself.
      Promise.reject(new Error("use serializedClient(): it runs transactions on the one connection")),
    executeMultiple: async (sql) => {
      try {
        open().exec(sql);
      } catch (error) {
        throw mapError(error);
      } finally {
        rollbackIfOpen();
        cache.clear();
        if (walSync) unsynced = true;
        await durable();
      }
    },
    sync: () => Promise.reject(new Error("a local database file has nothing to sync")),
    close: () => {
      cache.clear();
      db?.close();
      db = undefined;
      walFile?.close();
    },
    reconnect: () => {
      cache.clear();
      db?.close();
      db = new Database(path) as unknown as NativeDatabase;
      return Promise.resolve();
    },
    get closed() {
      return db === undefined;
    },
    get protocol() {
      return "file";
    },
  };
  return client;
}

/** Whether a statement only reads (conservative: anything not plainly a query counts as a write). */
export function isReadOnly(sql: string): boolean {
  const text = sql.trimStart();
  if (/^(SELECT|VALUES|EXPLAIN)\b/i.test(text)) return true;
  return /^WITH\b/i.test(text) && !/\b(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(text);
}

/**
 * Runs `sync` so that every caller waits for a sync that started after it called: a caller arriving while a
 * sync runs shares the one queued behind it.
 */
function coalescedSync(sync: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const current = sync().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  };
  return () => {
    if (!running) return start();
    if (!queued) {
      queued = running.catch(() => {}).then(() => {
        queued = undefined;
        return start();
      });
    }
    return queued;
  };
}

/**
 * fdatasync of the WAL file. The file is looked up again (and reopened if the path names another file) at
 * most once a second: a stat per sync showed as 4% of the auth service's event loop under load.
 */
function walFileSync(walPath: string): { sync: () => Promise<void>; close: () => void } {
  let file: Deno.FsFile | undefined;
  let inode: number | null | undefined;
  let checkedAt = -Infinity;
  const close = () => {
    file?.close();
    file = undefined;
  };
  const sync = async () => {
    if (!file || performance.now() - checkedAt > 1000) {
      const current = await Deno.stat(walPath).catch((error) => {
        if (error instanceof Deno.errors.NotFound) return undefined;
        throw error;
      });
      if (!current) return; // nothing was written through the log yet
      if (!file || current.ino !== inode) {
        file?.close();
        file = undefined;
        try {
          file = await Deno.open(walPath, { read: true });
        } catch (error) {
          // Gone since the stat: the last connection of another process closed, checkpointed the log into
          // the database (synced) and removed it, so there is nothing left here to sync.
          if (error instanceof Deno.errors.NotFound) return;
          throw error;
        }
        inode = (await file.stat()).ino;
      }
      checkedAt = performance.now();
    }
    await file.syncData();
  };
  return { sync, close };
}

function normalize(stmt: InStatement | string, extraArgs?: InArgs): { sql: string; args: unknown } {
  const { sql, args } = typeof stmt === "string" ? { sql: stmt, args: extraArgs ?? [] } : stmt;
  if (args === undefined) return { sql, args: [] };
  if (Array.isArray(args)) return { sql, args: args.map(valueToSql) };
  const named: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    named[/^[@$:]/.test(name) ? name.slice(1) : name] = valueToSql(value);
  }
  return { sql, args: named };
}

function valueToSql(value: unknown): unknown {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError("Only finite numbers can be passed as arguments");
    return value;
  }
  if (typeof value === "bigint") {
    if (value < MIN_INT64 || value > MAX_INT64) {
      throw new RangeError("bigint is too large to be represented as a 64-bit integer");
    }
    return value;
  }
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  if (value === undefined) throw new TypeError("undefined cannot be passed as argument to the database");
  return value;
}

function valueFromSql(value: unknown): unknown {
  if (typeof value === "bigint") {
    if (value < MIN_SAFE || value > MAX_SAFE) {
      throw new RangeError("Received integer which cannot be safely represented as a JavaScript number");
    }
    return Number(value);
  }
  if (value instanceof Uint8Array) {
    return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  }
  return value;
}

/** A row as `@libsql/client` shapes it: values by index (hidden) and by column name (enumerable). */
function rowOf(values: unknown[], columns: string[]): Row {
  const row = {} as Row;
  Object.defineProperty(row, "length", { value: values.length });
  for (let i = 0; i < values.length; i++) {
    const value = valueFromSql(values[i]);
    Object.defineProperty(row, i, { value });
    const column = columns[i];
    if (Object.hasOwn(row, column)) continue;
    // A plain assignment makes the same writable, enumerable, configurable property several times faster;
    // `__proto__` would set the prototype instead, so it keeps the explicit definition.
    if (column === "__proto__") {
      Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
    } else {
      (row as Record<string, unknown>)[column] = value;
    }
  }
  return row;
}

/**
 * A row as a plain object by column name only: the first of a repeated name wins, as in {@link rowOf}. About
 * a tenth of its cost for a wide row (V8 keeps the non-enumerable index properties in a dictionary).
 */
function namedRowOf(values: unknown[], columns: string[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < values.length; i++) {
    const column = columns[i];
    if (column === "__proto__") {
      if (!Object.hasOwn(row, column)) {
        Object.defineProperty(row, column, {
          value: valueFromSql(values[i]),
          enumerable: true,
          configurable: true,
          writable: true,
        });
      }
    } else if (!Object.hasOwn(row, column)) row[column] = valueFromSql(values[i]);
  }
  return row;
}

function resultSet(
  columns: string[],
  columnTypes: string[],
  rows: Row[],
  rowsAffected: number,
  lastInsertRowid: bigint | undefined,
): ResultSet {
  return {
    columns,
    columnTypes,
    rows,
    rowsAffected,
    lastInsertRowid,
    toJSON() {
      return {
        columns,
        columnTypes,
        rows: rows.map((row) => Array.prototype.map.call(row, (v) => (typeof v === "bigint" ? `${v}` : v))),
        rowsAffected,
        lastInsertRowid: lastInsertRowid === undefined ? null : `${lastInsertRowid}`,
      };
    },
  };
}

function mapError(error: unknown): unknown {
  if (error instanceof LibsqlFileError || !(error instanceof Error)) return error;
  const { code, rawCode } = error as Error & { code?: unknown; rawCode?: unknown };
  if (typeof code === "string" && code.startsWith("SQLITE")) {
    return new LibsqlFileError(error.message, code, typeof rawCode === "number" ? rawCode : undefined, {
      cause: error,
    });
  }
  return error;
}
