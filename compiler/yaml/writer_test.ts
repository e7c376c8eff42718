import { assertEquals } from "../test_assert.ts";
import { goQuote } from "./writer.ts";

Deno.test("goQuote escapes what Go's strconv.Quote escapes and keeps printable text, emoji included", () => {
  assertEquals(goQuote("👨\u200d🍳"), '"👨\\u200d🍳"', "the zero-width joiner is not printable in Go");
  assertEquals(goQuote("a\u00a0b"), '"a\\u00a0b"', "a non-breaking space is escaped");
  assertEquals(goQuote("🤖 Ünïcode — «ok»"), '"🤖 Ünïcode — «ok»"');
  assertEquals(goQuote('x"\\\n\t\u0001'), '"x\\"\\\\\\n\\t\\x01"');
  assertEquals(goQuote("\u{E0001}"), '"\\U000e0001"', "a non-printable astral code point");
});
