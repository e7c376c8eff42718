/**
 * Issue 29 (see also target_v087_agent_test.ts): the agent job under the v0.87.4 target — the firewall run (rootless, AI-credit limit, topology,
 * image digests), the MCP gateway (bridge network, safe-outputs server as a stdio container, content-derived
 * config delimiter), the lockdown step, the release's validation rules, sandbox runtimes, Playwright, step
 * order and needs — each checked against v0.76.1, which keeps its own form.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { parse } from "yaml";
import { compileOne, memoryRepo } from "./helpers.ts";
import { compile } from "../../compiler/mod.ts";
import { contentDelimiter } from "../../compiler/plan/mcp/gateway_script.ts";

type Step = Record<string, unknown>;
type Job = Record<string, unknown> & { steps: Step[] };
const jobsOf = (lock: string) => (parse(lock) as { jobs: Record<string, Job> }).jobs;
const stepOf = (job: Job, name: string) => job.steps.find((s) => s.name === name);
const names = (job: Job) => job.steps.map((s) => String(s.name));
const V087 = { ghAwVersion: "v0.87.4", actionMode: "release" as const };
const V076 = { ghAwVersion: "v0.76.1", actionMode: "release" as const };

const wf = (front: string, body = "Do the thing.") =>
  `---\non:\n  workflow_dispatch:\n${front}---\n${body}\n`;

const BASIC = wf(`permissions:
  contents: read
  issues: read
tools:
  github:
    toolsets: [repos]
safe-outputs:
  create-issue:
`);

/** The AWF config JSON the engine step writes, with the shell's credit limit read as `credits`. */
function awfConfig(run: string, credits = 0): Record<string, unknown> {
  const line = run.split("\n").find((l) => l.includes("awf-config.schema.json"))!;
  const arg = /printf '%s\\n' (.*) > "/.exec(line)![1];
  const json = arg.startsWith("'")
    ? arg.slice(1, -1)
    : arg.slice(1, -1).replace(/\\(.)/g, "$1").replace("${GH_AW_MAX_AI_CREDITS}", String(credits));
  return JSON.parse(json);
}

const execRun = (lock: string) => String(stepOf(jobsOf(lock).agent, "Execute GitHub Copilot CLI")!.run);

Deno.test("v0.87.4 runs AWF rootless, attached to the gateway, with the repository's AI-credit limit", async () => {
  const { lock } = await compileOne(BASIC, {}, V087);
  const run = execRun(lock);
  assert(!run.includes("sudo -E awf"), "no sudo");
  assert(run.includes('\nawf --config "${RUNNER_TEMP}/gh-aw/awf-config.json"'), run);
  assert(run.includes('${GH_AW_DOCKER_HOST:+--docker-host "$GH_AW_DOCKER_HOST"}'));
  assert(
    run.includes("--exclude-env ACTIONS_ID_TOKEN_REQUEST_TOKEN --exclude-env ACTIONS_ID_TOKEN_REQUEST_URL"),
  );
  assert(run.includes("--mount /tmp/gh-aw:/tmp/gh-aw:rw --log-level info --skip-pull \\\n"));
  assert(run.includes('GH_AW_MAX_AI_CREDITS="${GH_AW_MAX_AI_CREDITS:-1000}"\n'));
  assert(run.includes("-- /bin/bash -c 'set +o histexpand; "));
  assert(run.includes(': "${RUNNER_TOOL_CACHE:?RUNNER_TOOL_CACHE must be set}"'));
  const cfg = awfConfig(run, 1000);
  const network = cfg.network as Record<string, unknown>;
  assertEquals([network.isolation, network.topologyAttach], [true, ["awmg-mcpg"]]);
  const proxy = cfg.apiProxy as Record<string, unknown>;
  assertEquals([proxy.maxAiCredits, proxy.maxCacheMisses, proxy.maxEffectiveTokens], [1000, 5, undefined]);
  assertEquals((proxy.models as Record<string, string[]>).auto, ["copilot/auto", "large"]);
  assertEquals(cfg.logging, {
    proxyLogsDir: "/tmp/gh-aw/sandbox/firewall/logs",
    auditDir: "/tmp/gh-aw/sandbox/firewall/audit",
  });
});

