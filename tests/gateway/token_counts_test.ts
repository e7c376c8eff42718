/**
 * count_tokens for OpenAI models against a recorded set of real-shaped requests (tools, images, long system
 * prompts, multi-turn with tool results): within 2% of each recorded count. Each entry names its source:
 * `api` — the count OpenAI's API returned, as published (OpenAI's cookbook; measurements posted to OpenAI's
 * forum), required exactly; `reference` — computed by
 * token_counts/reference.ts with OpenAI's own tiktoken (not the gpt-tokenizer code under test) and OpenAI's
 * published message, tool and image rules.
 */
import assert from "node:assert/strict";
import { countOpenAiTokens } from "../../gateway/messages/openai_tokens.ts";
import type { MessagesRequest } from "../../gateway/messages/types.ts";

interface Entry {
  name: string;
  model: string;
  source: "api" | "reference";
  cite: string;
  request: MessagesRequest;
  expected: number;
}

const entries = JSON.parse(
  await Deno.readTextFile(new URL("./token_counts/openai_counts.json", import.meta.url)),
) as Entry[];

Deno.test("the recorded set has at least 30 requests of every shape, each with its source", () => {
  assert.ok(entries.length >= 30, String(entries.length));
  assert.ok(
    entries.every((e) => e.cite && e.expected > 0 && (e.source === "api" || e.source === "reference")),
  );
  const has = (test: (e: Entry) => boolean) => entries.filter(test).length;
  const blocks = (e: Entry) => e.request.messages.flatMap((m) => Array.isArray(m.content) ? m.content : []);
  assert.ok(has((e) => (e.request.tools?.length ?? 0) > 0) >= 10);
  assert.ok(has((e) => blocks(e).some((b) => b.type === "image" || b.type === "tool_result")) >= 10);
  assert.ok(has((e) => JSON.stringify(e.request.system ?? "").length > 5_000) >= 5);
  assert.ok(has((e) => e.source === "api") >= 15);
});

for (const entry of entries) {
  Deno.test(`count_tokens within 2%: ${entry.name}`, async () => {
    const counted = await countOpenAiTokens(entry.model, entry.request);
    assert.ok(counted !== undefined);
    const off = Math.abs(counted - entry.expected) / entry.expected;
    assert.ok(off <= 0.02, `${counted} vs ${entry.expected} (${(off * 100).toFixed(2)}%, ${entry.cite})`);
    if (entry.source === "api") assert.equal(counted, entry.expected, entry.cite);
  });
}

Deno.test("how close: exact matches over the set", async () => {
  let exact = 0;
  let worst = 0;
  for (const entry of entries) {
    const counted = (await countOpenAiTokens(entry.model, entry.request))!;
    if (counted === entry.expected) exact++;
    worst = Math.max(worst, Math.abs(counted - entry.expected) / entry.expected);
  }
  console.log(`${exact}/${entries.length} exact, worst ${(worst * 100).toFixed(3)}%`);
  assert.ok(exact >= entries.length / 2);
});
