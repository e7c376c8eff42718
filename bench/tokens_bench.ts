/**
 * `count_tokens` with the local tokenizer (OpenAI models): p50/p99 for a Claude-Code-shaped request of about
 * 20k tokens (a long system prompt, 16 tool definitions, a multi-turn conversation with tool calls and
 * results; text taken from this repository's docs and sources, so it is real prose and code).
 *
 * Rows:
 * - first: the first count in the process (loads the encoding; every piece is new);
 * - truly cold: a request never seen, every cache emptied before each count (ours: the exact-string LRU and
 *   the piece table; the reference's: gpt-tokenizer's merge cache): every word piece is merged; with the
 *   reference's figure and the ratio;
 * - unseen text: a request never seen — its own window of the corpus, with words varied per iteration (one in
 *   50 gets a per-iteration number appended, one in 200 is replaced by a made-up word no cache has seen) —
 *   with the piece table warm from counting the corpus once, as in a running gateway; the exact-string LRU
 *   is emptied before each count;
 * - unseen text, every piece known: more new requests (other windows, numbered words, nothing made up);
 * - reference: the same unseen requests counted by the same rules with gpt-tokenizer's plain
 *   `encode(text).length` (its merge cache warm), and the ratio; every count of both is checked equal;
 * - warm: the same request again, parsed from its body each time (new strings) — what Claude Code's next
 *   call costs, since it resends the same system prompt, tools and history;
 * - route: parse + validate + count of that body, the `/v1/messages/count_tokens` handler's own work;
 * - next turn: the same request with a turn added (an assistant tool call and a new 5,600-character tool
 *   result, then a new 2,600-character user message) — Claude Code's steady state, where only the new turn is
 *   counted afresh.
 *
 * Each row gives wall-clock p50/p99; the comparison rows also the p50 of the process's CPU time per count
 * (`process.cpuUsage`: all threads, so it includes GC and compiler threads), steadier than wall time on a
 * shared machine.
 *
 * `deno task bench:tokens [model]` (default gpt-4.1).
 */
import {
  countCacheOf,
  countOpenAiTokens,
  countRequestTokens,
  encodingOf,
  pieceCounterOf,
} from "../gateway/messages/openai_tokens.ts";
import { parseJsonBody, validateCountTokensRequest } from "../gateway/messages/validate.ts";
import type { MessagesRequest } from "../gateway/messages/types.ts";
import process from "node:process";

const MODEL = Deno.args[0] ?? "gpt-4.1";
const ROUNDS = 41;

const root = new URL("../", import.meta.url);
const corpus = (await Promise.all(
  ["docs/gateway.md", "README.md", "docs/auth.md", "docs/compiler.md", "gateway/app.ts"].map((path) =>
    Deno.readTextFile(new URL(path, root))
  ),
)).join("\n");

