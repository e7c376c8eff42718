/** `models:` aliases and the per-model cost table: validation, import merging, and where the lock hands them on. */
import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne, diagnosticsOf } from "./helpers.ts";

type Step = { name?: string; env?: Record<string, string>; run?: string };

function steps(lock: string, job: string): Step[] {
  return parse(lock).jobs[job].steps as Step[];
}

/** The AWF config JSON the agent's engine step writes. */
function awfConfig(lock: string): { apiProxy: Record<string, unknown> } {
  const exec = steps(lock, "agent").find((s) => s.name?.startsWith("Execute"))!.run!;
  const m = exec.match(/printf '%s\\n' '(\{.*?\})' > "\$\{RUNNER_TEMP\}\/gh-aw\/awf-config.json"/);
  assert(m, "the engine step writes the AWF config");
  return JSON.parse(m[1]);
}

function runInfoEnv(lock: string): Record<string, string> {
  return steps(lock, "activation").find((s) => s.name === "Generate agentic run info")!.env!;
}

const SHARED = {
  ".github/workflows/shared/models.md": `---
models:
  sonnet: ["shared/*sonnet*"]
  fast: ["shared/fast-*"]
  providers:
    openai:
      models:
        gpt-5:
          cost: { input: "9e-06", output: "9e-05" }
        gpt-5-mini:
          cost: { input: "2.5e-07", output: "2e-06", cache_read: "2.5e-08" }
---
`,
};

Deno.test("models: aliases are laid over AWF's built-in aliases, the main workflow winning over imports", async () => {
  const { lock } = await compileOne(
    `---\non: workflow_dispatch\nimports: [shared/models.md]\nmodels:\n  sonnet: ["mygateway/*sonnet-v3*"]\n---\nHi\n`,
    SHARED,
  );
  const models = awfConfig(lock).apiProxy.models as Record<string, string[]>;
  assertEquals(models.sonnet, ["mygateway/*sonnet-v3*"]);
  assertEquals(models.fast, ["shared/fast-*"]);
  assertEquals(models.haiku, ["copilot/*haiku*", "anthropic/*haiku*"], "built-ins stay");
  assertEquals(Object.keys(models), Object.keys(models).sort(), "keys sorted as gh-aw writes them");
  assert(!("providers" in models), "the cost table is not an alias");
});

Deno.test("the cost table reaches the run info as GH_AW_INFO_MODEL_COSTS, imports merged under the main workflow", async () => {
  const { lock } = await compileOne(
    `---
on: workflow_dispatch
imports: [shared/models.md]
models:
  providers:
    openai:
      models:
        gpt-5:
          cost:
            input: "1.25e-06"
            output: "1e-05"
            cache_read: "1.25e-07"
    anthropic:
      models:
        claude-sonnet-4-6:
          cost: { input: "3e-06", output: "1.5e-05", cache_read: "3e-07", cache_write: "3.75e-06" }
---
Hi
`,
    SHARED,
  );
  const raw = runInfoEnv(lock).GH_AW_INFO_MODEL_COSTS;
  assertEquals(
    raw,
    '{"providers":{"anthropic":{"models":{"claude-sonnet-4-6":{"cost":{"cache_read":"3e-07","cache_write":"3.75e-06","input":"3e-06","output":"1.5e-05"}}}},' +
      '"openai":{"models":{"gpt-5":{"cost":{"cache_read":"1.25e-07","input":"1.25e-06","output":"1e-05"}},' +
      '"gpt-5-mini":{"cost":{"cache_read":"2.5e-08","input":"2.5e-07","output":"2e-06"}}}}}}',
  );
  assert(
    lock.includes('GH_AW_INFO_MODEL_COSTS: \'{"providers"'),
    "single-quoted like gh-aw's JSON env values",
  );
  // The targeted AWF release (v0.25) rejects unknown apiProxy keys, so the prices are not put in its config.
  assert(!("providers" in awfConfig(lock).apiProxy));
});

Deno.test("a firewall release that reads apiProxy.providers receives the same prices", async () => {
  const { lock } = await compileOne(
    `---
on: workflow_dispatch
sandbox:
  agent:
    version: v0.27.43
providers:
  openai:
    models:
      gpt-5:
        cost: { input: "1.25e-06", output: "1e-05" }
---
Hi
`,
  );
  const recorded = JSON.parse(runInfoEnv(lock).GH_AW_INFO_MODEL_COSTS);
  assertEquals(awfConfig(lock).apiProxy.providers, recorded.providers);
  assertEquals(recorded.providers.openai.models["gpt-5"].cost, { input: "1.25e-06", output: "1e-05" });
});

Deno.test("without a cost table the run info carries no GH_AW_INFO_MODEL_COSTS", async () => {
  const { lock } = await compileOne("---\non: workflow_dispatch\n---\nHi\n");
  assert(!("GH_AW_INFO_MODEL_COSTS" in runInfoEnv(lock)));
});

Deno.test("bad cost tables and aliases are located errors", async () => {
  const cases: [string, string][] = [
    [
      `models:\n  providers:\n    openai:\n      models:\n        gpt-5:\n          cost: { input: "cheap", output: "1e-05" }`,
      "USD per token",
    ],
    [
      `models:\n  providers:\n    openai:\n      models:\n        gpt-5:\n          cost: { input: "1e-06" }`,
      "output",
    ],
    [
      `models:\n  providers:\n    openai:\n      models:\n        gpt-5:\n          cost: { input: "1e-06", output: "1e-05", cache_reads: "1e-07" }`,
      "cache_reads",
    ],
    [`models:\n  sonnet: mygateway/sonnet`, "model patterns"],
    [`providers:\n  openai:\n    gpt-5:\n      cost: { input: "1e-06", output: "1e-05" }`, "gpt-5"],
  ];
  for (const [yaml, needle] of cases) {
    const diags = await diagnosticsOf(`---\non: workflow_dispatch\n${yaml}\n---\nHi\n`);
    const errors = diags.filter((d) => d.severity === "error");
    assert(errors.length > 0, `expected an error for:\n${yaml}`);
    assert(
      errors.some((d) => `${d.message} ${d.hint ?? ""}`.includes(needle) && d.line > 1),
      `expected a located error mentioning ${needle}, got ${JSON.stringify(errors)}`,
    );
  }
});
