/**
 * Issue 19 item 3: every safe-output option reaches the handler config under the name gh-aw's runtime
 * reads (actions/setup/js/<type>.cjs, `config.<name>`); a guard written under another name is silently
 * lost. One row per option: the type, the key as the author writes it, and the runtime's name.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";

/** [type, frontmatter key, value (YAML), runtime config key]. */
const ROWS: [string, string, string, string][] = [
  ["push-to-pull-request-branch", "required-title-prefix", '"[bot] "', "title_prefix"],
  ["push-to-pull-request-branch", "title-prefix", '"[bot] "', "title_prefix"],
  ["push-to-pull-request-branch", "required-labels", "[automation]", "required_labels"],
  ["push-to-pull-request-branch", "labels", "[automation]", "labels"],
  ["push-to-pull-request-branch", "if-no-changes", "error", "if_no_changes"],
  ["push-to-pull-request-branch", "commit-title-suffix", '" [skip ci]"', "commit_title_suffix"],
  ["push-to-pull-request-branch", "ignore-missing-branch-failure", "true", "ignore_missing_branch_failure"],
  ["push-to-pull-request-branch", "fallback-as-pull-request", "false", "fallback_as_pull_request"],
  ["push-to-pull-request-branch", "target", '"*"', "target"],
  ["push-to-pull-request-branch", "target-repo", "acme/other", "target-repo"],
  ["push-to-pull-request-branch", "head-repo", "acme-bot/fork", "head-repo"],
  ["create-pull-request", "title-prefix", '"[bot] "', "title_prefix"],
  ["create-pull-request", "labels", "[automation]", "labels"],
  ["create-pull-request", "draft", "false", "draft"],
  ["create-pull-request", "if-no-changes", "error", "if_no_changes"],
  ["create-pull-request", "base-branch", "develop", "base_branch"],
  ["create-issue", "title-prefix", '"[bot] "', "title_prefix"],
  ["create-issue", "labels", "[automation]", "labels"],
  ["create-issue", "assignees", "[octocat]", "assignees"],
  ["create-discussion", "title-prefix", '"[bot] "', "title_prefix"],
  ["create-discussion", "category", "general", "category"],
  ["create-discussion", "fallback-to-issue", "false", "fallback_to_issue"],
  ["close-issue", "required-title-prefix", '"[deps]"', "required_title_prefix"],
  ["close-issue", "required-labels", "[automation]", "required_labels"],
  ["close-pull-request", "required-title-prefix", '"[bot]"', "required_title_prefix"],
  ["close-pull-request", "required-labels", "[automation]", "required_labels"],
  ["add-labels", "allowed", "[bug]", "allowed"],
  ["add-labels", "blocked", '["secret*"]', "blocked"],
  ["add-labels", "required-labels", "[triage]", "required_labels"],
  ["add-labels", "required-title-prefix", '"[bot]"', "required_title_prefix"],
  ["remove-labels", "allowed", "[bug]", "allowed"],
  ["remove-labels", "required-title-prefix", '"[bot]"', "required_title_prefix"],
  ["add-comment", "hide-older-comments", "true", "hide_older_comments"],
  ["add-comment", "target", '"*"', "target"],
];

async function handlerConfig(type: string, option: string, value: string): Promise<Record<string, unknown>> {
  const { lock } = await compileOne(
    `---\non:\n  issues:\n    types: [opened]\nengine: copilot\nsafe-outputs:\n  ${type}:\n    ${option}: ${value}\n---\n# W\nDo.\n`,
  );
  const step = (parse(lock).jobs.safe_outputs.steps as { env?: Record<string, string> }[])
    .find((s) => s.env?.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG)!;
  return JSON.parse(step.env!.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG!)[type.replace(/-/g, "_")];
}

for (const [type, option, value, runtimeKey] of ROWS) {
  Deno.test(`${type}.${option} reaches the handler as ${runtimeKey}`, async () => {
    const config = await handlerConfig(type, option, value);
    assert.deepEqual(config[runtimeKey], parse(value), JSON.stringify(config));
    if (runtimeKey !== option.replace(/-/g, "_") && runtimeKey !== option) {
      assert.equal(config[option.replace(/-/g, "_")], undefined, "not also under a name the runtime ignores");
    }
  });
}

Deno.test("push-to-pull-request-branch's title guard is stated in the agent's tool description", async () => {
  const { lock } = await compileOne(
    '---\non: pull_request\nengine: copilot\nsafe-outputs:\n  push-to-pull-request-branch:\n    required-title-prefix: "[bot] "\n---\n# W\nDo.\n',
  );
  assert.match(lock, /The target pull request title must start with \\+"\[bot\] \\+"/);
});

Deno.test("staged safe outputs are announced in the safe_outputs job's env as well as on its handler step", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nsafe-outputs:\n  staged: true\n  create-issue: {}\n---\nFile one issue.\n",
  );
  assert.equal(parse(lock).jobs.safe_outputs.env.GH_AW_SAFE_OUTPUTS_STAGED, "true");
});

Deno.test("the status comment's completion step reads the agent assignment error count", async () => {
  const { lock } = await compileOne(
    "---\non:\n  issues:\n    types: [opened]\n  status-comment: true\nsafe-outputs:\n  assign-to-agent: {}\n---\nAssign it.\n",
  );
  const step = parse(lock).jobs.conclusion.steps.find((s: { name?: string }) =>
    s.name === "Update reaction comment with completion status"
  );
  assert.equal(
    step.env.GH_AW_ASSIGNMENT_ERROR_COUNT,
    "${{ needs.safe_outputs.outputs.assign_to_agent_assignment_error_count }}",
  );
});

Deno.test("project safe outputs hand the handler the project URL and the project token", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nsafe-outputs:\n  update-project:\n    project: https://github.com/orgs/o/projects/1\n---\nTriage.\n",
  );
  const step = parse(lock).jobs.safe_outputs.steps.find((s: { name?: string }) =>
    s.name === "Process Safe Outputs"
  );
  assert.equal(step.env.GH_AW_PROJECT_URL, "https://github.com/orgs/o/projects/1");
  assert.equal(step.env.GH_AW_PROJECT_GITHUB_TOKEN, "${{ secrets.GH_AW_PROJECT_GITHUB_TOKEN }}");
  assert.equal(step.with["github-token"], "${{ secrets.GH_AW_PROJECT_GITHUB_TOKEN }}");
});

Deno.test("a safe output type's own github-token stays in its handler config entry", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nsafe-outputs:\n  create-issue:\n    github-token: ${{ secrets.PAT }}\n---\nFile.\n",
  );
  const step = parse(lock).jobs.safe_outputs.steps.find((s: { name?: string }) =>
    s.name === "Process Safe Outputs"
  );
  assert.equal(
    JSON.parse(step.env.GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG).create_issue["github-token"],
    "${{ secrets.PAT }}",
  );
});

Deno.test("the handler config escapes <, > and & as Go's encoding/json does", async () => {
  const { lock } = await compileOne(
    '---\non: workflow_dispatch\nsafe-outputs:\n  create-issue:\n    title-prefix: "<a&b> "\n---\nFile.\n',
  );
  assert.match(lock, /GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG: ".*\\\\u003ca\\\\u0026b\\\\u003e /);
});
