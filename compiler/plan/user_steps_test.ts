import { assertEquals } from "../test_assert.ts";
import { afterSectionRoundTrip, goccyNeedsQuotes } from "./user_steps.ts";

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

Deno.test("the last literal-block script of the workflow's steps loses its final line break, as gh-aw's section round trip does", () => {
  const steps = [
    { name: "a", run: "echo a\n" },
    { env: { X: "1" }, name: "b", run: "one\ntwo\n" },
  ];
  assertEquals(afterSectionRoundTrip(steps), [
    { name: "a", run: "echo a\n" },
    { env: { X: "1" }, name: "b", run: "one\ntwo" },
  ]);
  // A one-line script comes back plain; the value last in Go's key order is the one trimmed.
  assertEquals(afterSectionRoundTrip([{ run: "ls\n", with: { path: "x\ny\n" } }]), [
    { run: "ls\n", with: { path: "x\ny" } },
  ]);
  // goccy double-quotes a script holding `#`, so the trim of the document leaves its text alone.
  assertEquals(afterSectionRoundTrip([{ run: "a\n# b\n" }]), [{ run: "a\n# b\n" }]);
});
