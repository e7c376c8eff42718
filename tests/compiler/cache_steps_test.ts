/**
 * Frontmatter `cache:` as gh-aw v0.76 writes it: a note above `jobs:`, a comment before the steps, each step
 * named by the entry's own `name`, its inputs in gh-aw's fixed order and written as they are.
 */
import { parse } from "yaml";
import { assert, assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

const WORKFLOW = `---
on: workflow_dispatch
cache:
  - key: data-\${{ github.run_id }}
    name: Save data to cache
    path: /tmp/gh-aw/agent/data
    restore-keys: |
      data-
  - key: tools
    path: [a, b]
---
# Task
`;

Deno.test("cache entries become named actions/cache steps after gh-aw's comment, with its note above jobs", async () => {
  const { lock } = await compileOne(WORKFLOW);
  assertIncludes(
    lock,
    "\n# Cache configuration from frontmatter was processed and added to the main job steps\n\njobs:\n",
  );
  assertIncludes(
    lock,
    "      # Cache configuration from frontmatter processed below\n      - name: Save data to cache\n",
  );
  // The last value of the section loses its final line break in gh-aw's round trip: a plain line.
  assertIncludes(lock, "          key: data-${{ github.run_id }}\n          path: /tmp/gh-aw/agent/data\n");
  const steps = parse(lock).jobs.agent.steps as {
    name?: string;
    uses?: string;
    with?: Record<string, unknown>;
  }[];
  const first = steps.find((s) => s.name === "Save data to cache")!;
  assertEquals(Object.keys(first.with!), ["key", "path", "restore-keys"]);
  assertEquals(first.with!["restore-keys"], "data-\n");
  const second = steps.find((s) => s.name === "Cache 2")!;
  assertEquals(second.with, { key: "tools", path: "a\nb\n" });
  const caches = steps.filter((s) => s.uses?.startsWith("actions/cache@"));
  assert(caches.every((s) => s.with?.name === undefined), "the entry's name is the step's, not an input");
});
