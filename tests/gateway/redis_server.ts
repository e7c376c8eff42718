/**
 * Debian's `redis-server` on loopback for tests: a free port, no persistence, stopped by `close`. CI installs
 * the package (.ci/run); a machine without it fails the tests that need it with a message saying so.
 */

/** A running redis-server. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** Stops it (SIGTERM, then waits for the process). */
  close(): Promise<void>;
}

const BINARY = "/usr/bin/redis-server";

/** A TCP port nobody listens on right now. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts redis-server on 127.0.0.1 (on `port`, else a free one) and waits until it answers. */
export async function startRedis(port = freePort()): Promise<RedisServer> {
  try {
    await Deno.stat(BINARY);
  } catch {
    throw new Error(`${BINARY} is missing: install Debian's redis-server (apt-get install redis-server)`);
  }
  const child = new Deno.Command(BINARY, {
    args: [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode("PING\r\n"));
      const buffer = new Uint8Array(16);
      const n = await conn.read(buffer);
      conn.close();
      if (n && new TextDecoder().decode(buffer.subarray(0, n)).startsWith("+PONG")) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("redis-server did not start within 10 s");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async close() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
    },
  };
}
