/** The activation's secret validation, which gh-aw leaves out when no engine secret is read. */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const SAFE = "safe-outputs:\n  create-issue:\n";

Deno.test("a custom engine command validates no secret and reports no CLI version to safe_outputs", async () => {
  const md = "---\non: workflow_dispatch\npermissions:\n  contents: read\nengine:\n  id: copilot\n" +
    "  command: bash -lc 'echo hi'\n" + SAFE + "---\n# Task\n";
  const { lock } = await compileOne(md);
  assertEquals(lock.includes("validate_multi_secret.sh"), false);
  assertEquals(lock.includes("secret_verification_result"), false);
  assertEquals(lock.includes("GH_AW_SECRET_VERIFICATION_RESULT"), false);
  assertEquals(lock.includes("      GH_AW_ENGINE_VERSION:"), false);
});

Deno.test("a BYOK Copilot validates no secret and reviews with the provider's env, without the Copilot token", async () => {
  const md = "---\non: workflow_dispatch\npermissions:\n  contents: read\nengine:\n  id: copilot\n  env:\n" +
    '    COPILOT_PROVIDER_BASE_URL: "http://host.docker.internal:11434/v1"\n' +
    '    COPILOT_PROVIDER_API_KEY: "${{ env.OLLAMA_API_KEY }}"\n    COPILOT_MODEL: "qwen2.5:0.5b"\n' + SAFE +
    "---\n# Task\n";
  const { lock } = await compileOne(md);
  assertEquals(lock.includes("validate_multi_secret.sh"), false);
  assertEquals(lock.includes("COPILOT_GITHUB_TOKEN"), false);
  const detection = lock.slice(lock.indexOf("\n  detection:\n"));
  assertEquals(
    detection.includes(
      "          COPILOT_DUMMY_BYOK: dummy-byok-key-for-offline-mode\n          COPILOT_MODEL: qwen2.5:0.5b\n" +
        "          COPILOT_PROVIDER_API_KEY: ${{ env.OLLAMA_API_KEY }}\n" +
        "          COPILOT_PROVIDER_BASE_URL: http://host.docker.internal:11434/v1\n          GH_AW_PHASE: detection\n",
    ),
    true,
  );
});

Deno.test("a plain Copilot engine still validates its token", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\npermissions:\n  contents: read\n---\n# Task\n",
  );
  assertEquals(lock.includes("      - name: Validate COPILOT_GITHUB_TOKEN secret\n"), true);
});

Deno.test("the engine command heredoc ends with a bare empty line, as gh-aw writes it", async () => {
  const md = "---\non: workflow_dispatch\npermissions:\n  contents: read\nengine:\n  id: copilot\n" +
    "  command: bash -lc 'echo hi'\n---\n# Task\n";
  const { lock } = await compileOne(md);
  assertEquals(lock.includes(`bash -lc 'echo hi' "$@"\n\n          GH_AW_ENGINE_COMMAND_EOF\n`), true);
});
