import { parse } from "yaml";
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne, diagnosticsOf } from "./helpers.ts";

type Step = { name?: string; env?: Record<string, string>; run?: string };

Deno.test("plugins install with the engine's CLI after the engine, each token only with its own plugins", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: claude\nplugins:\n  - acme/tools@v1.2.0\n" +
      "  - plugin: acme/private@abc123\n    github-token: ${{ secrets.PRIVATE_PLUGIN_TOKEN }}\n---\nHi\n",
  );
  const steps = parse(lock).jobs.agent.steps as Step[];
  const names = steps.map((s) => s.name);
  const first = names.indexOf("Install plugins (1)");
  assert(first > names.indexOf("Install Claude Code CLI"), names.join(", "));
  assert(first < names.findIndex((n) => n?.startsWith("Execute")), "before the agent runs");
  assertEquals(steps[first].run, "claude plugin install acme/tools@v1.2.0\n");
  assertEquals(
    steps[first].env?.GH_TOKEN,
    "${{ secrets.GH_AW_PLUGINS_TOKEN || secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
  );
  assertEquals(steps[first + 1].run, "claude plugin install acme/private@abc123\n");
  assertEquals(steps[first + 1].env?.GH_TOKEN, "${{ secrets.PRIVATE_PLUGIN_TOKEN }}");
});

Deno.test("plugins on an engine without a plugin installer, or without a ref, are compile errors", async () => {
  const gemini = await diagnosticsOf(
    "---\non: workflow_dispatch\nengine: gemini\nplugins: [acme/tools@v1]\n---\nHi\n",
  );
  assert(
    gemini.some((d) => d.code === "plugins-unsupported" && d.message.includes("gemini")),
    JSON.stringify(gemini),
  );
  const noRef = await diagnosticsOf("---\non: workflow_dispatch\nplugins: [acme/tools]\n---\nHi\n");
  assert(
    noRef.some((d) => d.severity === "error" && d.message.includes("owner/repo@ref")),
    JSON.stringify(noRef),
  );
});
