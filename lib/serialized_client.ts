/**
 * One connection for a local libSQL file, with transactions serialized on it. `@libsql/client` answers
 * `transaction()` for a `file:` URL by handing its connection to the transaction and opening a new one for
 * everything after (a file open per transaction, without the `PRAGMA`s set at start — foreign keys off —
 * and with writers on several connections waiting for each other's locks). Better Auth's Kysely adapter
 * opens a transaction for every insert and every conditional update, so the auth service paid for that on
 * every token. Here a transaction runs on the one connection, and statements from outside it wait until it
 * ends (they would otherwise join it and be rolled back with it).
 */
import type { Client, InArgs, InStatement, ResultSet, Transaction, TransactionMode } from "@libsql/client";

/**
 * A client that can run a statement at once and hand back the promise of its durability, so a caller that
 * holds the connection (below) can let others use it while the commit's WAL sync runs.
 */
export interface ImmediateClient extends Client {
  /** Runs `stmt` before returning (errors are thrown); `durable` resolves once its commit is synced. */
  executeNow(stmt: InStatement | string): { result: ResultSet; durable: Promise<void> };
  /**
   * Runs a read-only statement at once and returns its rows as plain objects by column name (no index
   * properties: building those is most of the cost of a wide row); refuses a statement that may write.
   * `firstOnly`: at most the first row.
   */
  queryNamed(stmt: InStatement, firstOnly?: boolean): Record<string, unknown>[];
}

/** The client's {@link ImmediateClient.executeNow}, when it has one. */
function immediateOf(client: Client): ImmediateClient | undefined {
  return typeof (client as Partial<ImmediateClient>).executeNow === "function"
    ? client as ImmediateClient
    : undefined;
}

/** A transaction whose commit reports when the connection is free apart from when the commit is durable. */
export interface StagedTransaction extends Transaction {
  /**
   * Commits: `ran` settles once COMMIT has run (the connection serves others from then on), `durable` once
   * the commit is on stable storage (the same moment for a client without {@link immediateOf}).
   */
  commitInStages(): { ran: Promise<void>; durable: Promise<void> };
  /**
   * Runs `stmt` in the transaction before returning (no promise per statement), when the client can; the
   * commit still waits for durability.
   */
  executeNow?: (stmt: InStatement | string) => ResultSet;
}

/** The transaction's synchronous statement runner ({@link StagedTransaction.executeNow}), if it has one. */
export function executeNowOf(tx: Transaction): ((stmt: InStatement | string) => ResultSet) | undefined {
  return (tx as Partial<StagedTransaction>).executeNow;
}

/** A wrapper made by {@link serializedClient} over a client that has {@link ImmediateClient.queryNamed}. */
interface NamedRowsClient extends Client {
  namedRows(stmt: InStatement, firstOnly: boolean): Promise<Record<string, unknown>[]>;
}

/**
 * The rows of a read as plain objects by column name: through {@link ImmediateClient.queryNamed} when the
 * client has it (a local file), else the rows `execute` answers (readable by name all the same).
 * `firstOnly`: at most the first row (a read of one row by a unique key).
 */
