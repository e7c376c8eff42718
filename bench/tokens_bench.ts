/**
 * `count_tokens` with the local tokenizer (OpenAI models): p50/p99 for a Claude-Code-shaped request of about
 * 20k tokens (a long system prompt, 16 tool definitions, a multi-turn conversation with tool calls and
 * results; text taken from this repository's docs and sources, so it is real prose and code).
 *
 * Rows:
 * - first: the first count in the process (loads the encoding);
 * - cold: a request never seen before (its own window of the text, count cache empty) — what a new
 *   conversation costs; gpt-tokenizer's own merge cache stays warm, as in a running gateway;
 * - warm: the same request again, parsed from its body each time (new strings) — what Claude Code's next
 *   call costs, since it resends the same system prompt, tools and history;
 * - route: parse + validate + count of that body, the `/v1/messages/count_tokens` handler's own work;
 * - next turn: the same request with a turn added (an assistant tool call and a new 5,600-character tool
 *   result, then a new 2,600-character user message) — Claude Code's steady state, where only the new turn is
 *   counted afresh.
 *
 * `deno task bench:tokens [model]` (default gpt-4.1).
 */
import { countCacheOf, countOpenAiTokens, encodingOf } from "../gateway/messages/openai_tokens.ts";
import { parseJsonBody, validateCountTokensRequest } from "../gateway/messages/validate.ts";
import type { MessagesRequest } from "../gateway/messages/types.ts";

const MODEL = Deno.args[0] ?? "gpt-4.1";
const ROUNDS = 41;

const root = new URL("../", import.meta.url);
const corpus = (await Promise.all(
  ["docs/gateway.md", "README.md", "docs/auth.md", "docs/compiler.md", "gateway/app.ts"].map((path) =>
    Deno.readTextFile(new URL(path, root))
  ),
)).join("\n");

/** A ~20k-token request from the corpus starting at `offset`. */
function requestAt(offset: number): MessagesRequest {
  let at = offset;
  const take = (chars: number) => {
    const text = corpus.slice(at % corpus.length, (at % corpus.length) + chars);
    at += chars;
    return text;
  };
  const tools = Array.from({ length: 16 }, (_, i) => ({
    name: `Tool${i}`,
    description: take(1_200),
    input_schema: {
      type: "object",
      properties: {
        path: { type: "string", description: take(120) },
        mode: { type: "string", enum: ["read", "write", "append"], description: "How to open it." },
        lines: { type: "array", items: { type: "integer" }, description: "Line numbers." },
      },
      required: ["path"],
    },
  }));
  const messages: unknown[] = [];
  for (let turn = 0; turn < 6; turn++) {
    messages.push({ role: "user", content: [{ type: "text", text: take(2_600) }] });
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: take(400) },
        { type: "tool_use", id: `toolu_${turn}`, name: "Tool1", input: { path: take(40), mode: "read" } },
      ],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: take(5_600) }],
    });
  }
  messages.push({ role: "user", content: "Go on." });
  return {
    model: MODEL,
    system: [{ type: "text", text: take(18_000) }],
    tools,
    messages,
  } as unknown as MessagesRequest;
}

function summary(label: string, times: number[]): void {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3);
  console.log(`${label.padEnd(52)} p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  (n=${times.length})`);
}

const encoding = encodingOf(MODEL);
if (!encoding) throw new Error(`${MODEL} is not an OpenAI model: nothing to count locally`);

const body = JSON.stringify(requestAt(0));
let start = performance.now();
const tokens = await countOpenAiTokens(MODEL, JSON.parse(body));
console.log(`${MODEL}: ${tokens} tokens, ${body.length} bytes of body`);
console.log(`${"first count (loads the encoding)".padEnd(52)} ${(performance.now() - start).toFixed(1)} ms`);

const cache = await countCacheOf(encoding);
const cold: number[] = [];
for (let i = 1; i <= ROUNDS; i++) {
  const request = requestAt(i * 9_973); // a window of the corpus this run has not counted yet
  cache.clear();
  start = performance.now();
  await countOpenAiTokens(MODEL, request);
  cold.push(performance.now() - start);
}
summary("cold: a new 20k-token request", cold);

await countOpenAiTokens(MODEL, JSON.parse(body));
const warm: number[] = [];
const route: number[] = [];
for (let i = 0; i < ROUNDS * 5; i++) {
  const request = JSON.parse(body);
  start = performance.now();
  await countOpenAiTokens(MODEL, request);
  warm.push(performance.now() - start);
  start = performance.now();
  await countOpenAiTokens(MODEL, validateCountTokensRequest(parseJsonBody(body)));
  route.push(performance.now() - start);
}
summary("warm: the same request again (count only)", warm);
summary("route: parse + validate + count of the same body", route);

const nextTurn: number[] = [];
for (let i = 1; i <= ROUNDS; i++) {
  const request = JSON.parse(body) as { messages: unknown[] };
  const fresh = requestAt(i * 7_919 + 3_001).messages as Array<{ content: unknown }>;
  request.messages.pop(); // the trailing "Go on."
  request.messages.push(
    {
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_n${i}`, name: "Tool1", input: { path: "x" } }],
    },
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_n${i}`, content: fresh[2].content }],
    },
    { role: "user", content: fresh[0].content },
  );
  start = performance.now();
  await countOpenAiTokens(MODEL, request as unknown as MessagesRequest);
  nextTurn.push(performance.now() - start);
}
summary("next turn: history seen, one new turn (~2k tokens)", nextTurn);
console.log(`count cache: ${cache.size.entries} strings, ${cache.size.chars} characters`);
