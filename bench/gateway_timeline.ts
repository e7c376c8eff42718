/**
 * `deno task bench:gateway --baseline <dir> --timeline`: where a c=1 request's time goes, this checkout
 * against another (issue 28). Both bench servers run with GATEWAY_BENCH_TIMELINE (gateway/bench_timeline.ts:
 * marks at arrival, body read, upstream call, upstream write, upstream head, upstream response, answer,
 * hand-back); the baseline checkout needs the same marks (a local patch). This process sends the requests
 * one at a time over one raw keep-alive connection per gateway, rotating the gateways' order request by
 * request, and times each from its write to the first byte of the answer and to its last byte (and counts the
 * reads that took). Per side it prints the median of each leg and of the client's view; the difference
 * between the client's total and the server's arrival → hand-back is the time outside the handler (Deno.serve
 * parsing the request and writing the answer, both sockets, this client).
 */
import { cpuSeconds, spawnFrom, stopAll } from "./gateway_ab.ts";
import { percentile } from "./gateway_measure.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One keep-alive connection that times each answer: first byte, last byte, reads. */
class TimedConnection {
  #conn: Deno.TcpConn;
  #buffer = new Uint8Array(256 * 1024);

  constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  static async open(url: string): Promise<TimedConnection> {
    const { hostname, port } = new URL(url);
    const conn = await Deno.connect({ hostname, port: Number(port) });
    conn.setNoDelay(true);
    return new TimedConnection(conn);
  }

