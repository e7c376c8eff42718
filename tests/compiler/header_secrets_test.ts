/** The header's secrets list reads every `${{ }}` expression, braces of `format()` strings included. */
import { assertEquals } from "../../compiler/test_assert.ts";
import { compileOne } from "./helpers.ts";

Deno.test("a secret inside an expression that also holds format braces is listed in the header", async () => {
  const md = "---\non: workflow_dispatch\npermissions:\n  contents: read\nenv:\n" +
    "  TRACE_URL: \"${{ secrets.TRACE_ENDPOINT || format('https://intake.{0}/v1', secrets.TRACE_SITE) }}\"\n" +
    "---\n# Task\n";
  const { lock } = await compileOne(md);
  assertEquals(lock.includes("#   - TRACE_ENDPOINT\n"), true);
  assertEquals(lock.includes("#   - TRACE_SITE\n"), true);
});