/** A ~20k-token request from the corpus starting at `offset`, each text passed through `vary`. */
function requestAt(offset: number, vary = (text: string) => text): MessagesRequest {
  let at = offset;
  const take = (chars: number) => {
    const text = corpus.slice(at % corpus.length, (at % corpus.length) + chars);
    at += chars;
    return vary(text);
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

/** A deterministic pseudo-random generator (so runs compare). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

/**
 * `text` with one word in 50 numbered for iteration `round` and (with `madeUp`) one in 200 replaced by a
 * made-up word.
 */
function varied(round: number, madeUp = true): (text: string) => string {
  const next = random(round * 7_919 + 1);
  let words = 0;
  return (text) =>
    text.replace(/[A-Za-z]+/g, (word) => {
      words++;
      if (madeUp && words % 200 === 0) {
        let made = "";
        for (let i = 0, n = 5 + Math.floor(next() * 5); i < n; i++) {
          made += String.fromCharCode(97 + next() * 26);
        }
        return made;
      }
      return words % 50 === 0 ? `${word}${round}` : word;
    });
}

/** p50 and p99 of `times` in ms (sorts them). */
function quantiles(times: number[]): [number, number] {
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return [at(0.5), at(0.99)];
}

function summary(label: string, times: number[], against?: number, cpu?: number[]): number {
  const [p50, p99] = quantiles(times);
  const ratio = against ? `  ${(against / p50).toFixed(1)}× faster than gpt-tokenizer` : "";
  const cpuP50 = cpu ? `  CPU p50 ${quantiles(cpu)[0].toFixed(3)} ms` : "";
  console.log(
    `${label.padEnd(56)} p50 ${p50.toFixed(3)} ms  p99 ${
      p99.toFixed(3)
    } ms  (n=${times.length})${cpuP50}${ratio}`,
  );
  return p50;
}

const encoding = encodingOf(MODEL);
if (!encoding) throw new Error(`${MODEL} is not an OpenAI model: nothing to count locally`);

const body = JSON.stringify(requestAt(0));
let start = performance.now();
const tokens = await countOpenAiTokens(MODEL, JSON.parse(body));
console.log(`${MODEL}: ${tokens} tokens, ${body.length} bytes of body`);
console.log(`${"first count (loads the encoding)".padEnd(52)} ${(performance.now() - start).toFixed(1)} ms`);

const cache = await countCacheOf(encoding);
const pieces = await pieceCounterOf(encoding);
const gptTokenizer = encoding === "o200k_base"
  ? await import("gpt-tokenizer/encoding/o200k_base")
  : await import("gpt-tokenizer/encoding/cl100k_base");
const noSpecial = { disallowedSpecial: new Set<string>() };
const reference = (text: string) => gptTokenizer.encode(text, noSpecial).length;

/** Times `count` over `requests` (the first `skip` are warm-up), with `before` run untimed before each. */
async function timeEach(
  requests: MessagesRequest[],
  count: (request: MessagesRequest) => unknown,
  before: () => void,
  skip: number,
): Promise<{ times: number[]; cpu: number[]; counts: unknown[] }> {
  const times: number[] = [];
  const cpu: number[] = [];
  const counts: unknown[] = [];
  for (const [i, request] of requests.entries()) {
    before();
    const cpuStart = process.cpuUsage();
    start = performance.now();
    counts.push(await count(request));
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpuStart);
    if (i < skip) continue;
    times.push(wall);
    cpu.push((used.user + used.system) / 1_000);
  }
  return { times, cpu, counts };
}

const ours = (request: MessagesRequest) => countOpenAiTokens(MODEL, request);
const theirs = (request: MessagesRequest) => countRequestTokens(MODEL, encoding, request, reference);
const sameCounts = (a: unknown[], b: unknown[], what: string) => {
  const at = a.findIndex((count, i) => count !== b[i]);
  if (at >= 0) throw new Error(`${what} #${at}: ${a[at]} tokens, gpt-tokenizer's encode ${b[at]}`);
};

// Truly cold: every cache emptied before each count (ours: exact-string LRU and piece table; gpt-tokenizer:
// its merge cache), so every word piece is merged.
const coldRequests = Array.from(
  { length: ROUNDS },
  (_, i) => requestAt(i * 9_973 + 500_000, varied(1_000 + i)),
);
const coldOurs = await timeEach(coldRequests, ours, () => (cache.clear(), pieces.clear()), 0);
const coldTheirs = await timeEach(coldRequests, theirs, () => gptTokenizer.clearMergeCache(), 0);
sameCounts(coldOurs.counts, coldTheirs.counts, "truly cold");
const coldReference = summary(
  "reference, truly cold (gpt-tokenizer, merge cache empty)",
  coldTheirs.times,
  undefined,
  coldTheirs.cpu,
);
summary("truly cold: new request, every cache empty", coldOurs.times, coldReference, coldOurs.cpu);

// A running gateway has counted such text before: its word pieces are known, whole strings are not. Each
// side runs its own loop, so neither evicts the other's caches from the CPU's.
pieces.count(corpus);
const unseenRequests = Array.from({ length: ROUNDS * 2 }, (_, i) => requestAt(i * 9_973, varied(i)));
const unseenTheirs = await timeEach(unseenRequests, theirs, () => {}, ROUNDS / 2);
const unseenOurs = await timeEach(unseenRequests, ours, () => cache.clear(), ROUNDS / 2);
sameCounts(unseenOurs.counts, unseenTheirs.counts, "unseen");
const unseenReference = summary(
  "reference: gpt-tokenizer encode(text).length, same rules",
  unseenTheirs.times,
  undefined,
  unseenTheirs.cpu,
);
summary("unseen text (pieces warm, 0.5% made-up words)", unseenOurs.times, unseenReference, unseenOurs.cpu);
// New text whose every piece is known (numbered words only): the scan and the table, no merge.
const knownRequests = Array.from(
  { length: ROUNDS * 2 },
  (_, i) => requestAt(i * 9_973 + 250_000, varied(10_000 + i, false)),
);
const known = await timeEach(knownRequests, ours, () => cache.clear(), 0);
summary("unseen text, every piece known (no made-up words)", known.times, undefined, known.cpu);
console.log(
  `  (counts equal to gpt-tokenizer's on all ${coldRequests.length + unseenRequests.length} requests)`,
);

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