Deno.test("v0.76.1 keeps sudo, the token budget and its model aliases", async () => {
  const { lock } = await compileOne(BASIC, {}, V076);
  const run = execRun(lock);
  assert(run.includes("sudo -E awf --config"));
  assert(!run.includes("GH_AW_MAX_AI_CREDITS") && !run.includes("histexpand"));
  const cfg = awfConfig(run);
  assertEquals((cfg.apiProxy as Record<string, unknown>).maxEffectiveTokens, 25000000);
  assertEquals((cfg.network as Record<string, unknown>).topologyAttach, undefined);
  assertEquals(((cfg.apiProxy as Record<string, unknown>).models as Record<string, unknown>).auto, undefined);
  assertEquals(cfg.logging, undefined);
});

Deno.test("v0.87.4 writes a workflow's own max-ai-credits literally, and the firewall image digests", async () => {
  const lockFile = JSON.stringify({
    entries: {},
    containers: Object.fromEntries(
      ["agent", "squid", "api-proxy", "cli-proxy"].map((role, i) => {
        const image = `ghcr.io/github/gh-aw-firewall/${role}:0.28.4`;
        const digest = `sha256:${String(i + 1).repeat(64)}`;
        return [image, { image, digest, pinned_image: `${image}@${digest}` }];
      }),
    ),
  });
  const { lock } = await compileOne(
    BASIC.replace("permissions:", "max-ai-credits: 1500\npermissions:"),
    { ".github/aw/actions-lock.json": lockFile },
    V087,
  );
  const run = execRun(lock);
  assert(run.includes("# shellcheck disable=SC2016\nprintf '%s\\n' '{"), "single-quoted config");
  assert(!run.includes("GH_AW_MAX_AI_CREDITS="));
  const cfg = awfConfig(run);
  const proxy = cfg.apiProxy as Record<string, unknown>;
  assertEquals(Object.keys(proxy).slice(3, 5), ["maxCacheMisses", "maxAiCredits"]);
  assertEquals(proxy.maxAiCredits, 1500);
  assertEquals(
    (cfg.container as Record<string, unknown>).imageTag,
    `0.28.4,squid=sha256:${"2".repeat(64)},agent=sha256:${"1".repeat(64)},api-proxy=sha256:${
      "3".repeat(64)
    },cli-proxy=sha256:${"4".repeat(64)}`,
  );
});

Deno.test("v0.87.4 runs the safe-outputs server as a stdio container of a bridged gateway", async () => {
  const { lock } = await compileOne(BASIC, {}, V087);
  const agent = jobsOf(lock).agent;
  assert(!names(agent).includes("Start Safe Outputs MCP HTTP Server"));
  assert(!names(agent).includes("Generate Safe Outputs MCP Server Config"));
  const gw = stepOf(agent, "Start MCP Gateway")!;
  const env = gw.env as Record<string, string>;
  assertEquals(env.GH_AW_SAFE_OUTPUTS_PORT, undefined);
  assertEquals(env.GH_AW_SINK_VISIBILITY, "${{ steps.determine-automatic-lockdown.outputs.visibility }}");
  assertEquals(env.GITHUB_TOKEN, "${{ secrets.GITHUB_TOKEN }}");
  const run = String(gw.run);
  assert(run.includes('export MCP_GATEWAY_DOMAIN="awmg-mcpg"'));
  assert(run.includes("--network bridge -p 127.0.0.1:"), "bridge network");
  assert(
    run.includes('export MCP_GATEWAY_ALLOWED_MOUNT_ROOTS="${GITHUB_WORKSPACE}:rw,${RUNNER_TEMP}/gh-aw:ro,'),
  );
  assert(run.includes('source "${RUNNER_TEMP}/gh-aw/actions/resolve_docker_socket_gid.sh"'));
  assert(run.includes('mkdir -p "$HOME/.copilot"'));
  const [, delim, body] = /cat << (GH_AW_MCP_CONFIG_[0-9a-f]{16}_EOF) \| [^\n]*\n([\s\S]*?\n)\1\n/.exec(run)!;
  const config = JSON.parse(body.replace("$MCP_GATEWAY_PORT", "8080").replaceAll("\\$", "$"));
  assertEquals(config.mcpServers.safeoutputs.container, "ghcr.io/github/gh-aw-node");
  assertEquals(config.mcpServers.safeoutputs.entrypoint, "sh");
  assertEquals(config.mcpServers.github.env.GITHUB_FEATURES, "fields_param");
  assertEquals(
    config.mcpServers.safeoutputs["guard-policies"]["write-sink"]["sink-visibility"],
    "${GH_AW_SINK_VISIBILITY}",
  );
  assertEquals(config.gateway.startupTimeout, 120);
  // The delimiter is derived from the config as the lock indents it.
  const indented = body.split("\n").slice(0, -1).map((l: string) => `          ${l}`).join("\n") + "\n";
  assertEquals(delim, contentDelimiter("MCP_CONFIG", indented));
});

