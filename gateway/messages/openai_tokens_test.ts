import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { countOpenAiTokens, encodingOf } from "./openai_tokens.ts";
import type { MessagesRequest } from "./types.ts";

Deno.test("encodingOf knows OpenAI's families and nothing else", () => {
  assert.equal(encodingOf("gpt-4.1-mini"), "o200k_base");
  assert.equal(encodingOf("gpt-5"), "o200k_base");
  assert.equal(encodingOf("o4-mini"), "o200k_base");
  assert.equal(encodingOf("gpt-4o-2024-08-06"), "o200k_base");
  assert.equal(encodingOf("gpt-4-turbo"), "cl100k_base");
  assert.equal(encodingOf("gpt-3.5-turbo"), "cl100k_base");
  assert.equal(encodingOf("llama-3.3-70b-versatile"), undefined);
});

Deno.test("a conversation costs 3 per message plus role and content, 3 to prime the reply", async () => {
  const hello = { messages: [{ role: "user", content: "hello world" }] } as unknown as MessagesRequest;
  assert.equal(await countOpenAiTokens("gpt-4.1", hello), 3 + 1 + 2 + 3); // "user"; "hello", " world"
  assert.equal(await countOpenAiTokens("llama-3", hello), undefined);
  const system = "You are Claude Code. ".repeat(50);
  const long = {
    system,
    messages: [{ role: "user", content: [{ type: "text", text: "Read the file." }] }],
    tools: [{ name: "Read", description: "read a file", input_schema: { type: "object" } }],
  } as unknown as MessagesRequest;
  const expected = 3 + (3 + countTokens("system") + countTokens(system)) +
    (3 + countTokens("user") + countTokens("Read the file.")) +
    12 + 7 +
    countTokens(JSON.stringify({ name: "Read", description: "read a file", parameters: { type: "object" } }));
  assert.equal(await countOpenAiTokens("gpt-5", long), expected);
});

Deno.test("20k tokens are counted in a few milliseconds", async () => {
  const text = Array.from({ length: 2_000 }, (_, i) => `Line ${i} of the file says something different.`)
    .join("\n");
  const request = { messages: [{ role: "user", content: text }] } as unknown as MessagesRequest;
  await countOpenAiTokens("gpt-4.1", request); // loads the encoding
  const times: number[] = [];
  for (let i = 0; i < 9; i++) {
    const at = performance.now();
    await countOpenAiTokens("gpt-4.1", request);
    times.push(performance.now() - at);
  }
  times.sort((a, b) => a - b);
  const tokens = await countOpenAiTokens("gpt-4.1", request);
  console.log(`${tokens} tokens: p50 ${times[4].toFixed(2)} ms`);
  assert.ok(tokens! > 15_000);
  assert.ok(times[4] < 50, `p50 ${times[4]} ms`);
});
