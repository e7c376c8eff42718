/**
 * The gateway's real edge entry (gateway/main.ts) as its own process under `deno serve` on 127.0.0.1 port 0,
 * for what only a process shows: several instances with nothing in common but Redis and the database, a
 * SIGTERM, Deno's own OpenTelemetry export. The environment is exactly `env` (plus what Deno needs to run).
 */

/** A running gateway process. */
export interface GatewayProcess {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every line it wrote on stdout and stderr so far (its JSON logs). */
  lines: string[];
  /** Sends `signal` and waits for the exit code. */
  stop(signal?: Deno.Signal): Promise<number>;
}

const ENTRY = new URL("../../gateway/main.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Keys a Deno subprocess needs from this one to find its cache and tools. */
const PASSED = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"];

async function collect(stream: ReadableStream<Uint8Array>, lines: string[], onLine: (line: string) => void) {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      lines.push(line);
      onLine(line);
    }
  }
}

/** Starts gateway/main.ts with `env` and waits until it listens (at most 30 s: a cold type check). */
export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const passed: Record<string, string> = {};
  for (const name of PASSED) {
    const value = Deno.env.get(name);
    if (value !== undefined) passed[name] = value;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["serve", "--allow-all", "--config", CONFIG, "--host", "127.0.0.1", "--port", "0", ENTRY],
    env: { ...passed, NO_COLOR: "1", LOG_LEVEL: "info", ...env },
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
  const timer = setTimeout(() => reject(new Error(`gateway did not listen:\n${lines.join("\n")}`)), 30_000);
  child.status.then(() => reject(new Error(`gateway exited:\n${lines.join("\n")}`)));
  try {
    const url = await listening;
    return {
      url,
      lines,
      async stop(signal: Deno.Signal = "SIGTERM") {
        try {
          child.kill(signal);
        } catch {
          // already gone
        }
        const status = await child.status;
        await reading;
        return status.code;
      },
    };
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
