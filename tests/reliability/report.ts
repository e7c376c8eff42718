/**
 * The outcome of one reliability scenario and the table `deno task chaos` prints (and docs/reliability.md
 * holds): faults injected, requests, answered, failed cleanly, lost, duplicated, time to recover, and the
 * scenario's own invariants, each checked and named.
 */

/** One checked invariant. */
export interface Invariant {
  /** What must hold, as a sentence. */
  name: string;
  /** Whether it held. */
  ok: boolean;
  /** Measured values behind the verdict. */
  detail?: string;
}

/** Counts of one scenario run. */
export interface ScenarioResult {
  /** Scenario name. */
  scenario: string;
  /** Faults injected (kills, outages, misbehaving answers, disk fills). */
  faults: number;
  /** Requests the clients sent. */
  requests: number;
  /** Requests answered as the protocol says (2xx, or the 4xx the request deserved). */
  answered: number;
  /** Requests that failed and said so (connection refused or reset, a retryable 503/529, an error event). */
  failedCleanly: number;
  /** Answers the client received whose effect is gone (a token that stopped working, a missing ledger row). */
  lost: number;
  /** Effects that happened twice (a refresh token or code accepted twice, a ledger row counted twice). */
  duplicated: number;
  /** Time from each fault to the first good answer after it (ms): median and worst. */
  recoverMs: number[];
  /** Invariants checked. */
  invariants: Invariant[];
  /** Further measured figures (throughput, RSS, fds, latency). */
  notes: string[];
}

/** A fresh result with zero counts. */
export function emptyResult(scenario: string): ScenarioResult {
  return {
    scenario,
    faults: 0,
    requests: 0,
    answered: 0,
    failedCleanly: 0,
    lost: 0,
    duplicated: 0,
    recoverMs: [],
    invariants: [],
    notes: [],
  };
}

/** Records an invariant on `result` and returns whether it held. */
export function check(result: ScenarioResult, name: string, ok: boolean, detail?: string): boolean {
  result.invariants.push({ name, ok, detail });
  return ok;
}

function recovery(ms: number[]): string {
  if (!ms.length) return "–";
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `${Math.round(median)} / ${Math.round(sorted[sorted.length - 1])}`;
}

/** The results as a Markdown table, then each scenario's invariants and notes. */
export function renderTable(results: ScenarioResult[]): string {
  const lines = [
    "| scenario | faults | requests | answered | failed cleanly | lost | duplicated | recover ms (median / max) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    lines.push(
      `| ${r.scenario} | ${r.faults} | ${r.requests} | ${r.answered} | ${r.failedCleanly} | ${r.lost} | ${r.duplicated} | ${
        recovery(r.recoverMs)
      } |`,
    );
  }
  lines.push("");
  for (const r of results) {
    lines.push(`**${r.scenario}**`, "");
    for (const i of r.invariants) {
      lines.push(`- ${i.ok ? "✔" : "✘ FAILED:"} ${i.name}${i.detail ? ` (${i.detail})` : ""}`);
    }
    for (const note of r.notes) lines.push(`- ${note}`);
    lines.push("");
  }
  return lines.join("\n");
}

/** Every invariant that failed, as `scenario: name (detail)`. */
export function failures(results: ScenarioResult[]): string[] {
  return results.flatMap((r) =>
    r.invariants.filter((i) => !i.ok).map((i) =>
      `${r.scenario}: ${i.name}${i.detail ? ` (${i.detail})` : ""}`
    )
  );
}

/** A short description of the machine a run measured (for the table's heading). */
export async function machineLine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => "")).match(/model name\s*:\s*(.+)/)?.[1];
  const mem = (await Deno.readTextFile("/proc/meminfo").catch(() => "")).match(/MemTotal:\s+(\d+)/)?.[1];
  const load = (await Deno.readTextFile("/proc/loadavg").catch(() => "")).split(" ").slice(0, 3).join(" ");
  return `${navigator.hardwareConcurrency} × ${cpu ?? "unknown CPU"}, ${
    mem ? Math.round(Number(mem) / 1048576) : "?"
  } GiB RAM, ${Deno.build.os} ${Deno.build.arch}, Deno ${Deno.version.deno}, load average ${load} at start`;
}
