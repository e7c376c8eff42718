import assert from "node:assert/strict";
import { chatCompletionOf, chatCompletionTextOf } from "./chat_response.ts";

const assertEquals = (actual: unknown, expected: unknown, message?: string) =>
  message === undefined
    ? assert.deepStrictEqual(actual, expected)
    : assert.deepStrictEqual(actual, expected, message);

const answer = (content: string, extra = "") =>
  `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":${content},` +
  `"stop_reason":"end_turn","stop_sequence":null,${extra}"usage":{"input_tokens":12,"output_tokens":5,` +
  `"cache_creation_input_tokens":2,"cache_read_input_tokens":7}}`;

/** The completion as the parsing path sends it (serialized), with the random id and the clock left out. */
function parsed(text: string): Record<string, unknown> {
  const { id: _id, created: _created, ...rest } = JSON.parse(
    JSON.stringify(chatCompletionOf(JSON.parse(text), "gpt-x")),
  );
  return rest;
}

function fast(text: string): Record<string, unknown> | undefined {
  const rendered = chatCompletionTextOf(text, "gpt-x");
  if (!rendered) return undefined;
  const { id, created, ...rest } = JSON.parse(rendered.text);
  assertEquals(typeof id, "string");
  assertEquals(typeof created, "number");
  assertEquals(rendered.usage, JSON.parse(text).usage);
  return rest;
}

Deno.test("a one-text-block answer renders unparsed, the same completion as the parsing path", () => {
  const texts = [
    answer('[{"type":"text","text":"Hello there."}]'),
    answer(
      '[{"type":"text","text":"line\\nbreak, \\"quoted\\", back\\\\slash, \\u00e9t\\u00e9 \\ud83d\\ude00 /\\/"}]',
    ),
    answer('[{"type":"text","text":""}]'),
    answer('[{"type":"text","text":"cut"}]').replace('"end_turn"', '"max_tokens"'),
    answer('[{"type":"text","text":"no stop"}]').replace('"stop_reason":"end_turn",', ""),
    answer('[{"type":"text","text":"été, 日本語"}]'),
    answer('[{"type":"text","text":"escaped stop"}]').replace('"end_turn"', '"max\\u005ftokens"'),
    answer('[{"type":"text","text":"null stop"}]').replace('"end_turn"', "null"),
    answer('[{"type":"text","text":"tool stop"}]').replace('"end_turn"', '"tool_use"'),
    // Usage without the cache counts, or with odd ones: written as the parsing path writes them.
    answer('[{"type":"text","text":"old usage"}]').replace(
      /,"cache_creation_input_tokens":2,"cache_read_input_tokens":7/,
      "",
    ),
    answer('[{"type":"text","text":"odd usage"}]').replace(
      '"cache_read_input_tokens":7',
      '"cache_read_input_tokens":"7"',
    ),
  ];
  for (const text of texts) assertEquals(fast(text), parsed(text));
});

Deno.test("anything but one well-formed text block is left to the parsing path", () => {
  const left = [
    answer('[{"type":"text","text":"a"},{"type":"text","text":"b"}]'),
    answer('[{"type":"tool_use","id":"t","name":"f","input":{}}]'),
    answer('[{"type":"text","text":"cited","citations":[]}]'),
    answer('[ {"type":"text","text":"spaced"} ]'),
    answer('[{"type":"text","text":"no"}]').replace('"end_turn"', '"refusal"'),
    answer('[{"type":"text","text":"bad \\q escape"}]'),
    answer('[{"type":"text","text":"short \\u12 escape"}]'),
    answer('[{"type":"text","text":"raw \n newline"}]'),
    answer('[{"type":"text","text":"x"}]').replace(/,"usage":\{[^}]*\}/, ""),
    '{"content":[{"type":"text","text":"x"}],"usage":{"input_tokens":1,"output_tokens":1}',
  ];
  for (const text of left) assertEquals(chatCompletionTextOf(text, "gpt-x"), undefined, text);
});
