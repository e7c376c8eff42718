/**
 * The `file:` database client: `@libsql/client`'s local client, but with each statement prepared once. The
 * library prepares every statement on every call and reads its columns twice; on the auth service's token
 * paths that was a third of the main thread's database time (bench:auth profile, docs/auth.md). Statements
 * are kept per SQL text (bounded), results have the library's shape (rows readable by index and by column
 * name), and errors carry SQLite's code. Transactions are serialized by lib/serialized_client.ts on top.
 */
import Database from "libsql";
import { Buffer } from "node:buffer";
import type { Client, InArgs, InStatement, ResultSet, Row, TransactionMode } from "@libsql/client";

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
  run(args: unknown): { changes: number; lastInsertRowid: number | bigint };
}

interface Prepared {
  statement: PreparedStatement;
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

/** Opens a local database file as a {@link Client} (integers as JavaScript numbers). */
export function libsqlFileClient(url: string): Client {
  const path = filePathOf(url);
  let db: NativeDatabase | undefined = new Database(path) as unknown as NativeDatabase;
  const cache = new Map<string, Prepared>();

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
    entry = { statement };
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
    try {
      const { statement, columns, columnTypes } = prepared(sql);
      if (columns) {
        const rows = statement.all(args).map((values) => rowOf(values, columns));
        return resultSet(columns, columnTypes!, rows, 0, undefined);
      }
      const info = statement.run(args);
      return resultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
    } catch (error) {
      throw mapError(error);
    }
  };

  const rollbackIfOpen = () => {
    if (db?.inTransaction) run("ROLLBACK");
  };

  const client: Client = {
    execute: ((stmtOrSql: InStatement | string, args?: InArgs) => {
      try {
        return Promise.resolve(run(stmtOrSql, args));
      } catch (error) {
        return Promise.reject(error);
      }
    }) as Client["execute"],
    batch: (stmts, mode = "deferred") => {
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
          return Promise.resolve(results);
        } finally {
          rollbackIfOpen();
        }
      } catch (error) {
        return Promise.reject(error);
      }
    },
    migrate: (stmts) => {
      try {
        run("PRAGMA foreign_keys=off");
        try {
          run(BEGIN.deferred);
          const results = stmts.map((stmt) => run(stmt));
          run("COMMIT");
          return Promise.resolve(results);
        } finally {
          rollbackIfOpen();
          run("PRAGMA foreign_keys=on");
          cache.clear(); // the schema may have changed under the kept statements
        }
      } catch (error) {
        return Promise.reject(error);
      }
    },
    transaction: () =>
      // lib/serialized_client.ts runs transactions on this one connection itself.
      Promise.reject(new Error("use serializedClient(): it runs transactions on the one connection")),
    executeMultiple: (sql) => {
      try {
        try {
          open().exec(sql);
        } catch (error) {
          throw mapError(error);
        } finally {
          rollbackIfOpen();
          cache.clear();
        }
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    },
    sync: () => Promise.reject(new Error("a local database file has nothing to sync")),
    close: () => {
      cache.clear();
      db?.close();
      db = undefined;
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
    if (!Object.hasOwn(row, column)) {
      Object.defineProperty(row, column, { value, enumerable: true, configurable: true, writable: true });
    }
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
