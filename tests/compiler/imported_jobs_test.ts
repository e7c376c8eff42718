/**
 * An import's `jobs:` join the workflow's (the workflow wins a name), and a `jobs.<built-in>` entry customises
 * the generated job: its `pre-steps` run right after that job's setup step (gh-aw's TruffleHog import adds a
 * scan job and a conclusion pre-step so).
 */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const SHARED = `---
jobs:
  scan:
    runs-on: ubuntu-latest
    needs: [agent]
    steps:
      - run: echo scan
  conclusion:
    pre-steps:
      - name: Report scan failure
        if: always() && needs.scan.result == 'failure'
        continue-on-error: true
        uses: actions/github-script@v9
        env:
          RETRIES: 3
        with:
          script: core.info('failed')
---
`;

const WORKFLOW = (jobs = "") =>
  `---
on: workflow_dispatch
imports:
  - shared/scan.md
safe-outputs:
  create-issue:
${jobs}---
Do it.
`;

type Step = Record<string, unknown> & { name?: string; id?: string };
type Lock = { jobs: Record<string, { needs?: string[] | string; steps: Step[] }> };

Deno.test("an imported job is added and the conclusion waits for it", async () => {
  const lock = parse(
    (await compileOne(WORKFLOW(), { ".github/workflows/shared/scan.md": SHARED })).lock,
  ) as Lock;
  assert("scan" in lock.jobs, `jobs: ${Object.keys(lock.jobs)}`);
  assert(lock.jobs.conclusion.steps.some((s) => s.id === "setup"), "the conclusion stays the generated job");
  assert((lock.jobs.conclusion.needs as string[]).includes("scan"));
  assertEquals(lock.jobs.agent.needs, "activation", "a built-in job's entry is no job the agent waits for");
});

Deno.test("a built-in job's pre-steps go right after its setup step, in gh-aw's step key order", async () => {
  const lock = parse(
    (await compileOne(WORKFLOW(), { ".github/workflows/shared/scan.md": SHARED })).lock,
  ) as Lock;
  const steps = lock.jobs.conclusion.steps;
  const setup = steps.findIndex((s) => s.id === "setup");
  assertEquals(steps[setup + 1].name, "Report scan failure");
  assertEquals(Object.keys(steps[setup + 1]), ["name", "if", "uses", "env", "with", "continue-on-error"]);
  assertEquals(steps[setup + 1].env, { RETRIES: "3" });
  assert(String(steps[setup + 1].uses).startsWith("actions/github-script@"));
});

Deno.test("the workflow's own job of an imported name wins", async () => {
  const own = "jobs:\n  scan:\n    runs-on: ubuntu-22.04\n    steps:\n      - run: echo mine\n";
  const lock = parse(
    (await compileOne(WORKFLOW(own), { ".github/workflows/shared/scan.md": SHARED })).lock,
  ) as Lock;
  assertEquals((lock.jobs.scan as unknown as Record<string, unknown>)["runs-on"], "ubuntu-22.04");
});
