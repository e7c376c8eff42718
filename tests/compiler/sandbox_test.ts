import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne, diagnosticsOf } from "./helpers.ts";

const PIN = "registry.example.com/awf/squid@sha256:" + "a".repeat(64);

Deno.test("sandbox.agent.version selects the AWF release everywhere the agent job names it", async () => {
  const { lock } = await compileOne(
    `---\non: workflow_dispatch\nsandbox:\n  agent:\n    version: v0.28.14\n    images:\n      squid: ${PIN}\n---\nHi\n`,
  );
  const agent = parse(lock).jobs.agent;
  const names = (s: { name?: string }) => s.name ?? "";
  const install = agent.steps.find((s: { name?: string }) => names(s) === "Install AWF binary");
  assertEquals(install.run, 'bash "${RUNNER_TEMP}/gh-aw/actions/install_awf_binary.sh" v0.28.14');
  const images = agent.steps.find((s: { name?: string }) => names(s) === "Download container images").run;
  assertIncludes(images, "ghcr.io/github/gh-aw-firewall/agent:0.28.14");
  assertIncludes(images, PIN);
  assert(!images.includes("gh-aw-firewall/squid:"), "the pinned squid image replaces the release's");
  const exec = agent.steps.find((s: { name?: string }) => names(s).startsWith("Execute")).run as string;
  assertIncludes(exec, "releases/download/v0.28.14/awf-config.schema.json");
  assertIncludes(exec, '"imageTag":"0.28.14"');
});

Deno.test("sandbox.agent.images must be digest-pinned, with a message naming the rule", async () => {
  const diags = await diagnosticsOf(
    "---\non: workflow_dispatch\nsandbox:\n  agent:\n    images:\n      squid: ubuntu/squid:latest\n---\nHi\n",
  );
  assert(diags.some((d) => d.severity === "error" && d.message.includes("sha256")), JSON.stringify(diags));
});
