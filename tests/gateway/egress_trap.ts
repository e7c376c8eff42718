/**
 * A loopback HTTP proxy that lets nothing through: a client given it as HTTPS_PROXY/HTTP_PROXY (with
 * NO_PROXY covering loopback) sends every request bound off the machine here instead, where the request
 * line is recorded (`CONNECT host:443`, or an absolute URL) and refused with 403.
 */

/** The running trap. */
export interface EgressTrap {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The request line of every attempt, in order. */
  attempts: string[];
  /** Stops it. */
  close(): Promise<void>;
}

const REFUSAL = new TextEncoder().encode(
  "HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
);

async function refuse(conn: Deno.Conn, attempts: string[]): Promise<void> {
  const buffer = new Uint8Array(8_192);
  try {
    const n = await conn.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
    attempts.push(head.split("\r\n")[0] || "(empty)");
    await conn.write(REFUSAL);
  } catch {
    attempts.push("(connection without a request line)");
  } finally {
    try {
      conn.close();
    } catch {
      // already closed by the client
    }
  }
}

/** Starts the trap on 127.0.0.1 with an ephemeral port. */
export function startEgressTrap(): EgressTrap {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const attempts: string[] = [];
  const pending = new Set<Promise<void>>();
  const accepting = (async () => {
    for await (const conn of listener) {
      const handled = refuse(conn, attempts);
      pending.add(handled);
      handled.finally(() => pending.delete(handled));
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    attempts,
    async close() {
      listener.close();
      await accepting;
      await Promise.all(pending);
    },
  };
}
