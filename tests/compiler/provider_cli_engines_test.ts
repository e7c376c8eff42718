/** Crush, OpenCode and Pi: the tools they honour, their config step and the hosts they reach. */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

/** The text of the top-level job `name` of a lock. */
function job(lock: string, name: string): string {
  const start = lock.indexOf(`\n  ${name}:\n`);
  assert(start >= 0, `job ${name} exists`);
  const next = /\n {2}[a-z_][a-z0-9_-]*:\n/.exec(lock.slice(start + 1));
  return lock.slice(start, next ? start + 1 + next.index : undefined);
}

const workflow = (engine: string, model: string) =>
  `---\non: workflow_dispatch\nengine:\n  id: ${engine}\n  model: ${model}\n` +
  "tools:\n  cache-memory: true\n  github:\n    toolsets: [repos]\n  web-fetch:\n" +
  "safe-outputs:\n  add-comment:\n---\nDo it.\n";

Deno.test("crush and opencode ignore tools: no cache-memory, no web-fetch, the default GitHub toolsets", async () => {
  for (const engine of ["crush", "opencode"]) {
    const { lock } = await compileOne(workflow(engine, "copilot/gpt-5"));
    assert(!lock.includes("cache-memory"), `${engine}: no cache-memory`);
    assert(!lock.includes("update_cache_memory"), `${engine}: no cache-memory job`);
    assert(!lock.includes("web-fetch"), `${engine}: no web-fetch server`);
    assert(
      lock.includes('"GITHUB_TOOLSETS": "context,repos,issues,pull_requests"'),
      `${engine}: default toolsets`,
    );
  }
  // An engine with a tool allowlist keeps them.
  const { lock } = await compileOne(workflow("pi", "copilot/gpt-5"));
  assert(lock.includes("update_cache_memory"));
});

Deno.test("crush and opencode write their permissive config before running, in the agent job too", async () => {
  for (
    const [engine, name, file] of [["crush", "Crush", ".crush.json"], [
      "opencode",
      "OpenCode",
      "opencode.jsonc",
    ]]
  ) {
    const { lock } = await compileOne(workflow(engine, "copilot/gpt-5"));
    for (const j of ["agent", "detection"]) {
      const text = job(lock, j);
      const at = text.indexOf(`- name: Write ${name} Config\n`);
      assert(at >= 0, `${engine}: ${j} writes its config`);
      assert(at < text.indexOf(`- name: Execute ${name} CLI\n`), `${engine}: ${j} config before the run`);
      assert(text.includes(`CONFIG="$GITHUB_WORKSPACE/${file}"`), `${engine}: ${j} config file`);
    }
    const agent = job(lock, "agent");
    const step = agent.slice(agent.indexOf(`- name: Write ${name} Config\n`));
    assertEquals(step.split("\n")[1], "        run: |");
  }
});

/** The domains of the agent's AWF config in a lock. */
function agentAllowDomains(lock: string): string[] {
  const m = /"network":\{"allowDomains":\[([^\]]*)\]/.exec(job(lock, "agent"));
  assert(m, "agent AWF config");
  return JSON.parse(`[${m[1]}]`);
}

Deno.test("provider engines reach their provider's API host and their CLI's own hosts", async () => {
  const cases: [string, string, string[]][] = [
    ["crush", "anthropic/claude-sonnet-4", ["api.anthropic.com", "charm.land", "registry.npmjs.org"]],
    ["opencode", "copilot/gpt-5", ["api.githubcopilot.com", "registry.npmjs.org"]],
    ["pi", "copilot/gpt-5", ["api.githubcopilot.com", "api.pi.ai"]],
    ["pi", "openai/gpt-5", ["api.openai.com", "api.pi.ai"]],
  ];
  for (const [engine, model, hosts] of cases) {
    const { lock } = await compileOne(workflow(engine, model));
    const domains = agentAllowDomains(lock);
    for (const h of hosts) assert(domains.includes(h), `${engine} ${model}: ${h}`);
    const allowed = /GH_AW_ALLOWED_DOMAINS: "([^"]*)"/.exec(job(lock, "agent"))?.[1] ?? "";
    for (const h of hosts) {
      assert(allowed.split(",").includes(h), `${engine} ${model}: ${h} in the sanitizer`);
    }
    // They have no fixed API host for the failure report: gh-aw writes no entry.
    assert(!job(lock, "conclusion").includes("GH_AW_ENGINE_API_HOSTS"), `${engine}: no API hosts entry`);
  }
  const { lock } = await compileOne(
    workflow("crush", "anthropic/claude-sonnet-4").replace("crush", "claude"),
  );
  assert(job(lock, "conclusion").includes('GH_AW_ENGINE_API_HOSTS: "api.anthropic.com"'));
});