Deno.test("v0.76.1 keeps the safe-outputs HTTP server and the host-network gateway", async () => {
  const { lock } = await compileOne(BASIC, {}, V076);
  const agent = jobsOf(lock).agent;
  assert(names(agent).includes("Start Safe Outputs MCP HTTP Server"));
  const run = String(stepOf(agent, "Start MCP Gateway")!.run);
  assert(run.includes("--network host") && !run.includes("MCP_GATEWAY_ALLOWED_MOUNT_ROOTS"));
  assert(run.includes('"url": "http://host.docker.internal:$GH_AW_SAFE_OUTPUTS_PORT"'));
});

Deno.test("content delimiters are FNV-1a of the name and text (known vector) and follow the text", () => {
  // FNV-1a 64 of "MCP_CONFIG" + ten spaces + "{}\n", computed independently.
  assertEquals(contentDelimiter("MCP_CONFIG", "          {}\n"), "GH_AW_MCP_CONFIG_2cea5c5a14cba688_EOF");
  assert(contentDelimiter("MCP_CONFIG", "a") !== contentDelimiter("MCP_CONFIG", "b"));
});

const GUARDED = wf(`permissions:
  contents: read
tools:
  github:
    toolsets: [repos]
    allowed-repos: ["acme/widgets"]
    min-integrity: approved
safe-outputs:
  create-issue:
`);

Deno.test("v0.87.4 detects the repository's visibility with a configured guard too, passing the policy on", async () => {
  const { lock } = await compileOne(GUARDED, {}, V087);
  const agent = jobsOf(lock).agent;
  const step = stepOf(agent, "Determine automatic lockdown mode for GitHub MCP Server")!;
  assertEquals((step.env as Record<string, string>).GH_AW_GITHUB_MIN_INTEGRITY, "approved");
  assertEquals((step.env as Record<string, string>).GH_AW_GITHUB_REPOS, '["acme/widgets"]');
  const at = names(agent).indexOf("Determine automatic lockdown mode for GitHub MCP Server");
  assertEquals(names(agent)[at + 1], "Parse integrity filter lists");
  const v076 = jobsOf((await compileOne(GUARDED, {}, V076)).lock).agent;
  assert(!names(v076).includes("Determine automatic lockdown mode for GitHub MCP Server"));
});

Deno.test("v0.87.4 hands the runtime its own validation rules and property injections", async () => {
  const md = BASIC.replace("  create-issue:\n", "  create-issue:\n  close-issue:\n");
  const tools = (lock: string) =>
    stepOf(jobsOf(lock).agent, "Generate Safe Outputs Tools")!.env as Record<
      string,
      string
    >;
  const v087 = tools((await compileOne(md, {}, V087)).lock);
  const validation = JSON.parse(v087.GH_AW_VALIDATION_JSON);
  assertEquals(validation.create_issue.fields.blocked_by, {});
  assertEquals(validation.create_issue.fields.body.minLength, 20);
  assertEquals(
    JSON.parse(v087.GH_AW_TOOLS_META_JSON).property_injections.close_issue.state_reason.type,
    "string",
  );
  const v076 = tools((await compileOne(md, {}, V076)).lock);
  assertEquals(JSON.parse(v076.GH_AW_VALIDATION_JSON).create_issue.fields.blocked_by, undefined);
  assertEquals(JSON.parse(v076.GH_AW_TOOLS_META_JSON).property_injections, undefined);
});

Deno.test("v0.87.4 installs gVisor before the firewall and names it the container runtime", async () => {
  const md = BASIC.replace(
    "permissions:",
    "sandbox:\n  agent:\n    id: awf\n    runtime: gvisor\npermissions:",
  );
  const agent = jobsOf((await compileOne(md, {}, V087)).lock).agent;
  const at = names(agent).indexOf("Install gVisor (runsc)");
  assert(at > 0, names(agent).join(", "));
  assertEquals(names(agent)[at + 1], "Install AWF binary");
  const cfg = awfConfig(String(stepOf(agent, "Execute GitHub Copilot CLI")!.run), 1);
  assertEquals((cfg.container as Record<string, unknown>).containerRuntime, "gvisor");
});

