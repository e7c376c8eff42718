/**
 * Scenario 7, soak: mixed load across the suite — auth refresh chains and code flows against
 * `deno serve auth/main.ts`, gateway streams, tool-use streams and plain answers through
 * `deno serve gateway/main.ts`, and compiles of the fixture workflows — in windows of equal length. After
 * the first window (warm-up) RSS must grow less than `rssGrowth`, open descriptors stay flat, and each
 * load's p99 drift less than `p99Drift` from the first window. `deno task soak [--minutes N]` runs it
 * (default 10 one-minute windows); the short version in chaos_test.ts runs three 3-second windows.
 */
import { parseArgs } from "node:util";
import { compile } from "../../compiler/mod.ts";
import { startHarness } from "../gateway/harness.ts";
import { authorizeCodes, exchangeCode, prepareAuth, refresh, spawnAuth } from "./auth_fixture.ts";
import { GATEWAY_ENTRY, sendMessages } from "./gateway_load.ts";
import { killAll, processStats, type ServiceProcess, sleep, spawnServe } from "./processes.ts";
import { check, emptyResult, machineLine, renderTable, type ScenarioResult } from "./report.ts";

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** Windows to run (the first is the warm-up). */
  windows: number;
  /** Length of one window (ms). */
  windowMs: number;
  /** Largest RSS growth allowed after warm-up (0.1: 10 %). */
  rssGrowth: number;
  /** Largest p99 drift allowed from the first window (0.2: 20 %). */
  p99Drift: number;
}

const LOADS = [
  "auth refresh",
  "auth code flow",
  "gateway stream",
  "gateway tools",
  "gateway plain",
  "compile",
];
const REPO = new URL("../compiler/testdata/repo/", import.meta.url).pathname;

interface Window {
  latencies: Map<string, number[]>;
  /** Milliseconds of a fixed CPU task, sampled through the window: how fast the shared machine was. */
  calibration: number[];
  stats: {
    auth: { rssMiB: number; fds: number };
    gateway: { rssMiB: number; fds: number };
    driverMiB: number;
  };
}

