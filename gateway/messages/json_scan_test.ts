import assert from "node:assert/strict";
import { jsonStringEnd, nestingDepthOver } from "./json_scan.ts";

Deno.test("a string ends at the first quote not escaped by an odd run of backslashes", () => {
  const text = String.raw`"a\"b\\" , "c"`;
  assert.equal(jsonStringEnd(text, 0), text.indexOf(" ,") - 1);
  assert.equal(jsonStringEnd(String.raw`"\\\"x"`, 0), 6);
  assert.equal(jsonStringEnd(String.raw`"unterminated\"`, 0), -1);
  assert.equal(nestingDepthOver(String.raw`["\\", [["\"[[[["]]]`, 3), false);
  assert.equal(nestingDepthOver(String.raw`["\\", [[["\"[[[["]]]]`, 3), true);
});
