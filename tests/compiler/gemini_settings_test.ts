/** Gemini and Antigravity: their settings file written before the CLI runs, their error reports moved into the artifact. */
import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; run?: string; env?: Record<string, string>; if?: string };

const workflow = (engine: string, tools: string) =>
  `---\non: workflow_dispatch\nengine: ${engine}\ntools:\n${tools}safe-outputs:\n  create-issue: {}\n---\nFile one issue.\n`;

async function agentSteps(engine: string, tools: string): Promise<{ steps: Step[]; lock: string }> {
  const { lock } = await compileOne(workflow(engine, tools));
  return { steps: parse(lock).jobs.agent.steps as Step[], lock };
}

Deno.test("gemini's agent job writes its settings (tools.core from the workflow's tools) right before it runs", async () => {
  const { steps, lock } = await agentSteps("gemini", '  edit:\n  bash:\n    - "*"\n  web-fetch:\n');
  const names = steps.map((s) => s.name);
  const write = names.indexOf("Write Gemini Config");
  assert(write >= 0, "the settings step is emitted");
  assertEquals(names[write + 1], "Execute Gemini CLI");
  const step = steps[write];
  assertIncludes(
    step.run!,
    'mkdir -p "$GITHUB_WORKSPACE/.gemini"\nSETTINGS="$GITHUB_WORKSPACE/.gemini/settings.json"',
  );
  assertEquals(
    step.env!.GH_AW_GEMINI_BASE_CONFIG,
    '{"context":{"includeDirectories":["/tmp/"]},"tools":{"core":["glob","grep_search","list_directory","read_file","read_many_files","replace","run_shell_command","web_fetch","write_file"]}}',
  );
  assertIncludes(lock, "      - name: Write Gemini Config\n        run: |\n          mkdir -p");
  assertIncludes(lock, '        env:\n          GH_AW_GEMINI_BASE_CONFIG: \'{"context"');
});

Deno.test("a restricted bash list becomes one run_shell_command(cmd) per command, the mounted CLIs included", async () => {
  const { steps } = await agentSteps("gemini", '  bash:\n    - "jq *"\n    - "cat"\n');
  const config = JSON.parse(
    steps.find((s) => s.name === "Write Gemini Config")!.env!.GH_AW_GEMINI_BASE_CONFIG,
  );
  const core: string[] = config.tools.core;
  for (
    const entry of ["run_shell_command(cat)", "run_shell_command(jq)", "run_shell_command(safeoutputs:*)"]
  ) {
    assert(core.includes(entry), entry);
  }
  assert(!core.includes("run_shell_command"), "no unrestricted shell");
  assertEquals(core, [...core].sort());
});

Deno.test("gemini and antigravity move their error reports under /tmp/gh-aw/ before the gateway stops", async () => {
  for (const [engine, cli] of [["gemini", "Gemini"], ["antigravity", "Antigravity"]]) {
    const { steps } = await agentSteps(engine, "  edit:\n");
    const names = steps.map((s) => s.name);
    const move = names.indexOf(`Move ${cli} error files to artifact directory`);
    assert(move >= 0, `${engine} moves its error files`);
    assertEquals(names[move + 1], "Stop MCP Gateway");
    assertEquals(steps[move].if, "always()");
    assertEquals(steps[move].run, `mv /tmp/${engine}-client-error-*.json /tmp/gh-aw/ 2>/dev/null || true`);
  }
  const { steps } = await agentSteps("claude", "  edit:\n");
  assert(!steps.some((s) => s.name?.includes("error files")), "other engines have no such step");
});

Deno.test("antigravity writes its settings as a literal block, in the agent job and in threat detection", async () => {
  const { lock } = await compileOne(workflow("antigravity", "  edit:\n"));
  const doc = parse(lock);
  const agent = (doc.jobs.agent.steps as Step[]).find((s) => s.name === "Write Antigravity Config")!;
  assertEquals(
    JSON.parse(agent.env!.GH_AW_ANTIGRAVITY_BASE_CONFIG).tools.core,
    [
      "glob",
      "grep_search",
      "list_directory",
      "read_file",
      "read_many_files",
      "replace",
      "run_shell_command",
      "write_file",
    ],
  );
  assertEquals(lock.split("      - name: Write Antigravity Config\n").length, 3, "agent and detection");
  assert(!lock.includes('run: "mkdir -p \\"$GITHUB_WORKSPACE/.antigravity'), "never double-quoted");
});