  /** Writes `request` and reads one answer framed by content-length (no chunked answers expected). */
  async send(request: Uint8Array): Promise<{ status: number; first: number; last: number; reads: number }> {
    const t0 = performance.now();
    for (let off = 0; off < request.length;) off += await this.#conn.write(request.subarray(off));
    let filled = 0;
    let reads = 0;
    let first = 0;
    let headEnd = -1;
    let total = Infinity;
    while (filled < total) {
      const n = await this.#conn.read(this.#buffer.subarray(filled));
      if (n === null) throw new Error("connection closed");
      if (reads++ === 0) first = performance.now() - t0;
      filled += n;
      if (headEnd < 0) {
        const text = decoder.decode(this.#buffer.subarray(0, filled));
        headEnd = text.indexOf("\r\n\r\n");
        if (headEnd >= 0) {
          const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
          if (!length) throw new Error(`no content-length: ${text.slice(0, headEnd)}`);
          total = headEnd + 4 + Number(length[1]);
        }
      }
    }
    const last = performance.now() - t0;
    const status = Number(decoder.decode(this.#buffer.subarray(9, 12)));
    return { status, first, last, reads };
  }
}

function requestBytes(url: string, headers: Record<string, string>, body: string): Uint8Array {
  const { host, pathname } = new URL(url);
  const bytes = encoder.encode(body);
  let head = `POST ${pathname} HTTP/1.1\r\nhost: ${host}\r\nx-bench-timeline: 1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${bytes.length}\r\n\r\n`;
  const headBytes = encoder.encode(head);
  const all = new Uint8Array(headBytes.length + bytes.length);
  all.set(headBytes);
  all.set(bytes, headBytes.length);
  return all;
}

/** One gateway under test. */
interface Side {
  label: string;
  file: string;
  child: Deno.ChildProcess;
  conn: TimedConnection;
  good: Uint8Array;
  bad: Uint8Array;
  timed: Timed;
  /** CPU seconds (user + system) of the gateway process over the measured requests. */
  cpu: number;
}

const med = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

/** What one side recorded: the client's timings and the server's marks, in request order. */
interface Timed {
  label: string;
  client: Array<{ status: number; first: number; last: number; reads: number }>;
  server: number[][];
}

/** Per-leg medians (µs) of the records of one kind (`status`), and the client's view of the same requests. */
function legs(side: Timed, points: readonly string[], status: number): Map<string, number> {
  const out = new Map<string, number>();
  const server = side.server.filter((r) => r[0] === status).map((r) => r.slice(1));
  const client = side.client.filter((c) => c.status === status);
  for (let i = 1; i < points.length; i++) {
    const values: number[] = [];
    for (const marks of server) {
      if (Number.isNaN(marks[i])) continue;
      let j = i - 1;
      while (j > 0 && Number.isNaN(marks[j])) j--;
      values.push((marks[i] - marks[j]) * 1000);
    }
    if (values.length) out.set(`${points[i - 1]}… → ${points[i]}`, med(values));
  }
  const inside = server.map((m) => (m[points.length - 1] - m[0]) * 1000);
  out.set("server: arrival → handed", med(inside));
  out.set("client: first byte", med(client.map((c) => c.first * 1000)));
  out.set("client: first → last byte", med(client.map((c) => (c.last - c.first) * 1000)));
  out.set("client: total", med(client.map((c) => c.last * 1000)));
  const n = Math.min(inside.length, client.length);
  out.set(
    "outside the handler (client total − server)",
    med(
      Array.from(
        { length: n },
        (_, k) => client[client.length - n + k].last * 1000 - inside[inside.length - n + k],
      ),
    ),
  );
  out.set("client: p99 total", percentile(client.map((c) => c.last * 1000).sort((a, b) => a - b), 99));
  out.set("client: reads per answer (mean)", client.reduce((s, c) => s + c.reads, 0) / client.length);
  out.set("requests", client.length);
  return out;
}

/** Runs the timeline comparison and prints a table per request kind. */
export async function runTimeline(options: {
  baseline: string;
  /** Further checkouts run beside this one, unguarded (`--variant <dir>`, repeatable): experiments, a branch. */
  variants: string[];
  upstream: string;
  requests: number;
  rounds: number;
  body: (model: string) => string;
  model: string;
}): Promise<void> {
  const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const dir = await Deno.makeTempDir({ prefix: "gateway-timeline-" });
  const specs: Array<[string, string, string[]]> = [
    ["baseline", options.baseline, []],
    ["this checkout", here, []],
    ["this checkout, guard off", here, ["--guard", "off"]],
    ...options.variants.map((
      dir,
    ): [string, string, string[]] => [`${dir}, guard off`, dir, ["--guard", "off"]]),
  ];
  const sides: Side[] = [];
  for (const [i, [label, root, args]] of specs.entries()) {
    const file = `${dir}/${i}.json`;
    const spawned = await spawnFrom(root, options.upstream, args, { GATEWAY_BENCH_TIMELINE: file });
    const headers = {
      "content-type": "application/json",
      "x-api-key": spawned.key,
      "anthropic-version": "2023-06-01",
    };
    const url = `${spawned.url}/v1/messages`;
    sides.push({
      label,
      file,
      child: spawned.child,
      conn: await TimedConnection.open(url),
      good: requestBytes(url, headers, options.body(options.model)),
      bad: requestBytes(url, headers, '{"model": "claude-bench", "messages": [}'),
      timed: { label, client: [], server: [] },
      cpu: 0,
    });
  }
  try {
    // Warm-up: past the JIT and the first scavenges (docs/gateway.md, "The remaining promotion is warm-up").
    for (let i = 0; i < 3000; i++) {
      for (const side of sides) await side.conn.send(i % 4 ? side.good : side.bad);
    }
    const before = sides.map((s) => cpuSeconds(s.child.pid));
    for (let round = 0; round < options.rounds; round++) {
      for (let i = 0; i < options.requests; i++) {
        // Rotated, not reversed: a reversal sends the sides at either end two requests back to back (the
        // second on warm caches), which made them look faster. Two sides simply alternate.
        const shift = sides.length > 2 ? (i + round) % sides.length : 0;
        const order = [...sides.slice(shift), ...sides.slice(0, shift)];
        // Three good requests for each bad one (the refused request: no upstream call).
        const bytes = (s: Side) => i % 4 === 3 ? s.bad : s.good;
        for (const side of order) side.timed.client.push(await side.conn.send(bytes(side)));
      }
    }
    sides.forEach((s, i) => s.cpu = cpuSeconds(s.child.pid) - before[i]);
  } finally {
    await stopAll(sides.map((side) => side.child));
  }
  let points: readonly string[] = [];
  for (const side of sides) {
    // JSON wrote the points a request never reached (NaN) as null.
    let text: string;
    try {
      text = await Deno.readTextFile(side.file);
    } catch {
      await Deno.remove(dir, { recursive: true });
      throw new Error(
        `${side.label}: its bench server wrote no timeline (a checkout before --timeline existed)`,
      );
    }
    const dump = JSON.parse(text, (_, v) => v === null ? NaN : v);
    points = dump.points;
    // The warm-up's requests carried the header too: keep the last ones, as many as were timed.
    side.timed.server = dump.records.slice(-side.timed.client.length);
  }
  await Deno.remove(dir, { recursive: true });
  for (
    const [status, title] of [[200, "answered (upstream call)"], [
      400,
      "refused before any upstream call",
    ]] as const
  ) {
    const tables = sides.map((s) => legs(s.timed, points, status));
    // CPU per request over both kinds of request (the process's whole time at c=1, idle excluded).
    tables.forEach((t, i) =>
      t.set("process CPU per request, all kinds", (sides[i].cpu / sides[i].timed.client.length) * 1e6)
    );
    console.log(
      `\nTimeline, ${title}: medians in µs over ${options.rounds} × ${options.requests} alternating c=1 requests\n`,
    );
    console.log(
      `| leg | ${sides.map((s) => s.label).join(" | ")} | ${
        sides.slice(1).map((s) => `${s.label} − baseline`).join(" | ")
      } |`,
    );
    console.log(`| --- |${" ---: |".repeat(2 * sides.length - 1)}`);
    for (const leg of tables[0].keys()) {
      const values = tables.map((t) => t.get(leg) ?? NaN);
      const fmt = (x: number) => Number.isNaN(x) ? "—" : x.toFixed(leg.startsWith("requests") ? 0 : 1);
      const diffs = values.slice(1).map((v) => {
        const d = v - values[0];
        return Number.isNaN(d) ? "—" : `${d >= 0 ? "+" : ""}${d.toFixed(1)}`;
      });
      console.log(`| ${leg} | ${values.map(fmt).join(" | ")} | ${diffs.join(" | ")} |`);
    }
  }
}
