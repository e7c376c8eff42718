import { parse } from "yaml";
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string };
const countCredentials = (lock: string) =>
  (parse(lock).jobs.agent.steps as Step[]).filter((s) => s.name === "Configure Git credentials").length;

Deno.test("with checkout: false the agent job has no git credential steps (no repository to re-point)", async () => {
  const without = await compileOne("---\non: workflow_dispatch\ncheckout: false\n---\nHi\n");
  assertEquals(countCredentials(without.lock), 0);
  const withCheckout = await compileOne("---\non: workflow_dispatch\n---\nHi\n");
  assertEquals(countCredentials(withCheckout.lock), 2, "before the engine and after it, as gh-aw");
});
