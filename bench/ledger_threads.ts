/**
 * `deno task bench:ledger --server [--baseline <dir>] [--rounds 5] [--seconds 3]`: the usage ledger's cost in
 * the bench server, thread by thread. This checkout's bench/gateway_bench_server.ts (and another checkout's,
 * with `--baseline`: `git worktree add --detach <dir> <commit>`, then `deno install` there) runs with and
 * without `--ledger` (connection guard off) in front of bench:gateway's mock upstream; each round loads every
 * server in turn (alternating order) at c=32 and reads the CPU each of its threads spent from
 * `/proc/<pid>/task/*\/stat` over the requests completed: the main thread, the ledger's writer thread, V8's
 * helper threads, and the whole process. Linux only. Prints medians over rounds.
 */
import { anthropicBody, median, type Target, throughput } from "./gateway_measure.ts";
import { spawnFrom, stopAll } from "./gateway_ab.ts";

/** Clock ticks per second of /proc stat files (USER_HZ). */
const TICKS = 100;

/** CPU µs so far of process `pid` by kind of thread (main, writer, V8, other) and in all. */
function threadCpu(pid: number): Map<string, number> {
  const cpu = new Map<string, number>();
  const add = (kind: string, stat: string) => {
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    cpu.set(kind, (cpu.get(kind) ?? 0) + ((Number(fields[11]) + Number(fields[12])) / TICKS) * 1e6);
  };
  for (const entry of Deno.readDirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${pid}/task/${entry.name}/stat`);
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const kind = name === "deno"
      ? "main"
      : name.startsWith("worker")
      ? "writer"
      : name.startsWith("V8")
      ? "V8 helpers"
      : "other";
    add(kind, stat);
  }
  // The process's own line also counts threads that have ended.
  add("process", Deno.readTextFileSync(`/proc/${pid}/stat`));
  return cpu;
}

/** bench:gateway's Messages request (a short chat with one tool), for its mock's `claude-bench`. */
const BODY = anthropicBody("claude-bench");

/** Starts bench:gateway's mock upstream on a worker, runs the comparison and prints its table. */
export async function runLedgerThreads(options: { baseline?: string; rounds: number; seconds: number }) {
  const mock = new Worker(new URL("./gateway_mock_upstream.ts", import.meta.url), { type: "module" });
  const upstream: string = await new Promise((resolve) => {
    mock.onmessage = (event) => resolve(event.data.url);
    mock.postMessage({ frames: 32, gapMs: 2 });
  });
  try {
    await compare({ ...options, upstream, body: BODY });
  } finally {
    mock.terminate();
  }
}

async function compare(options: {
  upstream: string;
  body: string;
  baseline?: string;
  rounds: number;
  seconds: number;
}): Promise<void> {
  const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const roots: Array<[string, string]> = [["this checkout", here]];
  if (options.baseline) roots.unshift(["baseline", options.baseline]);
  const sides: Array<
    { label: string; child: Deno.ChildProcess; target: Target; cpu: Map<string, number[]> }
  > = [];
  for (const [name, root] of roots) {
    for (const ledger of [false, true]) {
      const args = ["--guard", "off", ...(ledger ? ["--ledger"] : [])];
      const { child, url, key } = await spawnFrom(root, options.upstream, args);
      sides.push({
        label: `${name}, ${ledger ? "ledger" : "no ledger"}`,
        child,
        target: {
          url: `${url}/v1/messages`,
          headers: {
            "content-type": "application/json",
            "x-api-key": key,
            "anthropic-version": "2023-06-01",
          },
          body: options.body,
        },
        cpu: new Map(),
      });
    }
  }
  try {
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 ? [...sides].reverse() : sides;
      const line: string[] = [];
      for (const side of order) {
        await throughput(side.target, 32, 0.5); // warm-up
        const before = threadCpu(side.child.pid);
        const requests = (await throughput(side.target, 32, options.seconds)) * options.seconds;
        for (const [kind, us] of threadCpu(side.child.pid)) {
          const list = side.cpu.get(kind) ?? [];
          side.cpu.set(kind, list);
          list.push((us - (before.get(kind) ?? 0)) / requests);
        }
        line.push(`${side.label} ${side.cpu.get("process")!.at(-1)!.toFixed(1)} µs`);
      }
      console.error(`round ${round + 1}/${options.rounds}: ${line.join("; ")}`);
    }
  } finally {
    await stopAll(sides.map((side) => side.child));
  }
  const kinds = ["main", "writer", "V8 helpers", "other", "process"];
  console.log(
    `\nCPU µs per request by thread, c=32 for ${options.seconds} s, ${options.rounds} rounds, medians ` +
      `(clock ticks of 10 ms: a thread's figure is ±${
        (0.01 / (10_000 * options.seconds) * 1e6).toFixed(1)
      } µs at 10k req/s)\n`,
  );
  console.log(`| server | ${kinds.join(" | ")} |`);
  console.log(`| --- | ${kinds.map(() => "---:").join(" | ")} |`);
  for (const side of sides) {
    const cells = kinds.map((kind) => {
      const list = side.cpu.get(kind);
      return list
        ? `${median(list).toFixed(1)} (${Math.min(...list).toFixed(1)}–${Math.max(...list).toFixed(1)})`
        : "–";
    });
    console.log(`| ${side.label} | ${cells.join(" | ")} |`);
  }
  // The ledger's cost: each round's ledger side minus the same checkout's side without it.
  for (const [name] of roots) {
    const off = sides.find((s) => s.label === `${name}, no ledger`)!;
    const on = sides.find((s) => s.label === `${name}, ledger`)!;
    const added = on.cpu.get("process")!.map((x, i) => x - off.cpu.get("process")![i]);
    console.log(
      `${name}: the ledger adds ${median(added).toFixed(1)} µs per request (rounds ${
        added.map((x) => x.toFixed(1)).join(", ")
      })`,
    );
  }
}
