/**
 * One Redis connection of a gateway instance (`GATEWAY_REDIS_URL`), shared by the limit counters
 * (redis_counters.ts) and the deployment state (upstream/shared_deployments.ts): connects lazily on the first
 * command, fails commands at once while disconnected (no offline queue behind a dead connection), bounds
 * every command by `GATEWAY_REDIS_TIMEOUT_MS`, runs Lua scripts by SHA, and keeps the offset between this
 * machine's clock and Redis's `TIME`.
 */
import { createClient } from "@redis/client";

/** A Redis command that took longer than the configured timeout. */
export class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`redis did not answer within ${ms} ms`);
    this.name = "RedisTimeoutError";
  }
}

type Client = ReturnType<typeof createClient>;

/** Options of {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Longest wait for one command. */
  timeoutMs: number;
  /** This machine's clock (tests skew it). */
  localNow?: () => number;
}

/** How often the offset between this machine's clock and Redis's is measured again. */
const CLOCK_SYNC_MS = 60_000;

/** A lazily connected Redis client with bounded commands. */
export class RedisConnection {
  #client: Client;
  #connecting: Promise<unknown> | undefined;
  #timeoutMs: number;
  #sha = new Map<string, string>();
  #localNow: () => number;
  #offsetMs = 0;
  #syncedAt = -Infinity;
  #connections = 0;

  /** Connects lazily, on the first command; reconnects in the background after a failure. */
  constructor(options: RedisConnectionOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#localNow = options.localNow ?? Date.now;
    this.#client = createClient({
      url: options.url,
      // Commands fail at once while disconnected instead of queueing behind a dead connection.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: Math.max(options.timeoutMs, 1_000),
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
      },
    });
    // Errors also reject the command that met them; the callers report them (once).
    this.#client.on("error", () => {});
    this.#client.on("ready", () => this.#connections++);
  }

  /** Connections opened so far (a reconnect may have met a Redis restarted empty). */
  connection(): number {
    return this.#connections;
  }

  /** True while connected (a command would be sent now rather than fail at once). */
  isReady(): boolean {
    return this.#client.isReady;
  }

  /** Redis's clock, as this machine's plus the offset last measured with `TIME`. */
  now(): number {
    return this.#localNow() + this.#offsetMs;
  }

  async #syncClock(): Promise<void> {
    this.#syncedAt = this.#localNow();
    const before = this.#localNow();
    const [seconds, micros] = await this.#within(this.#client.sendCommand(["TIME"])) as [string, string];
    const after = this.#localNow();
    this.#offsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (before + after) / 2;
  }

  async #ready(): Promise<void> {
    if (this.#client.isReady) {
      if (this.#localNow() - this.#syncedAt > CLOCK_SYNC_MS) await this.#syncClock();
      return;
    }
    if (!this.#client.isOpen) {
      this.#connecting ??= this.#client.connect().finally(() => this.#connecting = undefined);
    }
    if (this.#connecting) await this.#within(this.#connecting);
    if (!this.#client.isReady) throw new Error("redis is not connected");
    await this.#syncClock();
  }

  #within<T>(promise: Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new RedisTimeoutError(this.#timeoutMs)), this.#timeoutMs);
      promise.then((value) => {
        clearTimeout(timer);
        resolve(value);
      }, (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  /** Sends one command (connecting first when needed), bounded by the timeout. */
  async command(args: string[]): Promise<unknown> {
    await this.#ready();
    return await this.#within(this.#client.sendCommand(args));
  }

  /** Runs a script by its SHA, loading it once per connection (NOSCRIPT). */
  async run(script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    await this.#ready();
    const argv = args.map(String);
    let sha = this.#sha.get(script);
    if (sha) {
      try {
        return await this.#within(
          this.#client.sendCommand(["EVALSHA", sha, String(keys.length), ...keys, ...argv]),
        );
      } catch (error) {
        if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
      }
    }
    sha = String(await this.#within(this.#client.sendCommand(["SCRIPT", "LOAD", script])));
    this.#sha.set(script, sha);
    return await this.#within(
      this.#client.sendCommand(["EVALSHA", sha, String(keys.length), ...keys, ...argv]),
    );
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    if (this.#client.isOpen) await this.#client.close().catch(() => {});
  }
}
