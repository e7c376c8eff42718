/**
 * Issue 19 item 10: `timeout-minutes` bounds the agent job, the author's own checkout is not repeated,
 * an apt package named `python3` sets up no Python, and release-mode locks carry no dev-build details.
 */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { AGENT_JOB_OVERHEAD_MINUTES } from "../../compiler/plan/jobs/agent.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; uses?: string; with?: Record<string, unknown>; "timeout-minutes"?: number };
type Lock = { jobs: Record<string, { "timeout-minutes"?: number; steps: Step[] }> };

async function lockOf(
  frontmatter: string,
  mode: "dev" | "release" = "dev",
): Promise<{ text: string; y: Lock }> {
  const { lock } = await compileOne(`---\non: workflow_dispatch\n${frontmatter}\n---\n# Task\n`, {}, {
    actionMode: mode,
  });
  return { text: lock, y: parse(lock) as Lock };
}

const checkouts = (y: Lock) =>
  y.jobs.agent.steps.filter((s) => s.uses?.startsWith("actions/checkout@") && !s.with?.repository);

Deno.test("timeout-minutes bounds the whole agent job, with room for setup and uploads", async () => {
  const { y } = await lockOf("timeout-minutes: 30");
  assertEquals(y.jobs.agent["timeout-minutes"], 30 + AGENT_JOB_OVERHEAD_MINUTES);
  const engine = y.jobs.agent.steps.filter((s) => s["timeout-minutes"] === 30);
  assertEquals(engine.length, 1, "the engine step keeps the author's bound");
});

Deno.test("a timeout-minutes expression bounds the engine step only", async () => {
  const { y } = await lockOf("timeout-minutes: ${{ inputs.minutes }}");
  assertEquals(y.jobs.agent["timeout-minutes"], undefined);
});

Deno.test("the agent job does not check the repository out again after the author's own checkout", async () => {
  const own = await lockOf("steps:\n  - uses: actions/checkout@v6\n    with:\n      fetch-depth: 0");
  assertEquals(checkouts(own.y).length, 1);
  assertEquals(checkouts(own.y)[0].with?.["fetch-depth"], 0);
  // A checkout of another repository does not check this one out: the default checkout stays.
  const other = await lockOf(
    "steps:\n  - uses: actions/checkout@v6\n    with:\n      repository: acme/tools\n      path: tools",
  );
  assertEquals(checkouts(other.y).length, 1);
  assertEquals(checkouts(other.y)[0].name, "Checkout repository");
});

Deno.test("installing python3 with apt sets up no Python runtime", async () => {
  const { y } = await lockOf("steps:\n  - run: sudo apt-get install -y python3 jq");
  assert(!y.jobs.agent.steps.some((s) => s.name === "Setup Python"));
  const runs = await lockOf("steps:\n  - run: python3 tool.py");
  assert(runs.y.jobs.agent.steps.some((s) => s.name === "Setup Python"));
});

Deno.test("a release-mode lock names the gh-aw release it runs with, never a dev build", async () => {
  const release = await lockOf("engine: claude", "release");
  assert(!/GH_AW_VERSION: "?dev"?\n/.test(release.text), "no dev version in a release lock");
  assert(release.text.includes("GH_AW_VERSION: v0.76.1\n"));
  assert(release.text.includes('GH_AW_INFO_CLI_VERSION: "v0.76.1"\n'));
  const dev = await lockOf("engine: claude", "dev");
  assert(dev.text.includes("GH_AW_VERSION: dev\n"));
  assert(!dev.text.includes("GH_AW_INFO_CLI_VERSION"));
});
