/** Threat detection re-reads the agent's output with the workflow's own engine: codex runs codex, with its key only. */
import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; id?: string; run?: string; env?: Record<string, string>; if?: string };

const CODEX =
  "---\non: workflow_dispatch\nengine:\n  id: codex\n  model: gpt-5.4\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n";

Deno.test("codex workflows detect threats with codex behind the firewall, through an empty MCP gateway", async () => {
  const { lock } = await compileOne(CODEX);
  const steps = parse(lock).jobs.detection.steps as Step[];
  const names = steps.map((s) => s.name);
  const order = [
    "Setup Node.js",
    "Install Codex CLI",
    "Install AWF binary",
    "Download container images",
    "Start MCP Gateway",
    "Execute Codex CLI",
    "Upload threat detection log",
    "Parse and conclude threat detection",
  ];
  assertEquals(names.filter((n) => order.includes(n!)), order);
  assert(!names.some((n) => n?.includes("Copilot")), "no Copilot CLI, so no Copilot token is needed");
  const install = steps.find((s) => s.name === "Install Codex CLI")!;
  assertEquals(install.run, "npm install --ignore-scripts -g @openai/codex@0.135.0");
  assertIncludes(
    steps.find((s) => s.name === "Download container images")!.run!,
    "ghcr.io/github/gh-aw-mcpg:",
  );
  const gateway = steps.find((s) => s.name === "Start MCP Gateway")!;
  assertIncludes(gateway.run!, '"mcpServers": {\n  },');
  assertIncludes(gateway.run!, 'base_url = "http://172.30.0.30:10000"');
  const exec = steps.find((s) => s.name === "Execute Codex CLI")!;
  assertEquals(exec.id, "detection_agentic_execution");
  assertEquals(exec.if, "always() && steps.detection_guard.outputs.run_detection == 'true'");
  assertIncludes(exec.run!, "codex_harness.cjs codex exec");
  assertIncludes(exec.run!, "--output-schema /tmp/gh-aw/threat-detection/detection_schema.json");
  assertIncludes(
    exec.run!,
    '"allowDomains":["172.30.0.1","api.openai.com","chatgpt.com","host.docker.internal","openai.com"]',
  );
  assertIncludes(exec.run!, "--exclude-env CODEX_API_KEY --exclude-env OPENAI_API_KEY");
  assertEquals(exec.env!.OPENAI_API_KEY, "${{ secrets.CODEX_API_KEY || secrets.OPENAI_API_KEY }}");
  assertEquals(exec.env!.GH_AW_MODEL_DETECTION_CODEX, "gpt-5.4");
  assert(!("COPILOT_GITHUB_TOKEN" in exec.env!));
});

Deno.test("codex detection's heredoc delimiters are stable across compiles and distinct per heredoc", async () => {
  const a = (await compileOne(CODEX)).lock;
  const b = (await compileOne(CODEX)).lock;
  assertEquals(a, b);
  const gateway = (parse(a).jobs.detection.steps as Step[]).find((s) => s.name === "Start MCP Gateway")!.run!;
  const delimiters = new Set(gateway.match(/GH_AW_[A-Z_]+_[0-9a-f]{16}_EOF/g));
  assertEquals(delimiters.size, 3);
});

Deno.test("gemini workflows detect threats with gemini: read-only tool settings, the proxy's gemini target, its own key", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: gemini\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n",
  );
  const steps = parse(lock).jobs.detection.steps as Step[];
  const names = steps.map((s) => s.name);
  const order = ["Install AWF binary", "Install Gemini CLI", "Write Gemini Config", "Execute Gemini CLI"];
  assertEquals(names.filter((n) => order.includes(n!)), order);
  const config = steps.find((s) => s.name === "Write Gemini Config")!;
  assertEquals(JSON.parse(config.env!.GH_AW_GEMINI_BASE_CONFIG).tools.core.includes("write_file"), false);
  const exec = steps.find((s) => s.name === "Execute Gemini CLI")!;
  assertIncludes(exec.run!, '"targets":{"gemini":{"host":"generativelanguage.googleapis.com"}}');
  assertIncludes(exec.run!, "--exclude-env GEMINI_API_KEY");
  assertIncludes(
    exec.run!,
    'gemini --yolo --skip-trust --output-format stream-json --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"',
  );
  assertEquals(exec.env!.GEMINI_API_KEY, "${{ secrets.GEMINI_API_KEY }}");
  assert(!names.some((n) => n?.includes("Copilot")));
});

Deno.test("crush workflows detect threats with crush, credentials chosen by the model's provider prefix", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine:\n  id: crush\n  model: anthropic/claude-sonnet-4-20250514\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n",
  );
  const steps = parse(lock).jobs.detection.steps as Step[];
  const names = steps.map((s) => s.name);
  const order = [
    "Install AWF binary",
    "Install Crush CLI",
    "Verify Crush CLI installation",
    "Write Crush Config",
    "Execute Crush CLI",
  ];
  assertEquals(names.filter((n) => order.includes(n!)), order);
  const exec = steps.find((s) => s.name === "Execute Crush CLI")!;
  assertIncludes(exec.run!, 'crush run --verbose "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"');
  assertIncludes(exec.run!, '"allowDomains":["api.anthropic.com","charm.land","github.com"');
  assertEquals(exec.env!.ANTHROPIC_API_KEY, "${{ secrets.ANTHROPIC_API_KEY }}");
  assertEquals(exec.env!.CRUSH_MODEL, "anthropic/claude-sonnet-4-20250514");
  assert(!("COPILOT_GITHUB_TOKEN" in exec.env!), "an anthropic model needs no Copilot token");
});

