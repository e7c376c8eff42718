import { assertEquals } from "../../test_assert.ts";
import { configEnv, repoMemoryConfig } from "./agent_steps.ts";
import { applyWorkflowTargets, dynamicTools, readWorkflowTargets, safeJobsConfig } from "./dynamic_tools.ts";
import { planSafeOutputs } from "./plan.ts";
import { litPadded, writeYaml } from "../../yaml/writer.ts";
import { splitSafeOutputs } from "../../source/safe_outputs_section.ts";

Deno.test("secrets and github context in the config come in through the step env", () => {
  const { env, text } = configEnv(
    '{"a":{"branch":"assets/${{ github.workflow }}","github-token":"${{ secrets.PAT }}","repo":"${{ vars.R }}"}}',
  );
  assertEquals(env, { GITHUB_WORKFLOW: "${{ github.workflow }}", PAT: "${{ secrets.PAT }}" });
  assertEquals(
    text,
    '{"a":{"branch":"assets/${GITHUB_WORKFLOW}","github-token":"${PAT}","repo":"${{ vars.R }}"}}',
  );
});

Deno.test("repo memory becomes one push_repo_memory entry per memory with the default limits", () => {
  assertEquals(repoMemoryConfig(undefined), undefined);
  assertEquals(repoMemoryConfig(null), {
    memories: [{
      dir: "/tmp/gh-aw/repo-memory/default",
      id: "default",
      max_file_count: 100,
      max_file_size: 102400,
      max_patch_size: 10240,
    }],
  });
  const two = repoMemoryConfig([{ id: "a", "max-patch-size": 51200 }, { id: "b" }]) as {
    memories: unknown[];
  };
  assertEquals(two.memories.length, 2);
});

Deno.test("custom jobs keep their name in the config; an unset input default is null, an empty one omitted", () => {
  const so = planSafeOutputs(
    splitSafeOutputs(
      {
        jobs: {
          "send-message": {
            description: "Send",
            output: "ok",
            inputs: { text: { type: "string", required: true }, tag: { default: "", type: "string" } },
          },
        },
      },
    ),
    "wf",
    "wf.md",
    [],
  );
  assertEquals(safeJobsConfig(so), {
    "send-message": {
      description: "Send",
      inputs: {
        tag: { required: false, type: "string" },
        text: { default: null, required: true, type: "string" },
      },
      output: "ok",
    },
  });
});

Deno.test("a padded literal keeps gh-aw's indentation-only trailing line", () => {
  const out = writeYaml({ run: litPadded("echo hi\n") }).join("\n");
  assertEquals(out, "run: |\n  echo hi\n  ");
});

Deno.test("a dispatchable workflow becomes a tool whose schema is the inputs of its lock file", async () => {
  const so = planSafeOutputs(
    splitSafeOutputs({ "dispatch-workflow": { workflows: ["worker", "absent"] } }),
    "wf",
    "wf.md",
    [],
  );
  const files: Record<string, string> = {
    "w/worker.lock.yml":
      "on:\n  workflow_dispatch:\n    inputs:\n      q:\n        description: Question\n        required: true\n        type: string\n      n:\n        type: number\n",
  };
  const targets = await readWorkflowTargets(so, "w", (p) => Promise.resolve(files[p]));
  assertEquals(targets.map((t) => [t.name, t.extension]), [["worker", ".lock.yml"]]);
  const tools = dynamicTools(so, targets);
  assertEquals(tools, [{
    _workflow_name: "worker",
    description:
      "Dispatch the 'worker' workflow with workflow_dispatch trigger. This workflow must support workflow_dispatch and be in .github/workflows/ directory in the same repository.",
    inputSchema: {
      additionalProperties: false,
      properties: {
        n: { description: "Input parameter 'n' for workflow worker", type: "number" },
        q: { description: "Question", type: "string" },
      },
      required: ["q"],
      type: "object",
    },
    name: "worker",
  }]);
});

Deno.test("noop alone configures safe outputs yet keeps the automatic create-issue", () => {
  const so = planSafeOutputs(splitSafeOutputs({ noop: null }), "wf", "wf.md", []);
  assertEquals(so.configured, true);
  assertEquals(Object.keys(so.handlerConfig), [
    "create_issue",
    "create_report_incomplete_issue",
    "missing_data",
    "missing_tool",
    "noop",
    "report_incomplete",
  ]);
});

Deno.test("handler defaults: hide-comment allows five, older discussions expire after a week, footers are words", () => {
  const so = planSafeOutputs(
    splitSafeOutputs(
      {
        "hide-comment": null,
        "create-discussion": { "close-older-discussions": true },
        "submit-pull-request-review": { footer: true },
        "upload-artifact": { defaults: { "if-no-files": "ignore" } },
        "push-to-pull-request-branch": { "protected-files": { exclude: [".changeset/"] } },
      },
    ),
    "wf",
    "wf.md",
    [],
  );
  const h = so.handlerConfig;
  assertEquals(h.hide_comment.max, 5);
  assertEquals(h.create_discussion.expires, 168);
  assertEquals(h.submit_pull_request_review.footer, "always");
  assertEquals(h.upload_artifact["default-if-no-files"], "ignore");
  assertEquals(h.upload_artifact.defaults, undefined);
  assertEquals(h.push_to_pull_request_branch.protected_dot_folder_excludes, [".changeset/"]);
  const noExpiry = planSafeOutputs(
    splitSafeOutputs(
      { "create-discussion": { "close-older-discussions": true, expires: false } },
    ),
    "wf",
    "wf.md",
    [],
  );
  assertEquals(noExpiry.handlerConfig.create_discussion.expires, undefined);
});

Deno.test("dispatch targets add their files and caller-context support to the handler config", () => {
  const so = planSafeOutputs(
    splitSafeOutputs({ "dispatch-workflow": { workflows: ["a", "b"] } }),
    "wf",
    "wf.md",
    [],
  );
  applyWorkflowTargets(so, [
    { kind: "dispatch", name: "a", extension: ".lock.yml", inputs: { aw_context: { type: "string" } } },
    { kind: "dispatch", name: "b", extension: ".yml", inputs: {} },
  ]);
  assertEquals(so.handlerConfig.dispatch_workflow, {
    aw_context_workflows: ["a"],
    max: 1,
    workflow_files: { a: ".lock.yml", b: ".yml" },
    workflows: ["a", "b"],
  });
});

Deno.test("github context without a runner variable stays an expression in the config", () => {
  const { env, text } = configEnv('{"a":"${{ github.event.issue.number }}","b":"${{ github.ref_name }}"}');
  assertEquals(env, { GITHUB_REF_NAME: "${{ github.ref_name }}" });
  assertEquals(text, '{"a":"${{ github.event.issue.number }}","b":"${GITHUB_REF_NAME}"}');
});
