import assert from "node:assert/strict";
import { oneTextAnswer } from "./answer_text.ts";

const USAGE =
  `"usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}`;
const CONTENT = `"content":[{"type":"text","text":"hi"}]`;

Deno.test("oneTextAnswer reads a plain answer in place", () => {
  const answer = oneTextAnswer(`{${CONTENT},"stop_reason":"end_turn",${USAGE}}`);
  assert.equal(answer?.stop, "end_turn");
  assert.equal(answer?.literal, `"hi"`);
});

Deno.test("a stop reason with a raw control character is left to JSON.parse, which refuses it", () => {
  const text = `{${CONTENT},"stop_reason":"end\nturn",${USAGE}}`;
  assert.throws(() => JSON.parse(text));
  assert.equal(oneTextAnswer(text), undefined);
  // Escaped, it is valid JSON and read through JSON.parse.
  assert.equal(oneTextAnswer(`{${CONTENT},"stop_reason":"end\\u005fturn",${USAGE}}`)?.stop, "end_turn");
});
