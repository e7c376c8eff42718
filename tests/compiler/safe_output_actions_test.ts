/** `safe-outputs.actions`: an action the agent may run once, its inputs read from actions-lock.json. */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const SHA = "c96b68fec76a0987cd93957189e9abd0b9a72ff1";
const LOCK = JSON.stringify({
  entries: {
    "acme/add-labels@v1.1.3": {
      repo: "acme/add-labels",
      version: "v1.1.3",
      sha: SHA,
      inputs: {
        github_token: { description: "A GitHub token.", default: "${{ github.token }}" },
        labels: { description: "The labels to add.", required: true },
        number: { description: "The issue number." },
      },
      action_description: "Add labels to an issue.",
    },
  },
});

const MD =
  "---\non: workflow_dispatch\npermissions:\n  contents: read\nsafe-outputs:\n  add-comment:\n  actions:\n" +
  "    add-smoked-label:\n      uses: acme/add-labels@v1.1.3\n      description: Add the 'smoked' label\n" +
  "      env:\n        GITHUB_TOKEN: ${{ github.token }}\n---\n# Task\n";

Deno.test("a custom safe-output action is a once-only tool of its agent-provided inputs", async () => {
  const { lock } = await compileOne(MD, { ".github/aw/actions-lock.json": LOCK });
  const meta = /GH_AW_TOOLS_META_JSON: \|\n([\s\S]*?)\n {10}GH_AW_/.exec(lock)?.[1] ?? "";
  const tools = JSON.parse(meta).dynamic_tools;
  assertEquals(tools, [{
    description: "Add the 'smoked' label (can only be called once)",
    inputSchema: {
      additionalProperties: false,
      properties: {
        labels: { description: "The labels to add.", type: "string" },
        number: { description: "The issue number.", type: "string" },
      },
      required: ["labels"],
      type: "object",
    },
    name: "add_smoked_label",
  }]);
});

Deno.test("the safe_outputs job runs a custom action with the handler's payload", async () => {
  const { lock } = await compileOne(MD, { ".github/aw/actions-lock.json": LOCK });
  assertEquals(
    lock.includes('          GH_AW_SAFE_OUTPUT_ACTIONS: "{\\"add_smoked_label\\":\\"add_smoked_label\\"}"\n'),
    true,
  );
  const out = "steps.process_safe_outputs.outputs.action_add_smoked_label_payload";
  assertEquals(
    lock.includes(
      "      - name: Add the 'smoked' label\n        id: action_add_smoked_label\n" +
        `        if: ${out} != ''\n        uses: acme/add-labels@${SHA} # v1.1.3\n` +
        "        env:\n          GITHUB_TOKEN: ${{ github.token }}\n" +
        `        with:\n          labels: \${{ fromJSON(${out}).labels }}\n          number: \${{ fromJSON(${out}).number }}\n`,
    ),
    true,
  );
});
