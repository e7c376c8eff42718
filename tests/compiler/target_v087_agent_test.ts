/**
 * Issue 29: the v0.87.4 target's agent job and lock header — Copilot installed by the compiler's version,
 * errors detected by a github-script step, rootless AWF, the activation artifact read early, no job-level
 * timeout, the agent-output fallback upload, the MCP layer's images and the manifest's `mcp_servers` and
 * `has_pull_request` — while v0.76.1 keeps its own shape.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { parse } from "yaml";
import { compileOne } from "./helpers.ts";
import { engineFor } from "../../compiler/plan/engines/registry.ts";
import { V0_76_1 } from "../../compiler/targets/v0_76_1.ts";
import { V0_87_4 } from "../../compiler/targets/v0_87_4.ts";

const MD = "---\non:\n  pull_request:\n  workflow_dispatch:\nengine: copilot\ntimeout-minutes: 12\n" +
  "tools:\n  github:\n    toolsets: [repos, issues]\n  playwright:\n" +
  "safe-outputs:\n  add-comment:\n---\nDo.\n";
type Step = Record<string, unknown>;
type Job = Record<string, unknown> & { steps: Step[] };
const jobsOf = (lock: string) => (parse(lock) as { jobs: Record<string, Job> }).jobs;
const step = (job: Job, name: string) => job.steps.find((s) => s.name === name);
const names = (job: Job) => job.steps.map((s) => s.name as string);
const compileFor = (ghAwVersion: string) => compileOne(MD, {}, { ghAwVersion, actionMode: "release" });
const manifestOf = (lock: string) =>
  JSON.parse(/^# gh-aw-manifest: (.*)$/m.exec(lock)![1]) as Record<string, unknown> & {
    mcp_servers?: { name: string; tools: string[] }[];
  };

Deno.test("v0.87.4 agent: install by compiled version, rootless AWF, scripted error detection", async () => {
  const agent = jobsOf((await compileFor("v0.87.4")).lock).agent;
  const install = step(agent, "Install GitHub Copilot CLI")!;
  assertEquals(install.run, 'bash "${RUNNER_TEMP}/gh-aw/actions/install_copilot_cli.sh"');
  assertEquals(install.env, { GH_HOST: "github.com", GH_AW_COMPILED_VERSION: "v0.87.4" });
  assertEquals(
    step(agent, "Install AWF binary")!.run,
    'bash "${RUNNER_TEMP}/gh-aw/actions/install_awf_binary.sh" v0.28.4 --rootless',
  );
  assertEquals(
    step(agent, "Print firewall logs")!.run,
    'bash "${RUNNER_TEMP}/gh-aw/actions/print_firewall_logs.sh" --rootless',
  );
  const detect = step(agent, "Detect agent errors")!;
  assert(String(detect.uses).startsWith("actions/github-script@"));
  assertEquals(detect.env, {
    GH_AW_AGENTIC_EXECUTION_OUTCOME: "${{ steps.agentic_execution.outcome }}",
    GH_AW_ENGINE_STEP_TIMEOUT_MINUTES: 12,
  });
  assertEquals(Object.keys(detect), ["name", "if", "id", "continue-on-error", "env", "uses", "with"]);
  assertEquals(agent["timeout-minutes"], undefined);
  // The activation artifact right after the workspace setup, before the git credentials.
  const n = names(agent);
  assertEquals(
    n.indexOf("Download activation artifact"),
    n.indexOf("Configure gh CLI for GitHub Enterprise") + 1,
  );
  // The fallback copy of the agent output right before the agent artifact.
  assertEquals(n.indexOf("Upload agent output fallback artifact"), n.indexOf("Upload agent artifacts") - 1);
  assertEquals(
    (step(agent, "Parse agent logs for step summary")!.env as Record<string, string>).GH_AW_SAFE_OUTPUTS,
    "${{ steps.set-runtime-paths.outputs.GH_AW_SAFE_OUTPUTS }}",
  );
});

Deno.test("v0.76.1 agent keeps its own install, firewall summary and job timeout", async () => {
  const agent = jobsOf((await compileFor("v0.76.1")).lock).agent;
  assertEquals(
    step(agent, "Install GitHub Copilot CLI")!.run,
    'bash "${RUNNER_TEMP}/gh-aw/actions/install_copilot_cli.sh" 1.0.55',
  );
  assertEquals(
    step(agent, "Detect agent errors")!.run,
    'node "${RUNNER_TEMP}/gh-aw/actions/detect_agent_errors.cjs"',
  );
  assertEquals(agent["timeout-minutes"], 27);
  assert(!names(agent).includes("Upload agent output fallback artifact"));
  const n = names(agent);
  assert(n.indexOf("Download activation artifact") > n.indexOf("Install AWF binary"));
});

Deno.test("v0.87.4 header: MCP layer images, manifest mcp_servers and has_pull_request", async () => {
  const { lock } = await compileFor("v0.87.4");
  assert(lock.includes("#   - ghcr.io/github/gh-aw-mcpg:v0.4.10\n"));
  assert(lock.includes("#   - ghcr.io/github/github-mcp-server:v1.10.0\n"));
  assert(lock.includes("#   - ghcr.io/github/gh-aw-node\n"));
  assert(!lock.includes("node:lts-alpine"));
  const manifest = manifestOf(lock);
  assertEquals(manifest.has_pull_request, true);
  const servers = manifest.mcp_servers!;
  assertEquals(servers.map((s) => s.name), ["github", "playwright", "safeoutputs"]);
  const github = servers[0].tools;
  assert(github.includes("get_file_contents") && github.includes("issue_read"));
  assert(!github.includes("get_me") && !github.includes("pull_request_read"));
  assertEquals(servers[2].tools, ["add_comment", "missing_data", "missing_tool", "noop"]);
  assertEquals(Object.keys(manifest).slice(-2), ["has_pull_request", "mcp_servers"]);
});

Deno.test("v0.76.1 header has no mcp_servers and the v0.3.22 gateway", async () => {
  const { lock } = await compileFor("v0.76.1");
  const manifest = manifestOf(lock);
  assertEquals(manifest.mcp_servers, undefined);
  assertEquals(manifest.has_pull_request, undefined);
  assert(lock.includes("#   - ghcr.io/github/gh-aw-mcpg:v0.3.22\n"));
});

Deno.test("sandbox.mcp container and version select the gateway image", async () => {
  const md = MD.replace(
    "engine: copilot\n",
    'engine: copilot\nsandbox:\n  mcp:\n    container: "ghcr.io/github/gh-aw-mcpg"\n    version: "latest"\n',
  );
  const { lock } = await compileOne(md, {}, { ghAwVersion: "v0.87.4", actionMode: "release" });
  assert(lock.includes("#   - ghcr.io/github/gh-aw-mcpg:latest\n"));
  assert(!lock.includes("gh-aw-mcpg:v0.4.10"));
});

Deno.test("engines per target are derived once and keep their release's steps", () => {
  assertEquals(engineFor("copilot", V0_87_4), engineFor("copilot", V0_87_4));
  assertEquals(engineFor("copilot", V0_87_4).agentInstall.env?.GH_AW_COMPILED_VERSION, "v0.87.4");
  assertEquals(engineFor("copilot", V0_76_1).agentInstall.env?.GH_AW_COMPILED_VERSION, undefined);
  assertEquals(engineFor("claude", V0_87_4).agentInstall, engineFor("claude", V0_76_1).agentInstall);
});

const SO_MD = "---\non:\n  workflow_dispatch:\nengine: copilot\ntools:\n  agentic-workflows:\n" +
  "safe-outputs:\n  github-token: ${{ secrets.CROSS_REPO_PAT }}\n  add-comment:\n    pull-requests: false\n" +
  "  create-discussion:\n  update-discussion:\n  close-discussion:\n---\nDo.\n";

Deno.test("v0.87.4: own safe-outputs token in the conclusion, add-comment without PRs, tool order", async () => {
  const { lock } = await compileOne(SO_MD, {}, { ghAwVersion: "v0.87.4", actionMode: "release" });
  const jobs = jobsOf(lock);
  for (const name of ["Process no-op messages", "Handle agent failure", "Report failed jobs"]) {
    assertEquals(
      (step(jobs.conclusion, name)!.with as Record<string, string>)["github-token"],
      "${{ secrets.CROSS_REPO_PAT }}",
    );
  }
  assertEquals((jobs.safe_outputs.permissions as Record<string, string>)["pull-requests"], undefined);
  const handler = (step(jobs.safe_outputs, "Process Safe Outputs")!.env as Record<string, string>)
    .GH_AW_SAFE_OUTPUTS_HANDLER_CONFIG;
  assertEquals(JSON.parse(handler).add_comment.pull_requests, undefined);
  assert(lock.includes("Tools: add_comment, create_discussion, update_discussion, close_discussion, "));
  // The agentic-workflows server is an MCP server only: no CLI mount, no guide.
  assert(!lock.includes("agentic_workflows_guide.md"));
  assert(!lock.includes("`agenticworkflows` — run"));
});

Deno.test("v0.76.1 keeps the default token in the conclusion and its tool order", async () => {
  const { lock } = await compileOne(SO_MD, {}, { ghAwVersion: "v0.76.1", actionMode: "release" });
  const jobs = jobsOf(lock);
  assertEquals(
    (step(jobs.conclusion, "Handle agent failure")!.with as Record<string, string>)["github-token"],
    "${{ secrets.GH_AW_GITHUB_TOKEN || secrets.GITHUB_TOKEN }}",
  );
  assert(lock.includes("Tools: add_comment, close_discussion, create_discussion, update_discussion, "));
  assert(lock.includes("agentic_workflows_guide.md"));
});

Deno.test("v0.87.4 Copilot run: harness preamble, copied binary and its env", async () => {
  const exec = step(jobsOf((await compileFor("v0.87.4")).lock).agent, "Execute GitHub Copilot CLI")!;
  const env = exec.env as Record<string, unknown>;
  assertEquals(env.GH_AW_MCP_CONFIG, undefined);
  assertEquals(env.XDG_CONFIG_HOME, undefined);
  assertEquals(env.GH_AW_LLM_PROVIDER, "github");
  assertEquals(env.GH_AW_TIMEOUT_MINUTES, 12);
  assertEquals(env.GH_AW_MAX_AI_CREDITS, "${{ vars.GH_AW_DEFAULT_MAX_AI_CREDITS || '1000' }}");
  assert(String(env.TRACEPARENT).includes("GITHUB_AW_OTEL_PARENT_SPAN_ID"));
  const run = String(exec.run);
  assert(
    run.includes('printf \'%s\' \'{"builtInAgents":{"rubberDuck":false}}\' > "$HOME/.copilot/settings.json"'),
  );
  assert(
    run.includes('"${RUNNER_TEMP}/gh-aw/actions/copilot_harness.cjs" "${RUNNER_TEMP}/gh-aw/bin/copilot"'),
  );
  assert(!run.includes("/usr/local/bin/copilot"));
  // With the workflow's own credit limit the env names none (it is written into the firewall config).
  const own = await compileOne(
    MD.replace("timeout-minutes: 12\n", "timeout-minutes: 12\nmax-ai-credits: 1500\n"),
    {},
    {
      ghAwVersion: "v0.87.4",
      actionMode: "release",
    },
  );
  const ownEnv = step(jobsOf(own.lock).agent, "Execute GitHub Copilot CLI")!.env as Record<string, unknown>;
  assertEquals(ownEnv.GH_AW_MAX_AI_CREDITS, undefined);
});

Deno.test("v0.76.1 Copilot run keeps /usr/local/bin/copilot and its env", async () => {
  const exec = step(jobsOf((await compileFor("v0.76.1")).lock).agent, "Execute GitHub Copilot CLI")!;
  assertEquals((exec.env as Record<string, unknown>).XDG_CONFIG_HOME, "/home/runner");
  assert(String(exec.run).includes("copilot_harness.cjs /usr/local/bin/copilot"));
  assert(!String(exec.run).includes("rubberDuck"));
});
