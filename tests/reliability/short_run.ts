/** The short (CI) run of a scenario: its invariants must all hold; every process it started is killed. */
import { killAll } from "./processes.ts";
import { failures, renderTable, type ScenarioResult } from "./report.ts";

/** Deno.test options of the short scenarios (they start processes and servers of their own). */
export const E2E = { sanitizeOps: false, sanitizeResources: false };

/** Runs a scenario and throws, with its table, when an invariant failed. */
export async function holds(run: () => Promise<ScenarioResult>): Promise<void> {
  try {
    const result = await run();
    const failed = failures([result]);
    if (failed.length) throw new Error(`${failed.join("\n")}\n\n${renderTable([result])}`);
  } finally {
    await killAll();
  }
}
