/**
 * `deno task bench:gateway --baseline <dir>`: the paired A/B mode. The gateway bench server of another
 * checkout (`<dir>`, for example a worktree of an older commit: `git worktree add --detach <dir> <commit>`,
 * then `deno install` there) and this checkout's run side by side in front of the same mock upstream, and each
 * round measures both in alternating order: CPU per request of the gateway process at c=32 (user + system
 * time from /proc over the requests it completed) and the added p50/p99 at c=1 (direct and both gateways
 * interleaved request by request, as gateway_measure.ts's paired groups). Medians over rounds are reported;
 * this checkout runs twice, behind its connection guard and without it (`--guard off`).
 * `--features` adds this checkout's gateway with the usage ledger (the default under `deno task start`) and
 * with the ledger, a key with limits and tracing on; `--with <features>` (repeatable; a comma list of
 * `ledger`, `limits`, `tracing`) adds this checkout with that set. Each featured side of this checkout is
 * paired with the baseline run with the same flags when the baseline's bench server knows them all (its
 * source names them), so a feature's cost is compared like for like; its ratios are then to that pair. A
 * baseline that predates the gateway's spans (no `--tracing`) is paired for tracing with Deno's OpenTelemetry
 * on (`OTEL_DENO=true`: its Deno.serve span and exporter), which is what tracing on meant for that commit.
 * Linux only (/proc).
 */
import { type Paired, pairedGroups, type Target, throughput } from "./gateway_measure.ts";

/** One gateway under test. */
interface Side {
  label: string;
  child: Deno.ChildProcess;
  target: Target;
  cpuPerRequestUs: number[];
  added: Array<[number, number]>;
  /** The baseline side run with the same features, when there is one: ratios are to it. */
  pair?: Side;
}

/** The bench server's flags and environment for a feature set (`ledger`, `limits`, `tracing`). */
function featureFlags(features: string[]): { args: string[]; env: Record<string, string> } {
  const known = ["ledger", "limits", "tracing"];
  const unknown = features.filter((f) => !known.includes(f));
  if (unknown.length) {
    throw new Error(`--with: unknown feature ${unknown.join(", ")} (known: ${known.join(", ")})`);
  }
  const args = known.filter((f) => features.includes(f)).map((f) => `--${f}`);
  // Tracing exports to a closed port: Deno's exporter does all its work, nothing listens.
  const env: Record<string, string> = features.includes("tracing")
    ? { OTEL_DENO: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }
    : {};
  return { args, env };
}

/** Clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ, 100 everywhere it matters). */
const TICKS = 100;

/** User + system CPU seconds of process `pid` so far. */
export function cpuSeconds(pid: number): number {
  // Through `cat` so the task needs no --allow-all (Deno asks for all access to read /proc).
  const out = new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stdout: "piped" }).outputSync();
  const stat = new TextDecoder().decode(out.stdout);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Ends bench servers (SIGTERM, so their unload handlers and --cpu-prof output run) and waits for them. */
export async function stopAll(children: Deno.ChildProcess[]): Promise<void> {
  for (const child of children) {
    try {
      child.kill("SIGTERM");
    } catch {
      // gone
    }
    await child.status;
  }
}

/** Starts `<root>/bench/gateway_bench_server.ts` (with that checkout's deno.json) and reads its address. */
export async function spawnFrom(
  root: string,
  upstream: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: Deno.ChildProcess; url: string; key: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}/bench/gateway_bench_server.ts`, upstream, ...args],
    cwd: root,
    env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${root}: the bench server exited before listening`);
    text += value;
  }
  (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // process gone
    }
  })();
  const info = JSON.parse(text.split("\n")[0]);
  return { child, url: info.url, key: info.key };
}

