/**
 * The workflow's own `pre-agent-steps` run in the agent job where gh-aw puts them: after the restore steps and
 * before the MCP setup (`Download container images`), apart from `steps:`, followed by an empty line.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

Deno.test("the workflow's pre-agent steps run after the restores and before the container images are pulled", async () => {
  const md = "---\non: workflow_dispatch\nsteps:\n  - name: Prep\n    run: echo prep\n" +
    "pre-agent-steps:\n  - name: Warm up\n    run: |\n      echo one\n      echo two\n---\nGo.\n";
  const { lock } = await compileOne(md);
  const names: string[] = parse(lock).jobs.agent.steps.map((s: { name?: string }) => s.name);
  const at = names.indexOf("Warm up");
  assert.equal(names[at - 1], "Restore inline skills from activation artifact");
  assert.equal(names[at + 1], "Download container images");
  assert.ok(names.indexOf("Prep") < names.indexOf("Restore inline skills from activation artifact"));
  // As the section's last value it loses its final line break in gh-aw's round trip; an empty line follows.
  assert.match(
    lock,
    /- name: Warm up\n {8}run: \|-\n {10}echo one\n {10}echo two\n\n {6}- name: Download container images/,
  );
});

Deno.test("an import's pre-steps run right after the setup, before the repository is checked out", async () => {
  const md = "---\non: workflow_dispatch\nimports:\n  - shared/guard.md\n---\nGo.\n";
  const { lock } = await compileOne(md, {
    ".github/workflows/shared/guard.md":
      "---\npre-steps:\n  - name: Install guard\n    run: echo guard\n---\n",
  });
  const names: string[] = parse(lock).jobs.agent.steps.map((s: { name?: string }) => s.name);
  assert.equal(names[names.indexOf("Install guard") + 1], "Checkout repository");
  assert.ok(names.indexOf("Set runtime paths") < names.indexOf("Install guard"));
  assert.match(lock, /- name: Install guard\n {8}run: echo guard\n\n {6}- name: Checkout repository/);
});
