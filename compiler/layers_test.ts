/**
 * The compiler's layering, checked from its imports: `compile_workflow → emit → plan → source → yaml/data`
 * (with the CLI on top and the shared contract `api.ts` at the bottom); no module imports a higher layer
 * and no modules import each other in a loop.
 */
import { posix } from "node:path";
import { assertEquals } from "./test_assert.ts";

const root = new URL(".", import.meta.url).pathname;

/** Layer of a module (path relative to compiler/): a module may import its own layer or lower ones. */
function layerOf(path: string): number {
  if (path === "main.ts" || /^(cli|commands)\//.test(path)) return 7;
  if (path === "mod.ts") return 6;
  if (path === "compile_workflow.ts") return 5;
  if (path.startsWith("emit/")) return 4;
  if (path.startsWith("plan/")) return 3;
  if (path.startsWith("source/")) return 2;
  if (
    /^(yaml|data|github|targets)\//.test(path) || ["api.ts", "version.ts", "test_assert.ts"].includes(path)
  ) {
    return 1;
  }
  throw new Error(`${path} is in no layer: place it in a stage folder or name it in layerOf`);
}

/** Every non-test module of the compiler with the compiler modules it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(posix.join(root, dir))) {
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory && e.name !== "testdata") walk(rel);
      else if (e.isFile && rel.endsWith(".ts") && !rel.endsWith("_test.ts")) graph.set(rel, []);
    }
  };
  walk("");
  for (const [file, deps] of graph) {
    const text = Deno.readTextFileSync(posix.join(root, file));
    for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from\s+"(\.{1,2}\/[^"]+\.ts)"/gm)) {
      const target = posix.normalize(posix.join(posix.dirname(file), m[1]));
      if (graph.has(target)) deps.push(target);
    }
  }
  return graph;
}

Deno.test("no compiler module imports a module of a higher layer", () => {
  const upward: string[] = [];
  for (const [file, deps] of importGraph()) {
    for (const dep of deps) if (layerOf(dep) > layerOf(file)) upward.push(`${file} -> ${dep}`);
  }
  assertEquals(upward, []);
});

Deno.test("compiler modules import each other in no cycle", () => {
  const graph = importGraph();
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === "open") cycles.push([...stack.slice(stack.indexOf(dep)), dep].join(" -> "));
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  assertEquals(cycles, []);
});
