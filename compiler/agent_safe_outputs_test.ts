import { assertEquals } from "./test_assert.ts";
import { configEnv, repoMemoryConfig } from "./agent_safe_outputs.ts";
import { safeJobsConfig } from "./safe_output_dynamic_tools.ts";
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
