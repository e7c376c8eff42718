/**
 * `deno task chaos [--only 1,3] [--kills N] [--seed S]`: the fault-injection scenarios of issue 30 against
 * the real processes on loopback — (1) auth SIGKILL mid-flight, (2) two auth processes on one database,
 * (3) gateway SIGKILL/SIGTERM mid-stream, (4) Redis killed and restarted empty, (5) misbehaving upstreams,
 * (6) disk full — at full size, then the table docs/reliability.md holds. Every process it starts is
 * killed when it ends, fails, hits its time limit (20 minutes) or gets Ctrl-C. Exit 1 when an invariant
 * failed.
 */
import { parseArgs } from "node:util";
import { runAuthKill } from "./auth_kill.ts";
import { runAuthShared } from "./auth_shared.ts";
import { runDiskFull } from "./disk_full.ts";
import { runGatewayKill } from "./gateway_kill.ts";
import { killAll } from "./processes.ts";
import { runRedisOutage } from "./redis_outage.ts";
import { failures, machineLine, renderTable, type ScenarioResult } from "./report.ts";
import { runUpstreamFaults } from "./upstream_faults.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    only: { type: "string", default: "1,2,3,4,5,6" },
    kills: { type: "string", default: "20" },
    seed: { type: "string", default: String(Date.now() % 1_000_000) },
  },
});
const kills = Number(values.kills);
const seed = Number(values.seed);
if (!(kills > 0) || !Number.isInteger(seed)) {
  console.error("--kills: expected a positive number; --seed: expected an integer");
  Deno.exit(2);
}
const SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
  "1": () => runAuthKill({ kills, chains: 16, codes: kills * 40, minGapMs: 300, maxGapMs: 2000, seed }),
  "2": () => runAuthShared({ chains: 16, phaseMs: 5000, raceRounds: 5, parallel: true }),
  "3": () =>
    runGatewayKill({ faults: kills, clients: 12, minGapMs: 300, maxGapMs: 2000, flushMs: 1000, seed }),
  "4": () => runRedisOutage({ outages: 3, outageMs: 3000, clients: 8, timeoutMs: 250 }),
  "5": () => runUpstreamFaults({ requestsPerFault: 30, clients: 14 }),
  "6": () => runDiskFull({ sizeMiB: 8, fullMs: 5000 }),
};
const chosen = values.only.split(",");
for (const name of chosen) {
  if (!SCENARIOS[name]) {
    console.error(
      `--only: unknown scenario ${name}; expected some of 1,2,3,4,5,6 (the soak is deno task soak)`,
    );
    Deno.exit(2);
  }
}
const limit = setTimeout(() => {
  console.error("chaos: 20-minute limit reached; stopping every process");
  killAll().finally(() => Deno.exit(1));
}, 20 * 60_000);
Deno.addSignalListener("SIGINT", () => killAll().finally(() => Deno.exit(130)));
console.log(`machine: ${await machineLine()}; seed ${seed}, ${kills} kills`);
const results: ScenarioResult[] = [];
try {
  for (const name of chosen) {
    const started = performance.now();
    results.push(await SCENARIOS[name]());
    console.error(`scenario ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  await killAll();
  clearTimeout(limit);
}
console.log(renderTable(results));
const failed = failures(results);
if (failed.length) console.log(`FAILED:\n${failed.join("\n")}`);
Deno.exit(failed.length ? 1 : 0);
