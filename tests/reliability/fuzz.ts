/**
 * `deno task fuzz [--minutes N] [--only a,b]`: every fuzz target of fuzz_properties.ts with random seeds,
 * round after round until the time is up (default 5 minutes), then a summary. Each failure is printed as a
 * ready-to-paste Deno test (seed and shrink path replay it exactly); the exit code is 1 when any was found.
 */
import { parseArgs } from "node:util";
import { FUZZ_TARGETS } from "./fuzz_properties.ts";
import { type FuzzRun, runFuzzTarget } from "./fuzz_run.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { minutes: { type: "string", default: "5" }, only: { type: "string" } },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  console.error("--minutes: expected a positive number");
  Deno.exit(2);
}
const targets = values.only ? values.only.split(",") : Object.keys(FUZZ_TARGETS);
for (const t of targets) {
  if (!FUZZ_TARGETS[t]) {
    console.error(`--only: unknown target ${t}; expected some of ${Object.keys(FUZZ_TARGETS).join(", ")}`);
    Deno.exit(2);
  }
}
const until = Date.now() + minutes * 60_000;
const slice = Math.max(5_000, Math.min(60_000, (minutes * 60_000) / targets.length / 3));
const cases = new Map<string, number>(targets.map((t) => [t, 0]));
const found: FuzzRun[] = [];
while (Date.now() < until) {
  for (const target of targets) {
    if (Date.now() >= until) break;
    const seed = Math.floor(Math.random() * 2 ** 31);
    const run = await runFuzzTarget(target, seed, 1_000_000, Math.min(slice, until - Date.now()));
    cases.set(target, cases.get(target)! + run.runs);
    console.error(
      `${target}: seed ${seed}, ${run.runs} cases${run.counterexample ? ", COUNTEREXAMPLE" : ""}`,
    );
    if (run.counterexample) found.push(run);
  }
}
console.log(`\nfuzz: ${minutes} min; ${[...cases].map(([t, n]) => `${t} ${n}`).join(", ")} cases`);
if (!found.length) console.log("no counterexample found");
for (const run of found) {
  console.log(
    `\n// ---- ${run.target} (paste into tests/reliability/fuzz_regressions_test.ts, which imports`,
  );
  console.log(
    `// fc from "fast-check" and FUZZ_TARGETS from "./fuzz_properties.ts") ----\n${run.counterexample}`,
  );
}
Deno.exit(found.length ? 1 : 0);
