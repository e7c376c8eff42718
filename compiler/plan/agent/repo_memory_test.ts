import assert from "node:assert/strict";
import { repoMemoryCloneSteps, repoMemoryEntries, repoMemoryUploadSteps } from "./repo_memory.ts";

Deno.test("a wiki memory clones the wiki repository's master branch without creating an orphan", () => {
  const [e] = repoMemoryEntries({ wiki: true }, "w");
  assert.deepEqual(e, {
    id: "default",
    branch: "master",
    wiki: true,
    createOrphan: false,
    targetRepo: undefined,
  });
  const clone = repoMemoryCloneSteps([e])[1] as { name: string; env: Record<string, unknown> };
  assert.equal(clone.name, "Clone wiki-memory branch (default)");
  assert.equal(String((clone.env.TARGET_REPO as { value: string }).value), "${{ github.repository }}.wiki");
});

Deno.test("each listed memory gets its own folder, clone and upload, named by id", () => {
  const entries = repoMemoryEntries([{ id: "campaigns", "branch-name": "memory/campaigns" }], "w");
  assert.equal(entries[0].createOrphan, true);
  const names = repoMemoryUploadSteps(entries, "upload@x").map((s) => (s as { name?: string }).name);
  assert.deepEqual(names, [
    undefined,
    "Sanitize repo-memory filenames (campaigns)",
    "Upload repo-memory artifact (campaigns)",
  ]);
});

Deno.test("no repo-memory configured means no steps", () => {
  assert.deepEqual(repoMemoryCloneSteps(repoMemoryEntries(undefined, "w")), []);
  assert.deepEqual(repoMemoryEntries(false, "w"), []);
});