export function queryNamed(
  client: Client,
  stmt: InStatement,
  { firstOnly = false }: { firstOnly?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  const named = (client as Partial<NamedRowsClient>).namedRows;
  if (named) return named.call(client, stmt, firstOnly);
  return client.execute(stmt).then((result) => {
    const rows = result.rows as unknown as Record<string, unknown>[];
    return firstOnly ? rows.slice(0, 1) : rows;
  });
}

/** Commits `tx` in stages when it can, else as one step. */
export function commitInStages(tx: Transaction): { ran: Promise<void>; durable: Promise<void> } {
  const staged = (tx as Partial<StagedTransaction>).commitInStages;
  if (staged) return staged.call(tx);
  const committed = tx.commit();
  return { ran: committed, durable: committed };
}

const BEGIN: Record<TransactionMode, string> = {
  write: "BEGIN IMMEDIATE",
  read: "BEGIN TRANSACTION READONLY",
  deferred: "BEGIN DEFERRED",
};

/** Wraps the client of a local file (see the module comment). Remote clients need no wrapping. */
export function serializedClient(inner: Client): Client {
  // The check for an open transaction and what follows it must happen in the same tick (no await between
  // them), or two waiters released together would both go ahead: hence the loops are written inline.
  let open: Promise<void> | undefined;
  const immediate = immediateOf(inner);
  const statement = (stmtOrSql: InStatement | string, args?: InArgs): InStatement =>
    typeof stmtOrSql === "string" ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;

  const begin = async (mode: TransactionMode): Promise<Transaction> => {
    while (open) await open;
    let end!: () => void;
    open = new Promise<void>((resolve) => (end = resolve));
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      open = undefined;
      end();
    };
    try {
      await inner.execute(BEGIN[mode] ?? BEGIN.write);
    } catch (error) {
      finish();
      throw error;
    }
    const transaction: StagedTransaction = {
      execute: (stmt: InStatement) => inner.execute(stmt),
      executeNow: immediate
        ? (stmt: InStatement | string) => {
          if (finished) throw new Error("the transaction has ended");
          return immediate.executeNow(stmt).result;
        }
        : undefined,
      batch: async (stmts: InStatement[]) => {
        const results: ResultSet[] = [];
        for (const stmt of stmts) results.push(await inner.execute(stmt));
        return results;
      },
      // The file client's executeMultiple rolls back any open transaction when it ends; scripts run as one
      // exec of their own (lib/migrate.ts wraps them in BEGIN … COMMIT).
      executeMultiple: () =>
        Promise.reject(new Error("executeMultiple is not available inside a transaction of a local file")),
      rollback: async () => {
        if (finished) return;
        try {
          await inner.execute("ROLLBACK");
        } finally {
          finish();
        }
      },
      commitInStages: () => {
        if (!immediate) {
          const committed = transaction.commit();
          return { ran: committed, durable: committed };
        }
        // The connection is free as soon as COMMIT has run: the next transaction executes while this
        // one's WAL sync is under way, and its own sync covers both (the log is written in order).
        try {
          const { durable } = immediate.executeNow("COMMIT");
          finish();
          return { ran: Promise.resolve(), durable };
        } catch (error) {
          try {
            immediate.executeNow("ROLLBACK");
          } catch { /* the commit's error is the one to report */ }
          finish();
          // One promise for both, so a caller that awaits `ran` has handled the rejection.
          const failed = Promise.reject(error);
          return { ran: failed, durable: failed };
        }
      },
      commit: async () => {
        if (immediate) {
          await transaction.commitInStages().durable;
          return;
        }
        try {
          await inner.execute("COMMIT");
        } catch (error) {
          await inner.execute("ROLLBACK").catch(() => {});
          throw error;
        } finally {
          finish();
        }
      },
      close: () => {
        if (!finished) {
          inner.execute("ROLLBACK").catch(() => {}).finally(finish);
        }
      },
      get closed() {
        return finished;
      },
    };
    return transaction;
  };

  const wrapper: Client & Partial<NamedRowsClient> = {
    namedRows: immediate
      ? async (stmt: InStatement, firstOnly: boolean) => {
        while (open) await open;
        return immediate.queryNamed(stmt, firstOnly);
      }
      : undefined,
    execute: (async (stmtOrSql: InStatement | string, args?: InArgs) => {
      while (open) await open;
      return await inner.execute(statement(stmtOrSql, args));
    }) as Client["execute"],
    batch: async (stmts, mode) => {
      while (open) await open;
      return await inner.batch(stmts, mode);
    },
    migrate: async (stmts) => {
      while (open) await open;
      return await inner.migrate(stmts);
    },
    transaction: ((mode?: TransactionMode) => begin(mode ?? "write")) as Client["transaction"],
    executeMultiple: async (sql) => {
      while (open) await open;
      return await inner.executeMultiple(sql);
    },
    sync: () => inner.sync(),
    close: () => inner.close(),
    reconnect: () => inner.reconnect(),
    get closed() {
      return inner.closed;
    },
    get protocol() {
      return inner.protocol;
    },
  };
  return wrapper;
}
