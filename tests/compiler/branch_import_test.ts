/**
 * Issue 19 item 11: a remote import pinned to a branch (`owner/repo/path@main`) resolves offline through the
 * committed cache, where gh-aw files it under the commit the branch resolved to.
 */
import { assert, assertEquals } from "../../compiler/test_assert.ts";
import { compile } from "../../compiler/mod.ts";

const SHA_A = "a".repeat(40);
const SHA_B = "b".repeat(40);
const WORKFLOW =
  "---\non: workflow_dispatch\nimports:\n  - octo/shared/workflows/tools.md@main\n---\n# Task\nDo it.\n";
const SHARED = '---\ntools:\n  bash: ["echo"]\n---\nShared guidance from octo/shared.\n';

async function repoWith(cached: string[]): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "branch-import-" });
  await Deno.mkdir(`${root}/.github/workflows`, { recursive: true });
  await Deno.writeTextFile(`${root}/.github/workflows/w.md`, WORKFLOW);
  for (const sha of cached) {
    const dir = `${root}/.github/aw/imports/octo/shared/${sha}`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(`${dir}/workflows_tools.md`, SHARED);
  }
  return root;
}

async function compileIn(root: string) {
  try {
    return await compile({ repoRoot: root, workflows: [".github/workflows/w.md"], actionMode: "dev" });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("a branch-pinned remote import is read from the one cached commit that holds it", async () => {
  const result = await compileIn(await repoWith([SHA_A]));
  const [workflow] = result.workflows;
  assertEquals(workflow.diagnostics.filter((d) => d.severity === "error"), []);
  assert(
    workflow.lockContent!.includes("Shared guidance from octo/shared") ||
      workflow.lockContent!.includes("tools.md"),
  );
  assert(workflow.dependencies.includes(`.github/aw/imports/octo/shared/${SHA_A}/workflows_tools.md`));
});

Deno.test("a branch-pinned import cached under several commits is refused, naming them, at its line", async () => {
  const result = await compileIn(await repoWith([SHA_A, SHA_B]));
  const error = result.workflows[0].diagnostics.find((d) => d.code === "import-not-cached");
  assert(error, "an import-not-cached error");
  assert(error!.message.includes(SHA_A) && error!.message.includes(SHA_B), error!.message);
  assertEquals(error!.line, 4);
});

Deno.test("a branch-pinned import missing from the cache says how the cache is filled", async () => {
  const result = await compileIn(await repoWith([]));
  const error = result.workflows[0].diagnostics.find((d) => d.code === "import-not-cached");
  assert(error, "an import-not-cached error");
  assert(/compile once online|pin the import/.test(error!.hint ?? ""), error!.hint);
});
