import assert from "node:assert/strict";
import {
  cacheMemoryEntries,
  cacheMemoryKey,
  cacheMemoryPostSteps,
  guardPolicyOf,
  policyHash,
} from "./memory.ts";

const refs = {
  cache: "actions/cache@x",
  cacheRestore: "actions/cache/restore@x",
  upload: "up@x",
  githubScript: "gs@x",
};

Deno.test("a workflow without min-integrity uses the nopolicy namespace and the workflow id", () => {
  const [entry] = cacheMemoryEntries(true);
  assert.equal(
    cacheMemoryKey(entry, guardPolicyOf({ toolsets: ["default"] })),
    "memory-none-nopolicy-${{ env.GH_AW_WORKFLOW_ID_SANITIZED }}-${{ github.run_id }}",
  );
});

Deno.test("the policy hash changes with every guard-policy field and ignores list order and case", () => {
  assert.equal(policyHash({ minIntegrity: "none" }), "9f0b69b3");
  assert.equal(policyHash({ minIntegrity: "approved" }), "6f25a3c0");
  assert.equal(policyHash({ minIntegrity: "none", repos: "all" }), "baeab216");
  assert.equal(
    policyHash({ minIntegrity: "approved", trustedUsers: ["Bob", "alice"] }),
    policyHash({ minIntegrity: "approved", trustedUsers: ["alice", "bob", "BOB"] }),
  );
  assert.notEqual(
    policyHash({ minIntegrity: "approved", blockedUsers: ["x"] }),
    policyHash({ minIntegrity: "approved" }),
  );
});

Deno.test("a custom key gets the integrity prefix and exactly one run-id suffix", () => {
  const [entry] = cacheMemoryEntries({ key: "notes-${{ github.workflow }}-${{ github.run_id }}" });
  assert.equal(
    cacheMemoryKey(entry, { minIntegrity: "approved" }),
    "memory-approved-6f25a3c0-notes-${{ github.workflow }}-${{ github.run_id }}",
  );
});

Deno.test("`cache-memory:` with no value enables the default cache; false disables it", () => {
  assert.equal(cacheMemoryEntries(null).length, 1);
  assert.equal(cacheMemoryEntries(false).length, 0);
  assert.deepEqual(cacheMemoryEntries([{ id: "a" }, { id: "b", "restore-only": true }]).map((e) => e.id), [
    "a",
    "b",
  ]);
});

Deno.test("uploads for the save job exist only under threat detection and skip restore-only caches", () => {
  const entries = cacheMemoryEntries([{ id: "a" }, { id: "b", "restore-only": true }]);
  const names = (d: boolean) => cacheMemoryPostSteps(entries, d, refs).map((s) => s.name);
  assert.deepEqual(names(false), ["Commit cache-memory changes (a)"]);
  assert.deepEqual(names(true), [
    "Commit cache-memory changes (a)",
    "Check cache-memory git integrity (a)",
    "Upload cache-memory data as artifact (a)",
  ]);
});
