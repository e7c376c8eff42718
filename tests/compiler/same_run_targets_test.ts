/**
 * Issue 29 defect 2: a workflow whose `dispatch-workflow` / `call-workflow` target is compiled in the same
 * run sees the target's new lock, so one compile already gives what a second compile (reading the locks the
 * first wrote) gives; before, the dispatcher lacked the target's tool until it was compiled again.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compile } from "../../compiler/mod.ts";
import type { CompileResult } from "../../compiler/api.ts";
import { memoryRepo } from "./helpers.ts";

const DISPATCHER =
  "---\non: issues\nengine: copilot\nsafe-outputs:\n  dispatch-workflow: [worker]\n---\nHand it on.\n";
const CALLER =
  "---\non: issues\nengine: copilot\nsafe-outputs:\n  call-workflow: [zz-callee]\n---\nCall it.\n";
const WORKER = "---\non:\n  workflow_dispatch:\n    inputs:\n      topic:\n        type: string\n" +
  "engine: copilot\n---\nWork on ${{ inputs.topic }}.\n";
const CALLEE = "---\non:\n  workflow_call:\n    inputs:\n      depth:\n        type: number\n" +
  "engine: copilot\n---\nGo ${{ inputs.depth }} deep.\n";

/** Compiles the repository in memory, then writes the locks into it (as `awc compile` writes them). */
async function compileAndWrite(files: Record<string, string>): Promise<CompileResult> {
  const workflows = Object.keys(files).filter((p) => p.endsWith(".md"));
  const result = await compile({
    repoRoot: "/repo",
    workflows,
    scheduleSeed: "acme/widgets",
    readFile: memoryRepo({ ...files }),
  });
  for (const w of result.workflows) if (w.lockContent) files[w.lockPath] = w.lockContent;
  return result;
}

const locksOf = (r: CompileResult) => Object.fromEntries(r.workflows.map((w) => [w.lockPath, w.lockContent]));

Deno.test("a dispatch/call target compiled in the same run: the second compile changes no lock", async () => {
  const files: Record<string, string> = {
    ".github/workflows/a-dispatcher.md": DISPATCHER,
    ".github/workflows/worker.md": WORKER,
    ".github/workflows/b-caller.md": CALLER,
    ".github/workflows/zz-callee.md": CALLEE,
  };
  const first = await compileAndWrite(files);
  for (const w of first.workflows) {
    assertEquals(w.diagnostics.filter((d) => d.severity === "error"), [], w.source);
  }
  const dispatcher = locksOf(first)[".github/workflows/a-dispatcher.lock.yml"]!;
  // The target's tool (with its input) is there on the first compile.
  assert(dispatcher.includes("topic"), "the worker's input is missing from the dispatcher's tool");
  assert(locksOf(first)[".github/workflows/b-caller.lock.yml"]!.includes("depth"), "callee input missing");
  const second = await compileAndWrite(files);
  assertEquals(locksOf(second), locksOf(first));
});

Deno.test("a dispatch target compiled later: its source gives what its lock will, so the dispatcher's lock holds", async () => {
  const files: Record<string, string> = {
    ".github/workflows/a-dispatcher.md": DISPATCHER,
    ".github/workflows/worker.md": WORKER,
  };
  const only = async (workflow: string) => {
    const result = await compile({
      repoRoot: "/repo",
      workflows: [workflow],
      scheduleSeed: "acme/widgets",
      readFile: memoryRepo({ ...files }),
    });
    const w = result.workflows[0];
    assert(w.lockContent, JSON.stringify(w.diagnostics));
    files[w.lockPath] = w.lockContent!;
    return w.lockContent!;
  };
  // The dispatcher alone, before the worker has a lock: the worker's tool comes from worker.md.
  const before = await only(".github/workflows/a-dispatcher.md");
  assert(before.includes("topic"), "the worker's input is missing before its lock exists");
  await only(".github/workflows/worker.md");
  assertEquals(await only(".github/workflows/a-dispatcher.md"), before);
});
