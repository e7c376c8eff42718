/**
 * Group commit: write jobs that arrive while the connection is busy share one transaction, so N concurrent
 * writers pay for one commit (one WAL fsync) instead of N. Each job runs inside a savepoint of the shared
 * transaction: a job that throws is rolled back alone and rejects alone; the others commit. A job that
 * arrives while a batch commits waits for the next batch.
 */
import type { Client, Transaction } from "@libsql/client";
import { setImmediate } from "node:timers";
import { commitInStages, executeNowOf } from "./serialized_client.ts";

interface Job<T> {
  work: (tx: Transaction) => Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** Runs write jobs on `client` in shared transactions. */
export class GroupCommit {
  readonly #client: Client;
  // deno-lint-ignore no-explicit-any
  #queue: Job<any>[] = [];
  #scheduled = false;

  constructor(client: Client) {
    this.#client = client;
  }

  /** Runs `work` in the next batch; resolves once that batch has committed. */
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After pending I/O callbacks, so that requests already under way can join this batch.
        setImmediate(() => this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length) {
      const batch = this.#queue.splice(0);
      const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
      let tx: Transaction | undefined;
      try {
        tx = await this.#client.transaction("write");
        // A local file's transaction runs a statement before returning: no promise per savepoint.
        const now = executeNowOf(tx);
        for (const job of batch) {
          if (now) now("SAVEPOINT group_job");
          else await tx.execute("SAVEPOINT group_job");
          try {
            outcomes.push({ ok: true, value: await job.work(tx) });
            if (now) now("RELEASE group_job");
            else await tx.execute("RELEASE group_job");
          } catch (error) {
            await tx.execute("ROLLBACK TO group_job");
            await tx.execute("RELEASE group_job");
            outcomes.push({ ok: false, error });
          }
        }
        // A file connection is free once COMMIT has run (lib/serialized_client.ts): the next batch executes
        // while this one's sync runs, and these jobs settle when their commit is durable.
        const { ran, durable } = commitInStages(tx);
        await ran;
        durable.then(() =>
          batch.forEach((job, i) => {
            const outcome = outcomes[i];
            if (outcome.ok) job.resolve(outcome.value);
            else job.reject(outcome.error);
          }), (error) => {
          for (const job of batch) job.reject(error);
        });
      } catch (error) {
        await tx?.rollback().catch(() => {});
        for (const job of batch) job.reject(error);
      } finally {
        tx?.close();
      }
    }
    this.#scheduled = false;
  }
}
