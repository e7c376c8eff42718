import assert from "node:assert/strict";
import { dedupeUserSetupSteps, detectRuntimes, runtimeSetupSteps } from "./runtimes.ts";

const ids = (s: Parameters<typeof detectRuntimes>[0]) =>
  detectRuntimes(s).map((n) => `${n.def.id}@${n.version ?? "default"}`);
const fromText = (stepsText: string) => ids({ stepsText, mcpServers: {}, runtimes: undefined });

Deno.test("commands after run: on its line and local MCP servers select runtimes; containers do not", () => {
  assert.deepEqual(
    ids({
      stepsText: "- run: npm ci && npx tsc\n- run: uv pip install x\n- uses: actions/checkout@v6",
      mcpServers: { a: { command: "go" }, b: { container: "python:alpine", command: "python3" } },
      runtimes: undefined,
    }),
    ["go@default", "node@default", "python@default", "uv@default"],
  );
});

Deno.test("a block script (run: |) is not read for commands, as gh-aw reads only the run: line", () => {
  assert.deepEqual(fromText("- name: Build\n  run: |\n    go build ./...\n    python3 x.py"), []);
  // A double-quoted script is one line: words glued to an escaped line break are not commands.
  assert.deepEqual(fromText('- run: "set -e\\npython3 - <<EOF\\n"'), []);
});

Deno.test("`gh aw` on a run: line needs the gh-aw CLI", () => {
  assert.deepEqual(fromText('- run: "echo \\"⚠️ gh aw logs failed\\""'), ["gh-aw@default"]);
});

Deno.test("a runtime named as a system package to install is not a runtime the step runs", () => {
  assert.deepEqual(fromText("- run: sudo apt-get install -y python3 jq"), []);
  assert.deepEqual(fromText("- run: brew install node"), []);
  // The same word as a command after the install still selects the runtime.
  assert.deepEqual(fromText("- run: sudo apt-get install -y python3 && python3 tool.py"), ["python@default"]);
});

Deno.test("frontmatter runtimes add a runtime or pin its version", () => {
  assert.deepEqual(
    ids({
      stepsText: "- run: node x.js",
      mcpServers: {},
      runtimes: { node: { version: 22 }, java: { version: "21" } },
    }),
    ["java@21", "node@22"],
  );
});

Deno.test("a plain user setup step is folded in; a customised one stays and gh-aw sets nothing up", () => {
  const needs = detectRuntimes({
    stepsText: "- run: node x.js\n- run: python3 y.py",
    mcpServers: {},
    runtimes: {},
  });
  const steps = [
    { uses: "actions/setup-node@v6", with: { "node-version": "24", cache: "npm" } },
    { uses: "actions/setup-python@v6", with: { "python-version": "3.11" } },
    { run: "node x.js" },
  ];
  const d = dedupeUserSetupSteps(needs, steps);
  assert.deepEqual(d.keep, [false, true, true]);
  assert.deepEqual(d.needs.map((n) => n.def.id), ["node"]);
  assert.deepEqual(d.carried, { node: { cache: "npm" } });
  const [node] = runtimeSetupSteps(d.needs, {
    pins: { "actions/setup-node": "actions/setup-node@sha" },
    carried: d.carried,
  });
  assert.deepEqual(Object.keys(node.with as Record<string, unknown>), [
    "node-version",
    "cache",
    "package-manager-cache",
  ]);
});

Deno.test("Go setup disables the module cache and exports GOROOT for the firewall's chroot", () => {
  const steps = runtimeSetupSteps(
    detectRuntimes({ stepsText: "- run: go test ./...", mcpServers: {}, runtimes: undefined }),
    {
      pins: { "actions/setup-go": "actions/setup-go@sha # v6.4.0" },
    },
  );
  assert.deepEqual(steps.map((s) => s.name), ["Setup Go", "Capture GOROOT for AWF chroot mode"]);
  assert.equal((steps[0].with as Record<string, unknown>).cache, false);
});

Deno.test("gh-aw is built from source in dev mode and installed with setup-cli in release mode", () => {
  const needs = detectRuntimes({ stepsText: "- run: gh aw compile", mcpServers: {}, runtimes: undefined });
  assert.equal(
    runtimeSetupSteps(needs, { pins: {}, actionMode: "dev" })[0].name,
    "Build and install gh-aw CLI from source",
  );
  const [release] = runtimeSetupSteps(needs, {
    pins: { "github/gh-aw/actions/setup-cli": "github/gh-aw/actions/setup-cli@sha # v0.76.1" },
    actionMode: "release",
  });
  assert.equal(release.name, "Install gh-aw extension");
});
