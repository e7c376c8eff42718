import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = Record<string, unknown>;
const agentSteps = (lock: string) => parse(lock).jobs.agent.steps as Step[];
const names = (lock: string) => agentSteps(lock).map((s) => s.name as string);
const step = (lock: string, name: string) => agentSteps(lock).find((s) => s.name === name) as Step;

Deno.test("copilot installs with GH_HOST, runs with all tools when bash is unrestricted, then detects errors", async () => {
  const { lock } = await compileOne("---\non: workflow_dispatch\n---\nDo it.\n");
  assertEquals(step(lock, "Install GitHub Copilot CLI").env, { GH_HOST: "github.com" });
  const exec = step(lock, "Execute GitHub Copilot CLI");
  assertIncludes(exec.run as string, "--no-ask-user --allow-all-tools --allow-all-paths --add-dir");
  const env = exec.env as Record<string, unknown>;
  assertEquals(Object.keys(env), [...Object.keys(env)].sort());
  assertEquals(env.COPILOT_GITHUB_TOKEN, "${{ secrets.COPILOT_GITHUB_TOKEN }}");
  const n = names(lock);
  assertEquals(n[n.indexOf("Execute GitHub Copilot CLI") + 1], "Detect agent errors");
  assert(n.includes("Copy Copilot session state files to logs"), "session state copied");
  assertEquals(step(lock, "Parse agent logs for step summary").env, {
    GH_AW_AGENT_OUTPUT: "/tmp/gh-aw/sandbox/agent/logs/",
  });
});

Deno.test("a copilot bash allowlist becomes sorted --allow-tool arguments listed in a comment", async () => {
  const { lock } = await compileOne("---\non: workflow_dispatch\ntools:\n  bash: [jq, git]\n---\nDo it.\n");
  assertIncludes(lock, "        # Copilot CLI tool arguments (sorted):\n        # --allow-tool github\n");
  assertIncludes(lock, "        # --allow-tool shell(git:*)\n");
  const run = step(lock, "Execute GitHub Copilot CLI").run as string;
  assertIncludes(run, `--allow-tool '\\''shell(jq)'\\'' --allow-tool '\\''shell(ls)'\\''`);
  assert(!run.includes("--allow-all-tools"), "restricted");
});

Deno.test("claude sets up Node.js, installs after AWF and lists its allowed tools", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine:\n  id: claude\n  max-turns: 7\ntools:\n  timeout: 300\n---\nDo it.\n",
  );
  const n = names(lock);
  const i = n.indexOf("Setup Node.js");
  assertEquals(n.slice(i, i + 3), ["Setup Node.js", "Install AWF binary", "Install Claude Code CLI"]);
  const exec = step(lock, "Execute Claude Code CLI");
  assertIncludes(exec.run as string, "claude --print --no-chrome --max-turns 7 --allowed-tools ");
  assertIncludes(lock, "        # Allowed tools (sorted):\n        # - Bash\n");
  const env = exec.env as Record<string, unknown>;
  assertEquals(env.MCP_TOOL_TIMEOUT, 300000);
  assertEquals(env.GH_AW_MAX_TURNS, 7);
  assert(!("Detect agent errors" in Object.fromEntries(n.map((x) => [x, 1]))), "copilot only");
});

Deno.test("codex runs without a step timeout and hides both API keys from the agent", async () => {
  const { lock } = await compileOne("---\non: workflow_dispatch\nengine: codex\n---\nDo it.\n");
  const exec = step(lock, "Execute Codex CLI");
  assertEquals(exec["timeout-minutes"], undefined);
  assertIncludes(exec.run as string, "--exclude-env CODEX_API_KEY");
  assertIncludes(exec.run as string, "--exclude-env OPENAI_API_KEY");
  assertIncludes(
    exec.run as string,
    `codex exec\${GH_AW_MODEL_AGENT_CODEX:+ --model "$GH_AW_MODEL_AGENT_CODEX"}`,
  );
});

Deno.test("only copilot's agent job exposes the outputs of Detect agent errors", async () => {
  const copilot =
    parse((await compileOne("---\non: workflow_dispatch\n---\nDo it.\n")).lock).jobs.agent.outputs;
  const claude =
    parse((await compileOne("---\non: workflow_dispatch\nengine: claude\n---\nDo it.\n")).lock).jobs
      .agent.outputs;
  assert("agentic_engine_timeout" in copilot, "copilot exposes detect outputs");
  assert(!("agentic_engine_timeout" in claude) && !("mcp_policy_error" in claude), "claude does not");
});