Deno.test("v0.87.4 sets up the docker-sbx microVM and reaches the gateway through the host", async () => {
  const md = BASIC.replace(
    "permissions:",
    "sandbox:\n  agent:\n    id: awf\n    runtime: docker-sbx\npermissions:",
  );
  const agent = jobsOf((await compileOne(md, {}, V087)).lock).agent;
  for (
    const n of ["Check KVM availability for docker-sbx", "Install docker-sbx", "Refresh sbx credentials"]
  ) {
    assert(names(agent).includes(n), n);
  }
  assertEquals(
    names(agent)[names(agent).indexOf("Execute GitHub Copilot CLI") - 1],
    "Refresh sbx credentials",
  );
  assert(execRun((await compileOne(md, {}, V087)).lock).includes("--container-runtime sbx --env-all"));
  const gw = String(stepOf(agent, "Start MCP Gateway")!.run);
  assert(gw.includes('export MCP_GATEWAY_HOST_DOMAIN="host.docker.internal"') && gw.includes("-p 0.0.0.0:"));
});

Deno.test("Playwright runs as an MCP server of the gateway, with its image and log folder", async () => {
  const md = BASIC.replace("tools:\n", "tools:\n  playwright:\n");
  const { lock } = await compileOne(md, {}, V087);
  const agent = jobsOf(lock).agent;
  assert(
    String(stepOf(agent, "Download container images")!.run).includes("mcr.microsoft.com/playwright/mcp"),
  );
  const run = String(stepOf(agent, "Start MCP Gateway")!.run);
  assert(run.includes("chmod 777 /tmp/gh-aw/mcp-logs/playwright"));
  assert(run.includes('"container": "mcr.microsoft.com/playwright/mcp"'));
});

Deno.test("v0.87.4: own steps after the memories; every pre-agent job needed by name", async () => {
  const md = wf(`tools:
  cache-memory: true
steps:
  - name: Prepare
    run: echo hi
jobs:
  build-it:
    runs-on: ubuntu-latest
    steps:
      - run: echo build
  ship:
    needs: [build-it]
    runs-on: ubuntu-latest
    steps:
      - run: echo ship
`);
  const v087 = jobsOf((await compileOne(md, {}, V087)).lock).agent;
  const order = (
    job: Job,
  ) => [names(job).indexOf("Prepare"), names(job).indexOf("Setup cache-memory git repository")];
  const [prep, mem] = order(v087);
  assert(prep > mem, "after the memory");
  assertEquals(v087.needs, ["activation", "build-it", "ship"]);
  const v076 = jobsOf((await compileOne(md, {}, V076)).lock).agent;
  const [prep76, mem76] = order(v076);
  assert(prep76 < mem76, "before the memory");
  assertEquals(v076.needs, ["activation", "build_it", "ship"]);
});

Deno.test("the agent clones the repo memory from the branch the target release names", async () => {
  const md = wf("tools:\n  repo-memory: true\n");
  const branch = async (opts: typeof V087) =>
    (stepOf(jobsOf((await compileOne(md, {}, opts)).lock).agent, "Clone repo-memory branch (default)")!
      .env as Record<string, string>).BRANCH_NAME;
  assertEquals(await branch(V087), "memory/w");
  assertEquals(await branch(V076), "memory/default");
});

Deno.test("v0.87.4 compiles excluded-env (AWF --exclude-env) and max-turn-cache-misses (maxCacheMisses)", async () => {
  const md = BASIC.replace(
    "permissions:",
    "excluded-env: [MY_SECRET_VAR]\nmax-turn-cache-misses: 9\npermissions:",
  );
  const run = execRun((await compileOne(md, {}, V087)).lock);
  assert(run.includes("--exclude-env MCP_GATEWAY_API_KEY --exclude-env MY_SECRET_VAR"), run);
  assertEquals((awfConfig(run, 1).apiProxy as Record<string, unknown>).maxCacheMisses, 9);
  const plain = execRun((await compileOne(BASIC, {}, V087)).lock);
  assert(!plain.includes("MY_SECRET_VAR"));
});

Deno.test("v0.87.4: a mistyped excluded-env or max-turn-cache-misses is a located error", async () => {
  for (const bad of ["excluded-env: 5", "max-turn-cache-misses: lots"]) {
    const result = await compile({
      repoRoot: "/repo",
      workflows: [".github/workflows/w.md"],
      ghAwVersion: "v0.87.4",
      readFile: memoryRepo({ ".github/workflows/w.md": `---\non: workflow_dispatch\n${bad}\n---\nGo.\n` }),
    });
    const errors = result.workflows[0].diagnostics.filter((d) => d.severity === "error");
    assertEquals(errors.map((d) => [d.code, d.line]), [["invalid-value", 3]], bad);
  }
});
