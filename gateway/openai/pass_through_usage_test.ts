import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import { usageOfAnswer } from "./pass_through.ts";

Deno.test("a pass-through answer's usage is read from its span, as a parse would read it", () => {
  const answer = JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: 'a "usage": {} inside text' } }],
    usage: { prompt_tokens: 120, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 100 } },
  });
  assert.deepEqual(usageOfAnswer("openai", answer), JSON.parse(answer).usage);
  assert.equal(usageOfAnswer("openai", '{"id":"x","choices":[]}'), undefined);
  // What the scan is unsure of is parsed: the same usage, or the malformed-answer error.
  assert.deepEqual(usageOfAnswer("openai", '{"u\\u0073age":{"prompt_tokens":1},"usage":{"x":2}}'), { x: 2 });
  for (const bad of ['{"usage":{"prompt_tokens":1},', "1", '{"usage":{"prompt_tokens":01}}', "garbage"]) {
    assert.throws(
      () => usageOfAnswer("openai", bad),
      (e) => e instanceof GatewayError && e.type === "api_error",
    );
  }
});
