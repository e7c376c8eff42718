import assert from "node:assert/strict";
import { citationOf, citedTextBlocks, isWebSearchType, serverToolId, withSearches } from "./web_search.ts";
import { usageOf } from "./types.ts";

const cite = (text: string) => [citationOf("https://a.example", "A", text)];

Deno.test("cited spans split the text into blocks in order; a span not found after the last is left out", () => {
  const blocks = citedTextBlocks("One. Two. Three.", [
    { text: "Two.", citations: cite("Two.") },
    { text: "One.", citations: cite("One.") }, // before the previous span: not cited again
    { text: "Four.", citations: cite("Four.") },
  ]);
  assert.deepEqual(blocks.map((b) => [b.type === "text" && b.text, b.type === "text" && !!b.citations]), [
    ["One. ", false],
    ["Two.", true],
    [" Three.", false],
  ]);
  assert.deepEqual(citedTextBlocks("plain", []), [{ type: "text", text: "plain" }]);
});

Deno.test("only Anthropic's web_search type is a web search; tool ids keep a safe upstream id or are made", () => {
  assert.equal(isWebSearchType("web_search_20250305"), true);
  assert.equal(isWebSearchType("web_fetch_20250910"), false);
  assert.equal(isWebSearchType("web_search"), false);
  assert.equal(serverToolId("ws_68a1"), "srvtoolu_ws_68a1");
  assert.match(serverToolId('ws"\n<x>'), /^srvtoolu_[0-9a-f]{24}$/);
});

Deno.test("searches are counted in usage.server_tool_use; none leaves usage as it was", () => {
  const usage = usageOf({ input_tokens: 5 });
  assert.equal(withSearches(usage, 0), usage);
  assert.deepEqual(withSearches(usage, 2).server_tool_use, { web_search_requests: 2 });
});
