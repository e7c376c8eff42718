import { assertEquals } from "./test_assert.ts";
import { configEnv, repoMemoryConfig } from "./agent_safe_outputs.ts";
import { dynamicTools, readWorkflowTargets, safeJobsConfig } from "./safe_output_dynamic_tools.ts";
import type { AgentInput } from "./agent_input.ts";
import { planSafeOutputs } from "./safe_outputs.ts";
import { litPadded, writeYaml } from "./yaml_writer.ts";

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
    {
      jobs: {
        "send-message": {
          description: "Send",
          output: "ok",
          inputs: { text: { type: "string", required: true }, tag: { default: "", type: "string" } },
        },
      },
    },
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
  const so = planSafeOutputs({ "dispatch-workflow": { workflows: ["worker", "absent"] } }, "wf", "wf.md", []);
  const files: Record<string, string> = {
    "w/worker.lock.yml":
      "on:\n  workflow_dispatch:\n    inputs:\n      q:\n        description: Question\n        required: true\n        type: string\n      n:\n        type: number\n",
  };
  const targets = await readWorkflowTargets(so, "w", (p) => Promise.resolve(files[p]));
  assertEquals(targets.map((t) => [t.name, t.extension]), [["worker", ".lock.yml"]]);
  const tools = dynamicTools({ safeOutputs: so, workflowTargets: targets } as unknown as AgentInput);
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
