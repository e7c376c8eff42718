import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { CountCache, countCacheOf, countOpenAiTokens, encodingOf } from "./openai_tokens.ts";
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
});

Deno.test("system blocks count as the one joined system message the upstream gets", async () => {
  const blocks = ["You are Claude Code.", "Be brief.\n"];
  const request = {
    system: blocks.map((text) => ({ type: "text", text })),
    messages: [{ role: "user", content: "hi" }],
  } as unknown as MessagesRequest;
  const expected = 3 + (3 + countTokens("system") + countTokens(blocks.join("\n"))) +
    (3 + countTokens("user") + countTokens("hi"));
  assert.equal(await countOpenAiTokens("gpt-5", request), expected);
});

Deno.test("text spelling a special token is ordinary text, not a failure", async () => {
  const request = {
    messages: [{ role: "user", content: "the marker <|endoftext|> ends a document" }],
  } as unknown as MessagesRequest;
  const tokens = await countOpenAiTokens("gpt-4o", request);
  assert.ok(tokens! > 3 + 1 + 8, String(tokens));
});

Deno.test("server tools are not counted as functions", async () => {
  const base = { messages: [{ role: "user", content: "search" }] } as unknown as MessagesRequest;
  const withServerTool = {
    ...base,
    tools: [{ type: "web_search_20250305", name: "web_search" }],
  } as unknown as MessagesRequest;
  assert.equal(await countOpenAiTokens("gpt-4o", withServerTool), await countOpenAiTokens("gpt-4o", base));
});

Deno.test("CountCache: hits keep an entry, the oldest goes first when the character budget is spent", () => {
  const cache = new CountCache(250, 10);
  let counted = 0;
  const count = (text: string) => (counted++, text.length);
  const a = "a".repeat(100), b = "b".repeat(100), c = "c".repeat(100);
  assert.equal(cache.get(a, count), 100);
  assert.equal(cache.get(b, count), 100);
  assert.equal(cache.get(a, count), 100); // a hit: a is now the most recent
  assert.equal(counted, 2);
  cache.get(c, count); // over 250 characters: b (least recently used) goes
  assert.deepEqual(cache.size, { entries: 2, chars: 200 });
  cache.get(a, count);
  assert.equal(counted, 3);
  cache.get(b, count);
  assert.equal(counted, 4);
  assert.equal(cache.hits, 2);
});

function twentyThousandTokens(): MessagesRequest {
  const lines = (tag: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${tag} line ${i}: the function returns ${i * 7} when called twice.`)
      .join("\n");
  return {
    system: [{ type: "text", text: lines("system", 600) }],
    tools: Array.from({ length: 15 }, (_, i) => ({
      name: `Tool${i}`,
      description: lines(`tool ${i}`, 8),
      input_schema: { type: "object", properties: { path: { type: "string", description: "A path." } } },
    })),
    messages: [
      { role: "user", content: lines("user", 600) },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Tool1", input: { path: "/x" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: lines("result", 400) }] },
    ],
  } as unknown as MessagesRequest;
}

Deno.test("a repeated 20k-token request is counted from the cache, and the count does not change", async () => {
  const request = twentyThousandTokens();
  const cache = await countCacheOf("o200k_base");
  cache.clear();
  const cold = await countOpenAiTokens("gpt-4.1", request);
  const misses = cache.misses;
  const times: number[] = [];
  for (let i = 0; i < 9; i++) {
    const copy = structuredClone(request); // new strings each time, as a parsed request body has
    const at = performance.now();
    assert.equal(await countOpenAiTokens("gpt-4.1", copy), cold);
    times.push(performance.now() - at);
  }
  assert.equal(cache.misses, misses, "every long string was found in the cache");
  times.sort((a, b) => a - b);
  console.log(`${cold} tokens: warm p50 ${times[4].toFixed(3)} ms`);
  assert.ok(cold! > 18_000 && cold! < 30_000, String(cold));
  assert.ok(times[4] < 10, `p50 ${times[4]} ms`); // ≤ 1 ms on a quiet machine; bench:tokens measures it
});

Deno.test("pathological text is estimated within the merge budget instead of blocking for seconds", async () => {
  const ask = (content: string) => ({ messages: [{ role: "user", content }] }) as unknown as MessagesRequest;
  // A 10M-character run of one non-ASCII character took 13 s and ~0.9 GB to merge exactly; spaceless CJK in
  // 250-character pieces merges one new piece after another; a 5M-letter non-ASCII run overflows the regex.
  let cjk = "";
  for (let k = 1; cjk.length < 1_000_000;) {
    for (let j = 0; j < 250; j++) cjk += String.fromCharCode(0x4e00 + (k = (k * 48271) % 2147483647) % 20000);
    cjk += "，";
  }
  for (const text of ["—".repeat(10_000_000), cjk, "é".repeat(5_000_000)]) {
    const started = performance.now();
    assert.equal(await countOpenAiTokens("gpt-4.1", ask(text)), undefined);
    assert.ok(performance.now() - started < 3_000, `${(performance.now() - started).toFixed(0)} ms`);
  }
  // The budget is per request: ordinary text right after counts exactly.
  const prose = "The quick brown fox jumps over the lazy dog. ".repeat(2_000);
  assert.equal(await countOpenAiTokens("gpt-4.1", ask(prose)), 3 + 1 + countTokens(prose) + 3);
});
