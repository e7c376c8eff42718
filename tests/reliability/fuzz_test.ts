/**
 * Issue 30, item 8: every fuzz target with a fixed seed, a bounded number of cases and a time budget, as CI
 * runs them. A failure prints the ready-to-paste regression test (see fuzz_run.ts).
 */
import { FUZZ_TARGETS } from "./fuzz_properties.ts";
import { runFuzzTarget } from "./fuzz_run.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
/** Cases and time budget per target (the compiler compiles each case, so it gets fewer). */
const BUDGET: Record<string, [number, number]> = {
  messages_validator: [400, 3000],
  translators: [200, 4000],
  messages_http: [120, 4000],
  sse_chunking: [300, 2000],
  oauth_params: [150, 4000],
  compiler_frontmatter: [25, 6000],
};

for (const target of Object.keys(FUZZ_TARGETS)) {
  Deno.test(`fuzz: ${target} holds for a fixed seed within its time budget`, e2e, async () => {
    const [runs, ms] = BUDGET[target];
    const run = await runFuzzTarget(target, 20261127, runs, ms);
    if (run.counterexample) throw new Error(`counterexample found:\n${run.counterexample}`);
    if (run.runs < Math.min(10, runs)) throw new Error(`only ${run.runs} cases ran within ${ms} ms`);
  });
}
