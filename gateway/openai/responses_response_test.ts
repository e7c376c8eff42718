import assert from "node:assert/strict";
import { parseResponsesRequest } from "./responses_request.ts";
import { responseOf, responseTextOf } from "./responses_response.ts";

const answer = (content: string) =>
  `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":${content},` +
  `"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":5,` +
  `"cache_creation_input_tokens":2,"cache_read_input_tokens":7}}`;

/** A request's echo, as the ingress keeps it. */
const echo = parseResponsesRequest({
  model: "gpt-x",
  instructions: "Be brief.",
  input: "hi",
  max_output_tokens: 64,
  temperature: 0.5,
  tools: [{ type: "function", name: "f", parameters: { type: "object", properties: {} } }],
  metadata: { run: "1" },
}).echo;

/** The ids and the clock left out (random, or the time). */
function withoutIds(response: Record<string, unknown>): Record<string, unknown> {
  const { id, created_at, output, ...rest } = response;
  assert.equal(typeof id, "string");
  assert.equal(typeof created_at, "number");
  const items = (output as Array<Record<string, unknown>>).map(({ id, ...item }) => {
    assert.equal(typeof id, "string");
    return item;
  });
  return { ...rest, output: items };
}

Deno.test("a one-text-block answer renders unparsed: the same response, in the same key order, as the parsing path", () => {
  const texts = [
    answer('[{"type":"text","text":"Hello there."}]'),
    answer('[{"type":"text","text":"line\\nbreak, \\"quoted\\", \\u00e9t\\u00e9 \\ud83d\\ude00"}]'),
    answer('[{"type":"text","text":""}]'),
    answer('[{"type":"text","text":"cut"}]').replace('"end_turn"', '"max_tokens"'),
    answer('[{"type":"text","text":"null stop"}]').replace('"end_turn"', "null"),
    answer('[{"type":"text","text":"old usage"}]').replace(
      /,"cache_creation_input_tokens":2,"cache_read_input_tokens":7/,
      "",
    ),
  ];
  for (const settings of [echo, {}]) {
    for (const text of texts) {
      const fast = responseTextOf(text, "gpt-x", settings);
      assert.ok(fast, text);
      assert.deepEqual(fast.usage, JSON.parse(text).usage);
      const expected = JSON.stringify(responseOf(JSON.parse(text), "gpt-x", settings));
      const got = JSON.parse(fast.text);
      assert.deepEqual(withoutIds(got), withoutIds(JSON.parse(expected)), text);
      // Key order too: the text is what JSON.stringify would write, ids and clock aside.
      assert.deepEqual(Object.keys(got), Object.keys(JSON.parse(expected)));
    }
  }
});

Deno.test("anything but one well-formed text block, or an echo repeating a shell key, is left to the parsing path", () => {
  const left = [
    answer('[{"type":"text","text":"a"},{"type":"text","text":"b"}]'),
    answer('[{"type":"tool_use","id":"t","name":"f","input":{}}]'),
    answer('[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"a"}]'),
    answer('[{"type":"text","text":"no"}]').replace('"end_turn"', '"refusal"'),
    answer('[{"type":"text","text":"raw \n newline"}]'),
  ];
  for (const text of left) assert.equal(responseTextOf(text, "gpt-x", echo), undefined, text);
  const ok = answer('[{"type":"text","text":"fine"}]');
  assert.equal(responseTextOf(ok, "gpt-x", { ...echo, status: "x" }), undefined);
});
