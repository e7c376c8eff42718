/** The order of the activation job's steps around the prompt. */
import { assert } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

/** The names of the activation job's steps, in order. */
function activationStepNames(lock: string): string[] {
  const activation = lock.slice(lock.indexOf("\n  activation:"), lock.indexOf("\n  agent:"));
  return [...activation.matchAll(/^ {6}- name: (.*)$/gm)].map((m) => m[1]);
}

Deno.test("experiment steps follow the body text and status comment steps, just before the prompt", async () => {
  const { lock } = await compileOne(
    "---\non:\n  issues:\n    types: [opened]\n  status-comment: true\nengine: copilot\n" +
      "experiments:\n  tone: [short, long]\nsafe-outputs:\n  add-comment:\n---\nAnswer ${{ steps.sanitized.outputs.text }}.\n",
  );
  const names = activationStepNames(lock);
  const at = (n: string) => {
    const i = names.indexOf(n);
    assert(i >= 0, `step ${n} exists`);
    return i;
  };
  assert(at("Compute current body text") < at("Add comment with workflow run link"));
  assert(at("Add comment with workflow run link") < at("Restore experiment state from git"));
  assert(at("Upload experiment artifact") < at("Create prompt with built-in context"));
});