/** A fixed CPU task (hashing 4 MiB twice), timed: the machine's speed at this moment. */
async function calibrate(): Promise<number> {
  const data = new Uint8Array(4 * 1024 * 1024);
  const t = performance.now();
  for (let i = 0; i < 2; i++) await crypto.subtle.digest("SHA-256", data);
  return performance.now() - t;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

/** Runs the soak and returns its counts and invariants. */
export async function runSoak(options: SoakOptions): Promise<ScenarioResult> {
  const result = emptyResult(`7 soak (${options.windows} × ${options.windowMs / 1000} s mixed load)`);
  const fixture = await prepareAuth();
  const h = await startHarness();
  const started: ServiceProcess[] = [];
  let stopping = false;
  try {
    const auth = await spawnAuth(fixture);
    started.push(auth);
    const gateway = await spawnServe(GATEWAY_ENTRY, { ...h.env, LOG_LEVEL: "error" });
    started.push(gateway);
    await sleep(400);
    let current: Window = {
      latencies: new Map(LOADS.map((l) => [l, []])),
      calibration: [],
      stats: undefined!,
    };
    const failures: string[] = [];
    const timed = async (load: string, call: () => Promise<boolean>) => {
      const t = performance.now();
      const ok = await call().catch(() => false);
      result.requests++;
      if (ok) {
        result.answered++;
        current.latencies.get(load)!.push(performance.now() - t);
      } else failures.push(load);
    };
    const chains = [];
    for (const code of await authorizeCodes(fixture, auth.url, 4)) {
      chains.push((await exchangeCode(fixture, auth.url, code)).body!.refresh_token!);
    }
    const workers = [
      ...chains.map(async (token) => {
        while (!stopping) {
          await timed("auth refresh", async () => {
            const a = await refresh(fixture, auth.url, token);
            if (a.body?.refresh_token) token = a.body.refresh_token;
            return a.status === 200;
          });
        }
      }),
      (async () => {
        while (!stopping) {
          await timed("auth code flow", async () => {
            const [code] = await authorizeCodes(fixture, auth.url, 1);
            return (await exchangeCode(fixture, auth.url, code)).status === 200;
          });
        }
      })(),
      ...[["gateway stream", "openai/fx-text", true], ["gateway tools", "anthropic/claude-fx-tool", true], [
        "gateway plain",
        "openai/fx-text",
        false,
      ]].map(async ([load, model, stream]) => {
        while (!stopping) {
          await timed(
            load as string,
            async () =>
              (await sendMessages(gateway.url, h.key, model as string, stream as boolean)).kind ===
                "complete",
          );
        }
      }),
      (async () => {
        while (!stopping) {
          current.calibration.push(await calibrate());
          await sleep(250);
        }
      })(),
      (async () => {
        while (!stopping) {
          await timed("compile", async () => {
            const r = await compile({ repoRoot: REPO, workflows: [".github/workflows/basic.md"] });
            return r.workflows.every((w) => w.lockContent !== undefined);
          });
          await sleep(200);
        }
      })(),
    ];
    const windows: Window[] = [];
    for (let w = 0; w < options.windows; w++) {
      await sleep(options.windowMs);
      current.stats = {
        auth: await processStats(auth.pid),
        gateway: await processStats(gateway.pid),
        driverMiB: Deno.memoryUsage().rss / 1048576,
      };
      windows.push(current);
      // The mock upstreams record every request they answer: forget them, or the driver's memory grows.
      for (const mock of [h.openai, h.anthropic, h.gemini, h.compat]) mock.requests.length = 0;
      current = { latencies: new Map(LOADS.map((l) => [l, []])), calibration: [], stats: undefined! };
    }
    stopping = true;
    await Promise.all(workers);
    result.failedCleanly = failures.length;
    const first = windows[0];
    const last = windows[windows.length - 1];
    const later = windows.slice(1);
    check(
      result,
      "every request of the soak was answered",
      failures.length === 0,
      failures.slice(0, 5).join(", "),
    );
    for (const name of ["auth", "gateway"] as const) {
      const growth = last.stats[name].rssMiB / first.stats[name].rssMiB - 1;
      check(
        result,
        `${name} RSS grows less than ${options.rssGrowth * 100} % after warm-up`,
        growth < options.rssGrowth,
        `${first.stats[name].rssMiB.toFixed(1)} → ${last.stats[name].rssMiB.toFixed(1)} MiB (${
          (growth * 100).toFixed(1)
        } %)`,
      );
      const fds = later.map((w) => w.stats[name].fds);
      check(
        result,
        `${name} open descriptors stay flat`,
        Math.max(...fds) - Math.min(...fds, first.stats[name].fds) <= 4,
        `${first.stats[name].fds} after warm-up, then ${fds.join(", ")}`,
      );
    }
    // The machine is shared: each p99 is divided by how slow a fixed CPU task ran in its window.
    const speed = median(last.calibration) / median(first.calibration);
    for (const load of LOADS) {
      const a = p99(first.latencies.get(load)!);
      const b = p99(last.latencies.get(load)!);
      const drift = a ? b / a / speed - 1 : 0;
      check(
        result,
        `${load}: p99 drifts less than ${
          options.p99Drift * 100
        } % from the first window (machine speed corrected)`,
        drift < options.p99Drift,
        `${a.toFixed(1)} → ${b.toFixed(1)} ms raw, ${(drift * 100).toFixed(0)} % corrected; ${
          windows.reduce((n, w) => n + w.latencies.get(load)!.length, 0)
        } requests`,
      );
    }
    result.notes.push(
      `machine speed in the last window against the first (fixed CPU task): ×${(1 / speed).toFixed(2)}`,
    );
    for (const name of ["auth", "gateway"] as const) {
      result.notes.push(
        `${name} RSS per window (MiB): ${windows.map((w) => w.stats[name].rssMiB.toFixed(0)).join(", ")}`,
      );
    }
    result.notes.push(
      `driver (compiler) RSS ${first.stats.driverMiB.toFixed(0)} → ${last.stats.driverMiB.toFixed(0)} MiB; ` +
        `per-window requests ${
          windows.map((w) => [...w.latencies.values()].reduce((n, l) => n + l.length, 0)).join(", ")
        }`,
    );
    return result;
  } finally {
    stopping = true;
    await Promise.all(started.map((p) => p.stop("SIGKILL")));
    await h.close();
    await fixture.remove();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { minutes: { type: "string", default: "10" } } });
  const minutes = Number(values.minutes);
  if (!(minutes > 0)) {
    console.error("--minutes: expected a positive number");
    Deno.exit(2);
  }
  const windows = Math.max(3, Math.round(minutes));
  console.log(`machine: ${await machineLine()}`);
  try {
    const result = await runSoak({
      windows,
      windowMs: (minutes * 60_000) / windows,
      rssGrowth: 0.1,
      p99Drift: 0.2,
    });
    console.log(renderTable([result]));
    Deno.exit(result.invariants.every((i) => i.ok) ? 0 : 1);
  } finally {
    await killAll();
  }
}
