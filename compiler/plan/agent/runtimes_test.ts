import assert from "node:assert/strict";
import { detectRuntimes, runtimeSetupSteps } from "./runtimes.ts";

const ids = (s: Parameters<typeof detectRuntimes>[0]) =>
  detectRuntimes(s).map((n) => `${n.def.id}@${n.version ?? "default"}`);

Deno.test("commands in run steps and local MCP servers select runtimes; containers do not", () => {
  assert.deepEqual(
    ids({
      steps: [{ run: "npm ci && npx tsc" }, { run: "uv pip install x" }, { uses: "actions/checkout@v6" }],
      mcpServers: { a: { command: "go" }, b: { container: "python:alpine", command: "python3" } },
      runtimes: undefined,
    }),
    ["go@default", "node@default", "python@default", "uv@default"],
  );
});

Deno.test("a runtime named as a system package to install is not a runtime the step runs", () => {
  const only = (run: string) => ids({ steps: [{ run }], mcpServers: {}, runtimes: undefined });
  assert.deepEqual(only("sudo apt-get install -y python3 jq"), []);
  assert.deepEqual(
    only("apt-get update\nDEBIAN_FRONTEND=noninteractive apt install -y python3-pip python3"),
    [],
  );
  assert.deepEqual(only("brew install node"), []);
  // The same word as a command after the install still selects the runtime.
  assert.deepEqual(only("sudo apt-get install -y python3 && python3 tool.py"), ["python@default"]);
});

Deno.test("frontmatter runtimes add a runtime or pin its version", () => {
  assert.deepEqual(
    ids({
      steps: [{ run: "node x.js" }],
      mcpServers: {},
      runtimes: { node: { version: 22 }, java: { version: "21" } },
    }),
    ["java@21", "node@22"],
  );
});

Deno.test("Go setup disables the module cache and exports GOROOT for the firewall's chroot", () => {
  const steps = runtimeSetupSteps(
    detectRuntimes({ steps: [{ run: "go test ./..." }], mcpServers: {}, runtimes: undefined }),
    { "actions/setup-go": "actions/setup-go@sha # v6.4.0" },
  );
  assert.deepEqual(steps.map((s) => s.name), ["Setup Go", "Capture GOROOT for AWF chroot mode"]);
  assert.equal((steps[0].with as Record<string, unknown>).cache, false);
});
