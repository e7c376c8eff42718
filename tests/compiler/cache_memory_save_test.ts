import { parse } from "yaml";
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; with?: Record<string, string> };

function keysOf(steps: Step[], prefix: string): Record<string, string> {
  return Object.fromEntries(
    steps.filter((s) => s.name?.startsWith(prefix)).map((s) => [s.with!.path, s.with!.key]),
  );
}

Deno.test("update_cache_memory saves each cache under the key the agent restored, guard policy and custom key included", async () => {
  const md = "---\non: workflow_dispatch\nsafe-outputs:\n  create-issue:\ntools:\n  github:\n" +
    "    min-integrity: approved\n  cache-memory:\n    - id: audits\n      key: audits-${{ github.workflow }}\n" +
    "    - id: notes\n---\nGo.\n";
  const jobs = parse((await compileOne(md)).lock).jobs;
  const restored = keysOf(jobs.agent.steps, "Restore cache-memory file share data");
  const saved = keysOf(jobs.update_cache_memory.steps, "Save cache-memory to cache");
  assertEquals(Object.keys(saved).sort(), [
    "/tmp/gh-aw/cache-memory-audits",
    "/tmp/gh-aw/cache-memory-notes",
  ]);
  assertEquals(saved, restored);
  assertEquals(saved["/tmp/gh-aw/cache-memory-audits"].startsWith("memory-approved-"), true);
});

Deno.test("update_cache_memory uses the workflow's own cache-memory setting over an imported one, as the agent does", async () => {
  const md =
    "---\non: workflow_dispatch\nimports:\n  - shared/data.md\nsafe-outputs:\n  create-issue:\ntools:\n" +
    "  cache-memory: true\n---\nGo.\n";
  const shared = "---\ntools:\n  cache-memory:\n    key: shared-data\n---\n";
  const jobs = parse((await compileOne(md, { ".github/workflows/shared/data.md": shared })).lock).jobs;
  const saved = keysOf(jobs.update_cache_memory.steps, "Save cache-memory to cache");
  assertEquals(saved, keysOf(jobs.agent.steps, "Restore cache-memory file share data"));
  assertEquals(
    saved["/tmp/gh-aw/cache-memory"],
    "memory-none-nopolicy-${{ env.GH_AW_WORKFLOW_ID_SANITIZED }}-${{ github.run_id }}",
  );
});

Deno.test("the first import declaring cache-memory decides it, even a plain true before another import's key", async () => {
  const md = "---\non: workflow_dispatch\nimports:\n  - shared/plain.md\n  - shared/data.md\n---\nGo.\n";
  const jobs = parse(
    (await compileOne(md, {
      ".github/workflows/shared/plain.md": "---\ntools:\n  cache-memory: true\n---\n",
      ".github/workflows/shared/data.md": "---\ntools:\n  cache-memory:\n    key: shared-data\n---\n",
    })).lock,
  ).jobs;
  assertEquals(
    keysOf(jobs.agent.steps, "Restore cache-memory file share data")["/tmp/gh-aw/cache-memory"],
    "memory-none-nopolicy-${{ env.GH_AW_WORKFLOW_ID_SANITIZED }}-${{ github.run_id }}",
  );
});
