/** `checkout.fetch` and `checkout.force-clean-git-credentials` in the agent job, as gh-aw v0.76 writes them. */
import { parse } from "yaml";
import { assertEquals, assertIncludes } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

type Step = { name?: string; with?: Record<string, unknown>; env?: Record<string, string>; run?: string };

Deno.test("checkout fetch patterns add a Fetch additional refs step; force-clean scrubs credentials first", async () => {
  const { lock } = await compileOne(
    '---\non: workflow_dispatch\ncheckout:\n  fetch: ["*", "refs/pulls/open/*", main]\n  fetch-depth: 0\n' +
      "  force-clean-git-credentials: true\n---\n# Task\n",
  );
  const steps = parse(lock).jobs.agent.steps as Step[];
  const at = steps.findIndex((s) => s.name === "Checkout repository");
  assertEquals(steps.slice(at, at + 3).map((s) => s.name), [
    "Checkout repository",
    "Clean git credentials after checkout",
    "Fetch additional refs",
  ]);
  assertEquals(steps[at].with, { "persist-credentials": true, "fetch-depth": 0 });
  assertIncludes(
    steps[at + 2].run!,
    "fetch origin '+refs/heads/*:refs/remotes/origin/*' '+refs/pull/*/head:refs/remotes/origin/pull/*/head'" +
      " '+refs/heads/main:refs/remotes/origin/main'\n",
  );
  assertIncludes(steps[at + 2].env!.GH_AW_FETCH_TOKEN, "secrets.GH_AW_GITHUB_MCP_SERVER_TOKEN");
});
