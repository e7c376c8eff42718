import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = Record<string, unknown> & { name?: string; env?: Record<string, string>; run?: string };
const agentSteps = (lock: string) => parse(lock).jobs.agent.steps as Step[];
const step = (lock: string, name: string) => agentSteps(lock).find((s) => s.name === name);
const names = (lock: string) => agentSteps(lock).map((s) => s.name);

const WF = (front: string) => `---\non: workflow_dispatch\n${front}---\nDo the thing.\n`;

Deno.test("copilot gets lockdown detection, guard env and the escaped GitHub server config", async () => {
  const { lock } = await compileOne(WF("engine: copilot\n"));
  assertEquals(
    step(lock, "Determine automatic lockdown mode for GitHub MCP Server")!.id,
    "determine-automatic-lockdown",
  );
  const pin = /uses: (actions\/github-script@[0-9a-f]{40} # v9\.0\.0 \(source v9\))\n/.exec(lock);
  assert(pin !== null, "the lockdown step's pin names its source version");
  assertIncludes(lock, `#   - ${pin![1]}\n`);
  const start = step(lock, "Start MCP Gateway")!;
  assertEquals(Object.keys(start.env!), [
    "GH_AW_SAFE_OUTPUTS",
    "GH_AW_SAFE_OUTPUTS_API_KEY",
    "GH_AW_SAFE_OUTPUTS_PORT",
    "GITHUB_MCP_GUARD_MIN_INTEGRITY",
    "GITHUB_MCP_GUARD_REPOS",
    "GITHUB_MCP_SERVER_TOKEN",
  ]);
  const run = start.run!;
  assertIncludes(run, "mkdir -p /home/runner/.copilot\n");
  assertIncludes(run, '"type": "stdio",\n      "container": "ghcr.io/github/github-mcp-server:');
  assertIncludes(run, '"GITHUB_PERSONAL_ACCESS_TOKEN": "\\${GITHUB_MCP_SERVER_TOKEN}"');
  assertIncludes(run, '"port": $MCP_GATEWAY_PORT,');
  assertIncludes(run, "-e GH_AW_SAFE_OUTPUTS_PORT -e GH_AW_SAFE_OUTPUTS_API_KEY -v /tmp/gh-aw/mcp-payloads");
  assert(!run.includes("GH_AW_MCP_CLI_SERVERS"), "no CLI mounts without tools.cli-proxy");
  const order = names(lock);
  assert(
    order.indexOf("Start MCP Gateway") < order.indexOf("Mount MCP servers as CLIs"),
    "mount after start",
  );
  assert(order.indexOf("Stop MCP Gateway") > order.indexOf("Execute GitHub Copilot CLI"), "stop after run");
  assertEquals(step(lock, "Parse MCP Gateway logs for step summary")!.id, "parse-mcp-gateway");
});

Deno.test("claude's dialect references variables bare; custom servers carry their secrets as step env", async () => {
  const { lock } = await compileOne(WF(
    "engine: claude\nmcp-servers:\n  notes:\n    container: mcp/notes\n    env:\n      NOTES_TOKEN: ${{ secrets.NOTES_TOKEN }}\n" +
      "  search:\n    url: https://search.example/mcp\n    headers:\n      Authorization: Bearer ${{ secrets.SEARCH_KEY }}\n    allowed: [find]\n",
  ));
  const start = step(lock, "Start MCP Gateway")!;
  assertEquals(start.env!.NOTES_TOKEN, "${{ secrets.NOTES_TOKEN }}");
  assertEquals(start.env!.SEARCH_KEY, "${{ secrets.SEARCH_KEY }}");
  const run = start.run!;
  assertIncludes(run, '"GITHUB_PERSONAL_ACCESS_TOKEN": "$GITHUB_MCP_SERVER_TOKEN"');
  assertIncludes(run, '"NOTES_TOKEN": "${NOTES_TOKEN}"');
  assertIncludes(run, '"Authorization": "Bearer \\${SEARCH_KEY}"');
  assertIncludes(run, "-e NOTES_TOKEN -e SEARCH_KEY -v /tmp/gh-aw/mcp-payloads");
  assert(!run.includes("/home/runner/.copilot"), "no copilot config dir");
  const servers = [...run.matchAll(/^ {4}"([\w-]+)": \{$/gm)].map((m) => m[1]);
  assertEquals(servers, ["github", "notes", "safeoutputs", "search"]);
});

Deno.test("a configured guard policy replaces lockdown detection with the integrity list parsing", async () => {
  const { lock } = await compileOne(WF(
    "engine: copilot\ntools:\n  github:\n    min-integrity: approved\n    approval-labels: [ok]\n",
  ));
  assertEquals(step(lock, "Determine automatic lockdown mode for GitHub MCP Server"), undefined);
  const parseStep = step(lock, "Parse integrity filter lists")!;
  assertEquals(parseStep.env!.GH_AW_APPROVAL_LABELS_EXTRA, "ok");
  const run = step(lock, "Start MCP Gateway")!.run!;
  assertIncludes(run, '"approval-labels": ${{ steps.parse-guard-vars.outputs.approval_labels }},');
  assertIncludes(run, '"min-integrity": "approved",\n          "repos": "all",');
});

Deno.test("gh-proxy mode drops the GitHub server and wraps the engine run in the CLI proxy", async () => {
  const { lock } = await compileOne(
    WF("engine: copilot\ntools:\n  cli-proxy: true\n  github:\n    mode: gh-proxy\n"),
  );
  const run = step(lock, "Start MCP Gateway")!.run!;
  assert(!run.includes('"github": {'), "no GitHub MCP server");
  assertIncludes(run, `export GH_AW_MCP_CLI_SERVERS='["safeoutputs"]'\n`);
  const cli = step(lock, "Start CLI Proxy")!;
  assertEquals(cli.env!.CLI_PROXY_POLICY, '{"allow-only":{"repos":"all","min-integrity":"none"}}');
  const order = names(lock);
  const exec = order.indexOf("Execute GitHub Copilot CLI");
  assertEquals(order[exec - 1], "Start CLI Proxy");
  assertEquals(order[exec + 1], "Stop CLI Proxy");
});

Deno.test("codex writes its TOML config before the gateway JSON and syncs it into CODEX_HOME", async () => {
  const { lock } = await compileOne(
    "---\non: workflow_dispatch\nengine: codex\n---\n# Nightly Helper\nDo it.\n",
  );
  const start = step(lock, "Start MCP Gateway")!;
  assertEquals(start.env!.CODEX_HOME, "/tmp/gh-aw/mcp-config");
  const run = start.run!;
  const toml = run.indexOf('cat > "${RUNNER_TEMP}/gh-aw/mcp-config/config.toml"');
  const json = run.indexOf("# Generate JSON config for MCP gateway");
  assert(toml > 0 && json > toml, "TOML first");
  assertIncludes(run, "[mcp_servers.github]\nuser_agent = ");
  assertIncludes(run, '"^GITHUB_PERSONAL_ACCESS_TOKEN$"');
  assertIncludes(run, "-e CODEX_HOME -v /tmp/gh-aw/mcp-payloads");
  assertIncludes(run, 'chmod 600 "${CODEX_HOME}/config.toml"\n');
});

Deno.test("mcp-scripts tools get their config, shell files and server before the gateway, which receives their secrets", async () => {
  const { lock } = await compileOne(WF(
    "engine: copilot\nmcp-scripts:\n  greet:\n    description: Say hello\n    inputs:\n      who:\n        type: string\n        required: true\n" +
      '    env:\n      GH_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n    run: |\n      echo "hello $INPUT_WHO"\n',
  ));
  const order = names(lock);
  const start = order.indexOf("Start MCP Gateway");
  assertEquals(order.slice(start - 4, start), [
    "Write MCP Scripts Config",
    "Write MCP Scripts Tool Files",
    "Generate MCP Scripts Server Config",
    "Start MCP Scripts HTTP Server",
  ]);
  const config = step(lock, "Write MCP Scripts Config")!.run!;
  assertIncludes(config, '"handler": "greet.sh",\n      "env": {\n        "GH_TOKEN": "GH_TOKEN"\n      },');
  assertIncludes(config, '"required": [\n          "who"\n        ],');
  const files = step(lock, "Write MCP Scripts Tool Files")!.run!;
  assertIncludes(
    files,
    '# Auto-generated mcp-script tool: greet\n# Say hello\n\nset -euo pipefail\n\necho "hello $INPUT_WHO"\n',
  );
  assertEquals(step(lock, "Start MCP Scripts HTTP Server")!.env!.GH_TOKEN, "${{ secrets.GITHUB_TOKEN }}");
  const gateway = step(lock, "Start MCP Gateway")!;
  assertEquals(gateway.env!.GH_TOKEN, "${{ secrets.GITHUB_TOKEN }}");
  assertIncludes(gateway.run!, '"url": "http://host.docker.internal:$GH_AW_MCP_SCRIPTS_PORT"');
  assertIncludes(lock, '          chmod +x "${RUNNER_TEMP}/gh-aw/mcp-scripts/greet.sh"\n          \n');
  const logs = order.indexOf("Parse MCP Gateway logs for step summary");
  assertEquals(order[logs - 1], "Parse MCP Scripts logs for step summary");
});

Deno.test("the container list is sorted, adds the CLI proxy in gh-proxy mode and each custom server's image", async () => {
  const { lock } = await compileOne(WF(
    "engine: copilot\ntools:\n  github:\n    mode: gh-proxy\nmcp-servers:\n  docs:\n    container: acme/docs\n  web:\n    command: npx\n    args: [web-mcp]\n",
  ));
  const run = String(step(lock, "Download container images")!.run);
  const images = run.split(" ").slice(2);
  assertEquals(images, [...images].sort());
  assert(images.includes("acme/docs"), "custom image");
  assert(images.some((i) => i.startsWith("ghcr.io/github/gh-aw-firewall/cli-proxy:")), "CLI proxy image");
  assertEquals(images.filter((i) => i.startsWith("node:lts-alpine")).length, 1);
});

Deno.test("agentic-workflows runs the locally built image in dev mode and the installed binary in alpine in release", async () => {
  const md = WF("engine: copilot\ntools:\n  agentic-workflows:\n");
  const dev = (await compileOne(md, {}, { actionMode: "dev" })).lock;
  assertIncludes(step(dev, "Start MCP Gateway")!.run!, '"container": "localhost/gh-aw:dev"');
  assertEquals(
    names(dev).slice(
      names(dev).indexOf("Setup Go for CLI build"),
      names(dev).indexOf("Setup Go for CLI build") + 4,
    ),
    [
      "Setup Go for CLI build",
      "Build gh-aw CLI",
      "Setup Docker Buildx",
      "Build gh-aw Docker image",
    ],
  );
  assertEquals(step(dev, "Start MCP Gateway")!.env!.GITHUB_TOKEN, "${{ secrets.GITHUB_TOKEN }}");
  const release = (await compileOne(md, {}, { actionMode: "release" })).lock;
  const run = step(release, "Start MCP Gateway")!.run!;
  assertIncludes(run, '"container": "alpine:latest",\n      "entrypoint": "${RUNNER_TEMP}/gh-aw/gh-aw",');
  assertEquals(step(release, "Setup Go for CLI build"), undefined);
  assertIncludes(String(step(release, "Download container images")!.run), " alpine:latest ");
});
