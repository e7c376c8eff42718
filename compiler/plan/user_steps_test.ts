import { assertEquals } from "../test_assert.ts";
import { goccyNeedsQuotes } from "./user_steps.ts";

Deno.test("goccy's quoting rule quotes multi-line text holding a comment, a backslash, or a colon or dash before a space", () => {
  assertEquals(goccyNeedsQuotes("mkdir -p x\n# make it\n"), true);
  assertEquals(goccyNeedsQuotes("gh api \\\n  -H x\n"), true);
  assertEquals(goccyNeedsQuotes("echo 'a: b'\n"), true);
  assertEquals(goccyNeedsQuotes("echo - item\n"), true);
  assertEquals(goccyNeedsQuotes("`cmd`\nmore\n"), true);
  // A blank line alone is no reason to quote (the old heuristic's mistake).
  assertEquals(goccyNeedsQuotes("npm ci\n\nnpm test\n"), false);
  assertEquals(goccyNeedsQuotes("a:b\nc-d\n"), false);
});