/** Runs the A/B comparison and prints its table. */
export async function runAb(options: {
  baseline: string;
  upstream: string;
  rounds: number;
  seconds: number;
  requests: number;
  features: boolean;
  /** Extra feature sets (`--with`), each a comma list. */
  with?: string[];
  direct: Target;
  body: (model: string) => string;
  model: string;
}): Promise<void> {
  const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const headers = (key: string) => ({
    "content-type": "application/json",
    "x-api-key": key,
    "anthropic-version": "2023-06-01",
  });
  // [label, root, args, env, index of the side it pairs with]
  const specs: Array<[string, string, string[], Record<string, string>, number?]> = [
    ["baseline", options.baseline, [], {}],
    ["this checkout", here, [], {}],
    // The baseline may predate the connection guard: the same gateway without it, for a like-for-like row.
    ["this checkout, guard off", here, ["--guard", "off"], {}],
  ];
  const sets: string[][] = [];
  // The usage ledger alone: on by default under `deno task start` (limits need a limited key, tracing OTEL_DENO).
  if (options.features) sets.push(["ledger"], ["ledger", "limits", "tracing"]);
  for (const list of options.with ?? []) sets.push(list.split(",").map((f) => f.trim()).filter(Boolean));
  let baselineSource = "";
  try {
    baselineSource = Deno.readTextFileSync(`${options.baseline}/bench/gateway_bench_server.ts`);
  } catch {
    // an older layout: no featured baseline sides
  }
  for (const set of sets) {
    const { args, env } = featureFlags(set);
    const name = set.join("+");
    let pair: number | undefined;
    const known = (flag: string) => baselineSource.includes(`"${flag}"`);
    if (args.every(known)) {
      pair = specs.length;
      specs.push([`baseline, ${name}`, options.baseline, args, env]);
    } else if (args.every((flag) => flag === "--tracing" || known(flag))) {
      // A baseline with no spans of its own: tracing on is Deno's OpenTelemetry (its Deno.serve span and
      // exporter) and nothing more, which is what turning tracing on meant for that commit.
      pair = specs.length;
      const own = args.filter((flag) => flag !== "--tracing");
      specs.push([
        `baseline, ${[...own.map((f) => f.slice(2)), "OTEL_DENO"].join("+")}`,
        options.baseline,
        own,
        env,
      ]);
    }
    specs.push([`this checkout, ${name}`, here, args, env, pair]);
  }
  const sides: Side[] = [];
  for (const [label, root, args, env, pair] of specs) {
    const { child, url, key } = await spawnFrom(root, options.upstream, args, env);
    sides.push({
      label,
      child,
      target: { url: `${url}/v1/messages`, headers: headers(key), body: options.body(options.model) },
      cpuPerRequestUs: [],
      added: [],
      pair: pair === undefined ? undefined : sides[pair],
    });
  }
  try {
    for (let round = 0; round < options.rounds; round++) {
      // Alternate the order each round, so neither side always runs on a machine the other just warmed.
      const order = round % 2 ? [...sides].reverse() : sides;
      for (const side of order) {
        await throughput(side.target, 32, 0.5); // warm-up
        const before = cpuSeconds(side.child.pid);
        const rps = await throughput(side.target, 32, options.seconds);
        const cpu = cpuSeconds(side.child.pid) - before;
        side.cpuPerRequestUs.push((cpu / (rps * options.seconds)) * 1e6);
      }
      const paired: Paired[] = (await pairedGroups(
        [{ direct: options.direct, vias: order.map((s) => s.target) }],
        options.requests,
        1,
      ))[0];
      order.forEach((side, i) => side.added.push(paired[i].added));
      console.error(
        `round ${round + 1}/${options.rounds}: ` +
          sides.map((s) =>
            `${s.label} ${s.cpuPerRequestUs.at(-1)!.toFixed(0)} µs, +${s.added.at(-1)![0].toFixed(2)}/+${
              s.added.at(-1)![1].toFixed(2)
            } ms`
          ).join("; "),
      );
    }
  } finally {
    await stopAll(sides.map((side) => side.child));
  }
  const base = sides[0];
  const rel = (x: number, b: number) => `${x >= b ? "+" : ""}${(((x - b) / b) * 100).toFixed(0)} %`;
  console.log(
    `\nA/B (${options.model}): ${options.rounds} rounds, c=32 for ${options.seconds} s and ${options.requests} ` +
      `paired c=1 requests per round; medians over rounds. Baseline: ${options.baseline}\n`,
  );
  console.log(
    "| gateway | CPU per request | added p50 | added p99 | CPU ratio to baseline (or its pair), median of rounds |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const side of sides) {
    // A featured side of this checkout is compared with the baseline run with the same features.
    const to = side.pair ?? base;
    const cpuBase = median(to.cpuPerRequestUs);
    const p50Base = median(to.added.map((a) => a[0]));
    const p99Base = median(to.added.map((a) => a[1]));
    const cpu = median(side.cpuPerRequestUs);
    const p50 = median(side.added.map((a) => a[0]));
    const p99 = median(side.added.map((a) => a[1]));
    const vs = side === base
      ? ["", "", ""]
      : [` (${rel(cpu, cpuBase)})`, ` (${rel(p50, p50Base)})`, ` (${rel(p99, p99Base)})`];
    // Each round's ratio to the baseline measured minutes apart in the same round: steadier than the ratio of
    // medians on a machine whose load changes from round to round.
    const ratio = median(side.cpuPerRequestUs.map((x, r) => x / to.cpuPerRequestUs[r]));
    console.log(
      // The p50 to the µs: the c=1 gaps this mode looks for are 5–30 µs (docs/gateway.md, "The c=1 gap").
      `| ${side.label} | ${cpu.toFixed(0)} µs${vs[0]} | +${p50.toFixed(3)} ms${vs[1]} | +${
        p99.toFixed(2)
      } ms${vs[2]} | ${ratio.toFixed(2)}${side.pair ? " (pair)" : ""} |`,
    );
  }
}
