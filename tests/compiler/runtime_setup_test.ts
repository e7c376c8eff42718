/**
 * Runtime setup as gh-aw v0.76 writes it: runtimes are detected from the text after `run:` on each line of the
 * custom steps (block scripts are never read), a user's plain setup step is folded into gh-aw's and a
 * customised one stays, `gh aw` needs the gh-aw CLI, and when the custom steps check the repository out
 * themselves the setup goes right after that checkout.
 */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; uses?: string; run?: string; with?: Record<string, unknown> };

async function agentSteps(steps: string, actionMode: "dev" | "release" = "release"): Promise<Step[]> {
  const md = `---\non: workflow_dispatch\nsteps:\n${steps}\n---\n# Task\n`;
  const { lock } = await compileOne(md, {}, { actionMode });
  return (parse(lock) as { jobs: { agent: { steps: Step[] } } }).jobs.agent.steps;
}
const names = (steps: Step[]) => steps.map((s) => s.name);

Deno.test("a block script's commands set up no runtime; the user's own setup step stays where written", async () => {
  const steps = await agentSteps(
    "  - name: Setup Python runtime\n    uses: actions/setup-python@v6.2.0\n    with:\n      python-version: '3.12'\n" +
      "  - name: Install\n    run: |\n      python3 -m pip install pandas\n      echo done\n",
  );
  assert(!names(steps).includes("Setup Python"), "no Setup Python of gh-aw's own");
  const own = names(steps).indexOf("Setup Python runtime");
  assert(
    own > names(steps).indexOf("Create gh-aw temp directory"),
    "the user's step stays among the custom steps",
  );
});

Deno.test("a one-line command sets up its runtime, folding the user's plain setup step in", async () => {
  const steps = await agentSteps(
    "  - uses: actions/setup-node@v6.4.0\n    with:\n      node-version: '24'\n      cache: npm\n" +
      "  - run: npm ci\n",
  );
  const setup = steps.find((s) => s.name === "Setup Node.js")!;
  assertEquals(setup.with, { "node-version": "24", cache: "npm", "package-manager-cache": false });
  assertEquals(steps.filter((s) => s.uses?.startsWith("actions/setup-node@")).length, 1);
  assert(names(steps).indexOf("Setup Node.js") < names(steps).indexOf("Create gh-aw temp directory"));
});

Deno.test("custom steps that check out themselves get the runtime setup right after their checkout", async () => {
  const steps = await agentSteps(
    "  - name: Checkout\n    uses: actions/checkout@v6.0.2\n    with:\n      fetch-depth: 0\n" +
      "  - name: Build\n    run: go build ./...\n",
  );
  const at = names(steps).indexOf("Checkout");
  assertEquals(names(steps).slice(at, at + 4), [
    "Checkout",
    "Setup Go",
    "Capture GOROOT for AWF chroot mode",
    "Build",
  ]);
});

Deno.test("a step running `gh aw` installs the gh-aw CLI (built from source in dev mode)", async () => {
  const dev = await agentSteps("  - name: Logs\n    run: gh aw logs --json > /tmp/logs.json\n", "dev");
  const at = names(dev).indexOf("Build and install gh-aw CLI from source");
  assert(at >= 0 && at < names(dev).indexOf("Create gh-aw temp directory"));
  const release = await agentSteps("  - name: Logs\n    run: gh aw logs --json > /tmp/logs.json\n");
  const cli = release.find((s) => s.name === "Install gh-aw extension")!;
  assert(cli.uses?.startsWith("github/gh-aw/actions/setup-cli@"));
  assertEquals(cli.with, { version: "v0.76.1" });
});

Deno.test("a user's setup step is customised when its version differs from the one runtimes: asks for", async () => {
  const md = (runtimes: string) =>
    `---\non: workflow_dispatch\n${runtimes}steps:\n  - uses: actions/setup-node@v6.4.0\n    with:\n` +
    "      node-version: '24'\n  - run: npm ci\n---\nHi\n";
  const kept = parse((await compileOne(md('runtimes:\n  node:\n    version: "22"\n'))).lock).jobs.agent
    .steps as Step[];
  const setups = kept.filter((s) => s.uses?.startsWith("actions/setup-node@"));
  assertEquals(setups.length, 1, "only the user's own step");
  assertEquals(setups[0].with?.["node-version"], "24", "as the user wrote it, not runtimes: 22");
  const folded = parse((await compileOne(md(""))).lock).jobs.agent.steps as Step[];
  assertEquals(
    folded.find((s) => s.name === "Setup Node.js")?.with?.["package-manager-cache"],
    false,
    "folded",
  );
});
