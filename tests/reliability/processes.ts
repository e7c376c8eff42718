/**
 * Real service processes for the reliability scenarios: an entry file under `deno serve` on a chosen
 * loopback port (so a restarted process answers where its clients already point), its RSS and open file
 * descriptors from /proc, and a registry that kills whatever is still running when a scenario ends, even
 * on failure.
 */

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
/** Keys a Deno subprocess needs from this one to find its cache and tools. */
const PASSED = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"];

/** A running service process. */
export interface ServiceProcess {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Its port. */
  port: number;
  /** Its process id. */
  pid: number;
  /** Every line it printed so far. */
  lines: string[];
  /** Resolves with the exit code once it exited. */
  exited: Promise<number>;
  /** Sends `signal` and waits for the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

/** A TCP port nobody listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const running = new Set<ServiceProcess>();

/** Kills (SIGKILL) every process this module started that still runs. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop("SIGKILL")));
}

async function collect(stream: ReadableStream<Uint8Array>, lines: string[], onLine: (line: string) => void) {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (lines.length < 2000) lines.push(line);
      onLine(line);
    }
  }
}

/** Options of {@link spawnServe}. */
export interface SpawnOptions {
  /** Port to listen on (0: any). */
  port?: number;
  /** Extra `deno serve` flags (for example `--parallel`). */
  flags?: string[];
  /** Longest wait for "Listening on" (ms). */
  timeoutMs?: number;
}

/** Starts `deno serve <entry>` with exactly `env` (plus what Deno needs) and waits until it listens. */
export async function spawnServe(
  entry: string,
  env: Record<string, string>,
  options: SpawnOptions = {},
): Promise<ServiceProcess> {
  const passed: Record<string, string> = {};
  for (const name of PASSED) {
    const value = Deno.env.get(name);
    if (value !== undefined) passed[name] = value;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "--allow-all",
      "--config",
      CONFIG,
      ...(options.flags ?? []),
      "--host",
      "127.0.0.1",
      "--port",
      String(options.port ?? 0),
      entry,
    ],
    env: { ...passed, NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const { promise: listening, resolve, reject } = Promise.withResolvers<string>();
  const onLine = (line: string) => {
    const match = line.match(/Listening on (http:\/\/127\.0\.0\.1:\d+)/);
    if (match) resolve(match[1]);
  };
  const reading = Promise.all([collect(child.stdout, lines, onLine), collect(child.stderr, lines, onLine)]);
  const exited = child.status.then((s) => s.code);
  exited.then(() => reject(new Error(`${entry} exited:\n${lines.slice(-30).join("\n")}`)));
  const timer = setTimeout(
    () => reject(new Error(`${entry} did not listen:\n${lines.join("\n")}`)),
    options.timeoutMs ?? 60_000,
  );
  const process: ServiceProcess = {
    url: "",
    port: 0,
    pid: child.pid,
    lines,
    exited,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch {
        // already gone
      }
      const code = await exited;
      await reading.catch(() => {});
      running.delete(process);
      return code;
    },
  };
  running.add(process);
  try {
    process.url = await listening;
    process.port = Number(new URL(process.url).port);
    return process;
  } catch (error) {
    await process.stop("SIGKILL");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Resident set size (MiB) and open file descriptors of a process, from /proc. */
export async function processStats(pid: number): Promise<{ rssMiB: number; fds: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  let fds = 0;
  for await (const _ of Deno.readDir(`/proc/${pid}/fd`)) fds++;
  return { rssMiB: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024, fds };
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `probe` until it returns true (every 25 ms, at most `timeoutMs`); returns the ms it took. */
export async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await probe().catch(() => false)) return performance.now() - started;
    await sleep(25);
  }
  throw new Error(`not ready within ${timeoutMs} ms`);
}

/** A seeded PRNG (mulberry32), so a run's fault moments can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A gate the workers wait on while the service is down. */
export class Gate {
  #open = Promise.resolve();
  #release: (() => void) | undefined;
  /** Makes `wait` block until `open`. */
  close() {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#open = promise;
    this.#release = resolve;
  }
  /** Releases every waiter. */
  open() {
    this.#release?.();
    this.#release = undefined;
  }
  /** Resolves once the gate is open. */
  wait() {
    return this.#open;
  }
}

/** A redis-server process (Debian's binary), no persistence: a restart starts empty. */
export interface RedisProcess {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<void>;
}

const REDIS = "/usr/bin/redis-server";

/** Starts redis-server on 127.0.0.1:`port` and waits until it answers PING. */
export async function spawnRedis(port: number): Promise<RedisProcess> {
  await Deno.stat(REDIS).catch(() => {
    throw new Error(`${REDIS} is missing: install Debian's redis-server (apt-get install redis-server)`);
  });
  const child = new Deno.Command(REDIS, {
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async (signal: Deno.Signal = "SIGTERM") => {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
    await child.status;
  };
  try {
    await waitUntil(async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        await conn.write(new TextEncoder().encode("PING\r\n"));
        const buffer = new Uint8Array(16);
        const n = await conn.read(buffer);
        return !!n && new TextDecoder().decode(buffer.subarray(0, n)).startsWith("+PONG");
      } finally {
        conn.close();
      }
    }, 10_000);
  } catch (error) {
    await stop("SIGKILL");
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}