Deno.test("every engine reviews with its own CLI, never with a script the runtime does not ship", async () => {
  const expected: Record<string, string> = {
    copilot: "Execute GitHub Copilot CLI",
    claude: "Execute Claude Code CLI",
    codex: "Execute Codex CLI",
    gemini: "Execute Gemini CLI",
    crush: "Execute Crush CLI",
    opencode: "Execute OpenCode CLI",
    pi: "Execute Pi CLI",
    antigravity: "Execute Antigravity CLI",
  };
  for (const [engine, name] of Object.entries(expected)) {
    const { lock } = await compileOne(
      `---\non: workflow_dispatch\nengine: ${engine}\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n`,
    );
    assert(!lock.includes("run_threat_detection.sh"), engine);
    const steps = parse(lock).jobs.detection.steps as Step[];
    assertEquals(steps.find((s) => s.id === "detection_agentic_execution")!.name, name, engine);
  }
  const agy = (await compileOne(
    "---\non: workflow_dispatch\nengine: antigravity\nsafe-outputs:\n  create-issue: {}\n---\nHi\n",
  )).lock;
  const exec = (parse(agy).jobs.detection.steps as Step[]).find((s) => s.name === "Execute Antigravity CLI")!;
  assertIncludes(
    exec.run!,
    'agy --dangerously-skip-permissions --prompt "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"',
  );
  assertEquals(exec.env!.GEMINI_API_KEY, "${{ secrets.ANTIGRAVITY_API_KEY }}");
});

Deno.test("threat-detection with engine: false and no steps of its own has no detection job to run", async () => {
  const off = parse(
    (await compileOne(
      "---\non: workflow_dispatch\nsafe-outputs:\n  create-issue: {}\n  threat-detection:\n    engine: false\n---\nHi\n",
    )).lock,
  ).jobs;
  assert(!("detection" in off));
  assert(!JSON.stringify(off.safe_outputs.needs).includes("detection"));
  const upload = (off.agent.steps as Step[]).find((s) => s.name === "Upload agent artifacts") as
    | { with: { path: string } }
    | undefined;
  assertIncludes(upload!.with.path, "/tmp/gh-aw/aw-*.patch", "patches still travel with the agent artifact");
});

Deno.test("opencode workflows detect threats with opencode and its own config", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine:\n  id: opencode\n  model: copilot/gpt-5\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n",
  );
  const steps = parse(lock).jobs.detection.steps as Step[];
  const config = steps.find((s) => s.name === "Write OpenCode Config")!;
  assertIncludes(config.run!, 'CONFIG="$GITHUB_WORKSPACE/opencode.jsonc"');
  const exec = steps.find((s) => s.name === "Execute OpenCode CLI")!;
  assertIncludes(
    exec.run!,
    'opencode run --print-logs --log-level DEBUG "$(cat /tmp/gh-aw/aw-prompts/prompt.txt)"',
  );
  assertEquals(exec.env!.OPENCODE_MODEL, "copilot/gpt-5");
  assertEquals(exec.env!.GITHUB_COPILOT_BASE_URL, "http://host.docker.internal:10002");
});

Deno.test("pi workflows detect threats with pi through the API proxy's models.json", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine:\n  id: pi\n  model: copilot/gpt-5.4\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n",
  );
  const steps = parse(lock).jobs.detection.steps as Step[];
  assert(steps.some((s) => s.name === "Install Pi CLI"));
  const exec = steps.find((s) => s.name === "Execute Pi CLI")!;
  assertIncludes(exec.run!, "pi --print --mode json --no-session --model aw-gateway/gpt-5.4");
  assertIncludes(exec.run!, "--exclude-env COPILOT_GITHUB_TOKEN");
  assertEquals(exec.env!.GH_AW_PI_MODEL, "copilot/gpt-5.4");
});

Deno.test("a copilot-requests grant reaches the detection job even when the engine is claude", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: claude\npermissions:\n  contents: read\n  copilot-requests: write\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n",
  );
  assertEquals(parse(lock).jobs.detection.permissions, { contents: "read", "copilot-requests": "write" });
});

Deno.test("threat detection spends from the workflow's max-effective-tokens budget", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nmax-effective-tokens: 20000000\nsafe-outputs:\n  create-issue: {}\n---\nFile one issue.\n",
  );
  const steps = parse(lock).jobs.detection.steps as Step[];
  const run = steps.find((s) => s.id === "detection_agentic_execution")!.run!;
  assertIncludes(run, '"maxRuns":500,"maxEffectiveTokens":20000000');
});
