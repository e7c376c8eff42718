/**
 * Scenario 2, several auth processes on one database: the same refresh load against one process, then split
 * across two `deno serve auth/main.ts` processes on the same libSQL file, then one `deno serve --parallel`
 * (DENO_JOBS workers); and races where one refresh token is sent to both processes at the same moment.
 * Exactly one of each race wins (the loser is a replay and revokes the grant, as rotation says); a
 * `SQLITE_BUSY` must never reach a client as a 5xx.
 */
import {
  type AuthFixture,
  authorizeCodes,
  exchangeCode,
  integrityCheck,
  prepareAuth,
  refresh,
  spawnAuth,
} from "./auth_fixture.ts";
import { type ServiceProcess, sleep } from "./processes.ts";
import { check, emptyResult, type ScenarioResult } from "./report.ts";

/** Options of {@link runAuthShared}. */
export interface AuthSharedOptions {
  /** Concurrent refresh chains of the throughput phases. */
  chains: number;
  /** Length of each throughput phase (ms). */
  phaseMs: number;
  /** Race rounds (each races `chains` tokens). */
  raceRounds: number;
  /** Also measure `deno serve --parallel` (DENO_JOBS=2). */
  parallel: boolean;
}

async function freshChains(fixture: AuthFixture, url: string, n: number): Promise<string[]> {
  const codes = await authorizeCodes(fixture, url, n);
  const tokens: string[] = [];
  for (const code of codes) {
    const a = await exchangeCode(fixture, url, code);
    if (!a.body?.refresh_token) throw new Error(`code exchange failed: ${a.status}`);
    tokens.push(a.body.refresh_token);
  }
  return tokens;
}

/** Refresh load over `urls` (chain i uses urls[i % n]) for `ms`; returns rotations per second. */
async function throughput(
  fixture: AuthFixture,
  urls: string[],
  chains: number,
  ms: number,
  result: ScenarioResult,
  unclean: { count: number },
): Promise<number> {
  const tokens = await freshChains(fixture, urls[0], chains);
  let rotations = 0;
  const until = performance.now() + ms;
  await Promise.all(tokens.map(async (token, i) => {
    let n = i;
    while (performance.now() < until) {
      // Alternate processes along one chain too, so rotation crosses processes.
      const a = await refresh(fixture, urls[n++ % urls.length], token);
      result.requests++;
      if (a.status === 200 && a.body?.refresh_token) {
        result.answered++;
        rotations++;
        token = a.body.refresh_token;
      } else if (a.status >= 500 || a.status === 0) {
        unclean.count++;
        return;
      } else {
        result.lost++;
        return;
      }
    }
  }));
  return rotations / (ms / 1000);
}

/** Runs the scenario and returns its counts and invariants. */
export async function runAuthShared(options: AuthSharedOptions): Promise<ScenarioResult> {
  const result = emptyResult("2 two auth processes, one database");
  const fixture = await prepareAuth();
  const started: ServiceProcess[] = [];
  const unclean = { count: 0 };
  try {
    const a = await spawnAuth(fixture);
    started.push(a);
    const b = await spawnAuth(fixture);
    started.push(b);
    const one = await throughput(fixture, [a.url], options.chains, options.phaseMs, result, unclean);
    const two = await throughput(fixture, [a.url, b.url], options.chains, options.phaseMs, result, unclean);
    result.notes.push(
      `refresh rotations/s with ${options.chains} chains: 1 process ${one.toFixed(0)}, ` +
        `2 processes ${two.toFixed(0)} (×${(two / one).toFixed(2)})`,
    );
    // Races: one token, both processes, the same moment.
    let wins = 0;
    for (let round = 0; round < options.raceRounds; round++) {
      const tokens = await freshChains(fixture, a.url, options.chains);
      await Promise.all(tokens.map(async (token) => {
        const [x, y] = await Promise.all([refresh(fixture, a.url, token), refresh(fixture, b.url, token)]);
        result.requests += 2;
        result.faults++;
        for (const s of [x.status, y.status]) {
          if (s === 200 || s === 400) result.answered++;
          else unclean.count++;
        }
        const won = [x, y].filter((r) => r.status === 200).length;
        if (won > 1) result.duplicated++;
        if (won === 1) wins++;
      }));
    }
    const races = options.raceRounds * options.chains;
    check(result, "every refresh race has exactly one winner", wins === races, `${wins} of ${races}`);
    check(result, "no refresh token is accepted twice", result.duplicated === 0);
    check(
      result,
      "no SQLITE_BUSY (or anything else) reaches a client as a 5xx",
      unclean.count === 0,
      `${unclean.count}`,
    );
    check(
      result,
      "every rotation of the throughput phases succeeded",
      result.lost === 0,
      `lost ${result.lost}`,
    );
    await Promise.all(started.splice(0).map((p) => p.stop("SIGTERM")));
    if (options.parallel) {
      const p = await spawnAuth(
        { ...fixture, env: { ...fixture.env, DENO_JOBS: "2" } },
        { flags: ["--parallel"] },
      );
      started.push(p);
      await sleep(200);
      const parallel = await throughput(fixture, [p.url], options.chains, options.phaseMs, result, unclean);
      result.notes.push(`\`deno serve --parallel\` (DENO_JOBS=2): ${parallel.toFixed(0)} rotations/s`);
      check(result, "--parallel: no 5xx and no failed rotation", unclean.count === 0 && result.lost === 0);
      await Promise.all(started.splice(0).map((p) => p.stop("SIGTERM")));
    }
    const integrity = await integrityCheck(fixture.dbPath);
    check(result, "PRAGMA integrity_check is ok", integrity === "ok", integrity);
    return result;
  } finally {
    await Promise.all(started.map((p) => p.stop("SIGKILL")));
    await fixture.remove();
  }
}
