/**
 * Issue 29 defect 4: with threat detection on, a custom job that the safe-output job waits for
 * (`safe-outputs.needs`, e.g. an approval gate) and that follows only `agent` could run — and be approved —
 * before detection judged the output. awc adds `detection` to its `needs:` (an intentional difference,
 * docs/compiler-differences.md); every job the safe-output job waits for must then follow detection.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

type Jobs = Record<string, { needs?: string | string[] }>;
const needsOf = (jobs: Jobs, name: string): string[] => {
  const n = jobs[name]?.needs;
  return n === undefined ? [] : Array.isArray(n) ? n : [n];
};
/** Whether `name` runs after `target` (through any chain of needs). */
function after(jobs: Jobs, name: string, target: string, seen = new Set<string>()): boolean {
  if (seen.has(name)) return false;
  seen.add(name);
  return needsOf(jobs, name).some((n) => n === target || after(jobs, n, target, seen));
}

const workflow = (gateNeeds: string, extra = "") =>
  `---\non:\n  workflow_dispatch:\nengine: claude\njobs:\n  approve:\n    runs-on: ubuntu-latest\n` +
  `    environment: production-approval\n    needs: ${gateNeeds}\n    steps:\n      - run: echo approved\n` +
  `  prepare:\n    runs-on: ubuntu-latest\n    needs: [agent]\n    steps:\n      - run: echo prepared\n` +
  `safe-outputs:\n  needs: [approve]\n  create-issue:\n${extra}---\nPrepare the release notes.\n`;

async function jobsOf(md: string): Promise<Jobs> {
  const { lock } = await compileOne(md);
  return (parse(lock) as { jobs: Jobs }).jobs;
}

for (const [label, gateNeeds] of [["needs agent", "[agent]"], ["needs a job after agent", "[prepare]"]]) {
  Deno.test(`detection runs before the approval gate (${label})`, async () => {
    const jobs = await jobsOf(workflow(gateNeeds));
    assert(jobs.detection, "threat detection is on by default");
    for (const gate of needsOf(jobs, "safe_outputs")) {
      if (["activation", "agent", "detection"].includes(gate)) continue;
      assert(after(jobs, gate, "detection"), `${gate} can run before detection`);
    }
    assertEquals(needsOf(jobs, "approve").includes("detection"), true);
    // A job safe_outputs does not wait for keeps its needs.
    if (gateNeeds === "[agent]") assertEquals(needsOf(jobs, "prepare"), ["agent"]);
  });
}

Deno.test("a gate that already follows detection, or no detection at all, is left as written", async () => {
  assertEquals(needsOf(await jobsOf(workflow("[agent, detection]")), "approve"), ["agent", "detection"]);
  const off = await jobsOf(workflow("[agent]", "  threat-detection: false\n"));
  assertEquals(off.detection, undefined);
  assertEquals(needsOf(off, "approve"), ["agent"]);
});
