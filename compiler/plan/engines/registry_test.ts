import assert from "node:assert/strict";
import { posix } from "node:path";
import { ENGINE_IDS } from "../../source/schema.ts";
import { DEFAULT_ENGINE_ID, engineFor, enginesWith, REGISTERED_ENGINE_IDS } from "./registry.ts";

Deno.test("the registry holds exactly the engine ids the schema accepts, each under its own id", () => {
  assert.deepEqual([...REGISTERED_ENGINE_IDS].sort(), [...ENGINE_IDS].sort());
  for (const id of REGISTERED_ENGINE_IDS) assert.equal(engineFor(id).id, id);
  assert.equal(engineFor("no-such-engine").id, DEFAULT_ENGINE_ID);
});

Deno.test("the engines that install plugins are listed in the registry's order", () => {
  assert.deepEqual(enginesWith((e) => e.pluginInstall !== undefined), ["copilot", "claude", "codex"]);
});

Deno.test("an engine's reported version is the one its install command installs", () => {
  for (const id of REGISTERED_ENGINE_IDS) {
    const engine = engineFor(id);
    if (engine.version === "") continue;
    assert.ok(engine.agentInstall.run.includes(engine.version), `${id}: ${engine.agentInstall.run}`);
  }
});

/** Every non-test module of the compiler outside `plan/engines/`, with its text. */
function modulesOutsideEngines(): [string, string][] {
  const root = new URL("../../", import.meta.url).pathname;
  const out: [string, string][] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(posix.join(root, dir))) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory && rel !== "plan/engines" && e.name !== "testdata") walk(rel);
      else if (e.isFile && rel.endsWith(".ts") && !rel.endsWith("_test.ts")) {
        out.push([rel, Deno.readTextFileSync(posix.join(root, rel))]);
      }
    }
  };
  walk("");
  return out;
}

Deno.test("no module outside plan/engines/ compares a value with an engine id", () => {
  const ids = REGISTERED_ENGINE_IDS.join("|");
  const comparison = new RegExp(`[!=]==\\s*"(${ids})"|"(${ids})"\\s*[!=]==`);
  const found = modulesOutsideEngines().filter(([, text]) => comparison.test(text)).map(([rel]) => rel);
  assert.deepEqual(found, []);
});
