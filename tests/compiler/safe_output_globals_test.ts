/**
 * Issue 19 item 10: workflow-wide safe-output settings reach every handler: `footer: false` (top level or
 * under `safe-outputs:`) and `safe-outputs.github-token` (the token the `safe_outputs` job writes with).
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; env?: Record<string, string>; with?: Record<string, string> };

async function safeOutputsJob(frontmatter: string): Promise<Step[]> {
  const { lock } = await compileOne(
    `---\non: issues\nengine: copilot\n${frontmatter}---\n# W\nDo.\n`,
  );
  return parse(lock).jobs.safe_outputs.steps;
}

function handlerConfig(steps: Step[]): Record<string, Record<string, unknown>> {
  return JSON.parse(
    steps.find((s) => s.env?.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG)!.env!.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG,
  );
}

const OUTPUTS = "  create-issue:\n  add-comment:\n  create-pull-request:\n    footer: true\n";

for (
  const [where, frontmatter] of [
    ["top-level", `footer: false\nsafe-outputs:\n${OUTPUTS}`],
    ["safe-outputs", `safe-outputs:\n  footer: false\n${OUTPUTS}`],
  ]
) {
  Deno.test(`${where} footer: false reaches every handler that sets no footer of its own`, async () => {
    const config = handlerConfig(await safeOutputsJob(frontmatter));
    assert.equal(config.create_issue.footer, false);
    assert.equal(config.add_comment.footer, false);
    assert.equal(config.create_pull_request.footer, true, "a type's own setting wins");
  });
}

Deno.test("without footer: false no handler gets a footer setting", async () => {
  const config = handlerConfig(await safeOutputsJob(`safe-outputs:\n  create-issue:\n`));
  assert.equal(config.create_issue.footer, undefined);
});

Deno.test("safe-outputs.github-token is the token the safe_outputs job writes and pushes with", async () => {
  const steps = await safeOutputsJob(
    "safe-outputs:\n  github-token: ${{ secrets.SO_TOKEN }}\n  create-pull-request:\n",
  );
  const process = steps.find((s) => s.name === "Process Safe Outputs")!;
  assert.equal(process.with?.["github-token"], "${{ secrets.SO_TOKEN }}");
  assert.equal(steps.find((s) => s.name === "Checkout repository")!.with?.token, "${{ secrets.SO_TOKEN }}");
  assert.equal(
    steps.find((s) => s.name === "Configure Git credentials")!.env?.GIT_TOKEN,
    "${{ secrets.SO_TOKEN }}",
  );
  const fallback = await safeOutputsJob("safe-outputs:\n  create-issue:\n");
  assert.equal(
    fallback.find((s) => s.name === "Process Safe Outputs")!.with?.["github-token"],
    "${{ secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
  );
});

Deno.test("copilot as an assignee: GH_AW_ASSIGN_COPILOT, then the CI trigger token, then the agent token (gh-aw's order)", async () => {
  for (const type of ["create-issue", "create-pull-request"]) {
    const { lock } = await compileOne(
      `---\non: workflow_dispatch\nsafe-outputs:\n  ${type}:\n    assignees: [copilot]\n  push-to-pull-request-branch:\n---\nHi\n`,
    );
    const env = lock.slice(lock.indexOf("- name: Process Safe Outputs"));
    const at = (key: string) => env.indexOf(`          ${key}:`);
    assert(at("GH_AW_ASSIGN_COPILOT") > 0, `${type}: the copilot flag`);
    assert(at("GH_AW_ASSIGN_COPILOT") < at("GH_AW_CI_TRIGGER_TOKEN"), `${type}: flag before the CI token`);
    assert(
      at("GH_AW_CI_TRIGGER_TOKEN") < at("GH_AW_ASSIGN_TO_AGENT_TOKEN"),
      `${type}: CI token before agent token`,
    );
  }
});
