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

Deno.test("pinned images are what AWF runs: pulled by digest, tagged with the role's name, in agent and detection", async () => {
  const agentPin = "registry.example.com/awf/agent@sha256:" + "b".repeat(64);
  const { lock } = await compileOne(
    `---\non: workflow_dispatch\nsafe-outputs:\n  create-issue: {}\nsandbox:\n  agent:\n    version: v0.28.14\n    images:\n      squid: ${PIN}\n      agent: ${agentPin}\n---\nHi\n`,
  );
  const jobs = parse(lock).jobs;
  for (const job of ["agent", "detection"]) {
    const steps = jobs[job].steps as { name?: string; run?: string }[];
    const at = (name: string) => steps.findIndex((s) => s.name === name);
    const download = at("Download container images");
    const tag = at("Use pinned firewall images");
    assert(
      download >= 0 && tag === download + 1,
      `${job}: the images are tagged right after they are pulled`,
    );
    assertIncludes(steps[download].run!, PIN);
    assertIncludes(steps[download].run!, agentPin);
    assertEquals(
      steps[tag].run,
      `set -euo pipefail\ndocker tag ${agentPin} ghcr.io/github/gh-aw-firewall/agent:0.28.14\n` +
        `docker tag ${PIN} ghcr.io/github/gh-aw-firewall/squid:0.28.14\n`,
    );
    const exec = steps.find((s) => s.name?.startsWith("Execute"))!.run!;
    assertIncludes(exec, "--skip-pull");
    assertIncludes(exec, '"imageTag":"0.28.14"');
    const install = steps.find((s) => s.name === "Install AWF binary")!.run!;
    assertIncludes(install, "v0.28.14");
  }
});

Deno.test("without pinned images there is no tagging step", async () => {
  const { lock } = await compileOne(
    `---\non: workflow_dispatch\nsandbox:\n  agent:\n    version: v0.28.14\n---\nHi\n`,
  );
  const steps = parse(lock).jobs.agent.steps as { name?: string }[];
  assert(!steps.some((s) => s.name === "Use pinned firewall images"));
});
