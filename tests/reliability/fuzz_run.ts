/**
 * Runs one fuzz target with fast-check and renders a failure as a ready-to-paste Deno test (seed, path and
 * the shrunk counterexample), for `fuzz_test.ts` (fixed seeds) and `deno task fuzz` (random seeds).
 */
import fc from "fast-check";
import { FUZZ_TARGETS } from "./fuzz_properties.ts";

/** Outcome of one run. */
export interface FuzzRun {
  /** Target name. */
  target: string;
  /** Seed used. */
  seed: number;
  /** Cases run. */
  runs: number;
  /** A ready-to-paste test reproducing the failure, when one was found. */
  counterexample?: string;
}

/** Runs `target` with `seed` for at most `numRuns` cases and `timeLimitMs`. */
export async function runFuzzTarget(
  target: string,
  seed: number,
  numRuns: number,
  timeLimitMs: number,
): Promise<FuzzRun> {
  const started = await FUZZ_TARGETS[target]();
  try {
    const details = await fc.check(started.property as fc.IAsyncProperty<unknown[]>, {
      seed,
      numRuns,
      interruptAfterTimeLimit: timeLimitMs,
      markInterruptAsFailure: false,
    });
    const run: FuzzRun = { target, seed, runs: details.numRuns };
    if (details.failed) run.counterexample = pasteableTest(target, details);
    return run;
  } finally {
    await started.close();
  }
}

function pasteableTest(target: string, details: fc.RunDetails<unknown[]>): string {
  const value = fc.stringify(details.counterexample);
  const error = String(details.errorInstance ?? "").split("\n")[0].slice(0, 300);
  return [
    `// Found by \`deno task fuzz\`: ${error}`,
    `// Counterexample: ${value.length > 2000 ? `${value.slice(0, 2000)}…` : value}`,
    `Deno.test("fuzz regression: ${target} (seed ${details.seed}, path ${details.counterexamplePath})", async () => {`,
    `  const target = await FUZZ_TARGETS.${target}();`,
    `  try {`,
    `    await fc.assert(target.property as fc.IAsyncProperty<unknown[]>, {`,
    `      seed: ${details.seed},`,
    `      path: ${JSON.stringify(details.counterexamplePath)},`,
    `      endOnFailure: true,`,
    `    });`,
    `  } finally {`,
    `    await target.close();`,
    `  }`,
    `});`,
  ].join("\n");
}
