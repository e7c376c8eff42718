/**
 * Runs `deno task dev`, `start` or `preview` as a developer does (a real subprocess on fresh databases and
 * free loopback ports), and speaks raw HTTP/1.1 to it with any Host header.
 */

const ROOT = new URL("../../", import.meta.url).pathname;
/** Longest a suite may take to exit after SIGTERM (its drain waits up to 10 s for requests under way). */
const STOP_MS = 15_000;

/** A running suite process. */
export interface SuiteProcess extends AsyncDisposable {
  /** The auth service's port on 127.0.0.1. */
  authPort: number;
  /** The auth base URL it was started with (`http://localhost:<port>`). */
  baseUrl: string;
  /** The gateway's port on 127.0.0.1. */
  gatewayPort: number;
  /** Everything it printed on stderr so far. */
  stderr(): string;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts `deno task <name>` (dev, preview or start) and resolves once both services listen; `env` adds keys (for
 * example a provider pointed at a loopback mock).
 */
export async function startSuiteTask(
  name: "dev" | "preview" | "start",
  env: Record<string, string> = {},
): Promise<SuiteProcess> {
  const dir = await Deno.makeTempDir({ prefix: `switchyard-${name}-` });
  const authPort = freePort();
  const gatewayPort = freePort();
  const baseUrl = `http://localhost:${authPort}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", name],
    cwd: ROOT,
    env: {
      AUTH_PORT: String(authPort),
      GATEWAY_PORT: String(gatewayPort),
      AUTH_BASE_URL: baseUrl,
      AUTH_DATABASE_URL: `file:${dir}/auth.db`,
      GATEWAY_DATABASE_URL: `file:${dir}/gateway.db`,
      LOG_LEVEL: "silent",
      ...env,
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let text = "";
  const { promise: listening, resolve, reject } = Promise.withResolvers<void>();
  const reading = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      if (text.includes("auth    listening on") && text.includes("gateway listening on")) resolve();
    }
    reject(new Error(`deno task ${name} exited before listening:\n${text}`));
  })();
  const timer = setTimeout(
    () => reject(new Error(`deno task ${name} did not listen in 60 s:\n${text}`)),
    60_000,
  );
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already exited
    }
    // Bounded, so a suite that outlives SIGTERM (a watcher left running) fails its test instead of hanging it.
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((r) => timeout = setTimeout(() => r(false), STOP_MS)),
    ]);
    clearTimeout(timeout);
    if (!exited) child.kill("SIGKILL");
    await child.status;
    await reading.catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    if (!exited) throw new Error(`deno task ${name} was still running ${STOP_MS} ms after SIGTERM`);
    // The task runner exiting is not enough: a watched program left behind would still hold the ports.
    for (const port of [authPort, gatewayPort]) {
      const orphan = await Deno.connect({ hostname: "127.0.0.1", port }).then(
        (c) => (c.close(), true),
        () => false,
      );
      if (orphan) throw new Error(`deno task ${name} exited but 127.0.0.1:${port} still accepts connections`);
    }
  };
  try {
    await listening;
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return { authPort, gatewayPort, baseUrl, stderr: () => text, [Symbol.asyncDispose]: stop };
}

/** A raw HTTP/1.1 answer. */
export interface RawResponse {
  /** Status code. */
  status: number;
  /** Header lines, lower-cased names. */
  headers: Map<string, string>;
  /** Body text (the service answers with Content-Length or chunked; both are decoded). */
  body: string;
}

/** Sends `GET <path>` to 127.0.0.1:`port` with exactly the `Host` header given, over a fresh connection. */
export async function rawGet(port: number, path: string, host: string): Promise<RawResponse> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
  );
  const chunks: Uint8Array[] = [];
  for await (const chunk of conn.readable) chunks.push(chunk);
  const raw = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  const split = raw.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = raw.slice(0, split).split("\r\n");
  const headers = new Map(lines.map((l) => {
    const colon = l.indexOf(":");
    return [l.slice(0, colon).trim().toLowerCase(), l.slice(colon + 1).trim()] as [string, string];
  }));
  let body = raw.slice(split + 4);
  if (headers.get("transfer-encoding") === "chunked") {
    let decoded = "";
    let rest = body;
    while (rest.length) {
      const eol = rest.indexOf("\r\n");
      const size = parseInt(rest.slice(0, eol), 16);
      if (!size) break;
      decoded += rest.slice(eol + 2, eol + 2 + size);
      rest = rest.slice(eol + 2 + size + 2);
    }
    body = decoded;
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}
