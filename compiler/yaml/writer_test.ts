import { assertEquals } from "../test_assert.ts";
import { goQuote, needsQuotes } from "./writer.ts";

Deno.test("goQuote escapes what Go's strconv.Quote escapes and keeps printable text, emoji included", () => {
  assertEquals(goQuote("👨\u200d🍳"), '"👨\\u200d🍳"', "the zero-width joiner is not printable in Go");
  assertEquals(goQuote("a\u00a0b"), '"a\\u00a0b"', "a non-breaking space is escaped");
  assertEquals(goQuote("🤖 Ünïcode — «ok»"), '"🤖 Ünïcode — «ok»"');
  assertEquals(goQuote('x"\\\n\t\u0001'), '"x\\"\\\\\\n\\t\\x01"');
  assertEquals(goQuote("\u{E0001}"), '"\\U000e0001"', "a non-printable astral code point");
});

Deno.test("needsQuotes quotes what plain YAML would read otherwise, and nothing else", () => {
  const quoted = [
    "",
    "true",
    "No",
    "~",
    "1_000",
    "0x1F",
    ".inf",
    " lead",
    "trail\t",
    "x\u00a0",
    "\u2028x",
    "*alias",
    "@at",
    "`tick",
    "-",
    "- x",
    "--",
    "-- x",
    "---",
    "-\tx",
    "a: b",
    "a #b",
    "key:",
    "bell\u0007",
    "line\nbreak",
  ];
  for (const s of quoted) assertEquals(needsQuotes(s), true, JSON.stringify(s));
  const plainText = [
    "-x",
    "--flag",
    "a:b",
    "a#b",
    "echo hi",
    "ubuntu-latest",
    "v1.2.3",
    "Ünïcode",
    "x\u007f",
  ];
  for (const s of plainText) assertEquals(needsQuotes(s), false, JSON.stringify(s));
});
