import assert from "node:assert/strict";
import { SAFE_OUTPUT_KEYS } from "../../../source/schema.ts";
import { GLOBAL_KEYS } from "../plan.ts";
import { SAFE_OUTPUT_TYPES, safeOutputType } from "./registry.ts";

Deno.test("every safe-outputs key the schema accepts is a global setting or a registered type, and no more", () => {
  const types = SAFE_OUTPUT_KEYS.filter((key) => !GLOBAL_KEYS.has(key)).sort();
  assert.deepEqual(SAFE_OUTPUT_TYPES.map((type) => type.key).sort(), types);
});

Deno.test("each type is registered once and found by its key", () => {
  const keys = SAFE_OUTPUT_TYPES.map((type) => type.key);
  assert.equal(new Set(keys).size, keys.length);
  for (const type of SAFE_OUTPUT_TYPES) assert.equal(safeOutputType(type.key), type);
  assert.equal(safeOutputType("create-issues"), undefined);
});

Deno.test("a type that writes through the safe_outputs job's token names the permissions it needs", () => {
  const withoutToken = SAFE_OUTPUT_TYPES.filter((type) => !type.reporting && !type.permissions).map((t) =>
    t.key
  );
  // These run outside the job's GitHub token: an artifact upload, a workflow call and two runtime dispatches.
  assert.deepEqual(withoutToken.sort(), [
    "call-workflow",
    "create-agent-task",
    "dispatch_repository",
    "upload-artifact",
  ]);
  for (const type of SAFE_OUTPUT_TYPES) {
    for (const level of Object.values(type.permissions ?? {})) assert.match(level, /^(read|write)$/);
  }
});

Deno.test("code-pushing types are exactly the two that write a branch, and both need contents: write", () => {
  const pushing = SAFE_OUTPUT_TYPES.filter((type) => type.pushesCode);
  assert.deepEqual(pushing.map((type) => type.key), ["create-pull-request", "push-to-pull-request-branch"]);
  for (const type of pushing) assert.equal(type.permissions?.contents, "write");
});
