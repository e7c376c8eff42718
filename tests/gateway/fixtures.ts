/**
 * Upstream fixtures, written by us from the providers' documented wire shapes, including the adversarial
 * shapes seen in the wild: tool arguments split mid-escape and mid-UTF-8, a whole call in one chunk,
 * sequential and interleaved parallel calls, usage-only chunks, `tool_calls: []` with content, CRLF framing
 * with comments, a cut connection, 429 with retry-after and a slow first byte.
 */
import type { AnthropicFixture } from "./upstreams/anthropic_mock.ts";
import type { GeminiFixture } from "./upstreams/gemini_mock.ts";
import { delta, type OpenAiFixture } from "./upstreams/openai_mock.ts";

const usage = (prompt: number, completion: number, cached = 0) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: cached },
  completion_tokens_details: { reasoning_tokens: 0 },
});

const call = (index: number, id: string | undefined, name: string | undefined, args: string) => ({
  index,
  ...(id ? { id, type: "function" } : {}),
  function: { ...(name ? { name } : {}), arguments: args },
});

/** Arguments of the split-escape fixture, exactly as the upstream streams them. */
export const SPLIT_ESCAPE_ARGS = ['{"path": "C:\\', "\\Users\\\\ü", 'ñ \\"q', 'uoted\\" \\u00e9\\n', '"}'];

/** OpenAI-wire fixtures that finish normally (streamed and whole translations must agree). */
export const OPENAI_OK: Record<string, OpenAiFixture> = {
  "fx-text": {
    chunks: [
      delta({ role: "assistant", content: "" }),
      delta({ content: "Hello" }),
      delta({ content: ", world" }),
      delta({}, "stop"),
    ],
    usage: usage(120, 5, 100),
  },
  "fx-split-escape": {
    chunks: [
      delta({ role: "assistant", content: null, tool_calls: [call(0, "call_esc1", "read_file", "")] }),
      ...SPLIT_ESCAPE_ARGS.map((args) => delta({ tool_calls: [call(0, undefined, undefined, args)] })),
      delta({}, "tool_calls"),
    ],
    usage: usage(50, 20),
    framing: { splitBytes: 7 },
  },
  "fx-whole-call": {
    chunks: [
      {
        choices: [{
          index: 0,
          delta: {
            role: "assistant",
            tool_calls: [call(0, "call_whole", "get_weather", '{"city":"Paris"}')],
          },
          finish_reason: "tool_calls",
        }],
      },
    ],
    usage: usage(30, 9),
  },
  "fx-parallel": {
    chunks: [
      delta({ content: "Checking both." }),
      delta({ tool_calls: [call(0, "call_p1", "get_weather", '{"city":')] }),
      delta({ tool_calls: [call(0, undefined, undefined, '"Paris"}')] }),
      delta({ tool_calls: [call(1, "call_p2", "get_weather", '{"city":"Rome"}')] }),
      delta({}, "tool_calls"),
    ],
    usage: usage(40, 30),
  },
  "fx-interleaved": {
    chunks: [
      delta({ tool_calls: [call(0, "call_i1", "get_weather", '{"ci')] }),
      delta({ tool_calls: [call(1, "call_i2", "get_time", '{"zo')] }),
      delta({ tool_calls: [call(0, undefined, undefined, 'ty":"Oslo"}')] }),
      delta({ tool_calls: [call(1, undefined, undefined, 'ne":"CET"}')] }),
      delta({}, "tool_calls"),
    ],
    usage: usage(40, 30),
  },
  "fx-empty-tool-calls": {
    chunks: [
      delta({ role: "assistant", content: "Plain ", tool_calls: [] }),
      delta({ content: "text.", tool_calls: [] }),
      { choices: [{ index: 0, delta: { content: "!" }, finish_reason: "stop" }] },
    ],
    usage: usage(10, 3),
  },
  "fx-crlf-comments": {
    chunks: [delta({ content: "Framed " }), delta({ content: "oddly" }), delta({}, "stop")],
    usage: usage(12, 2),
    framing: { crlf: true, comments: true },
  },
  "fx-reasoning": {
    chunks: [
      delta({ reasoning_content: "Let me think" }),
      delta({ reasoning_content: " about it." }),
      delta({ content: "42" }),
      delta({}, "stop"),
    ],
    usage: usage(15, 40),
  },
  "fx-filtered": {
    chunks: [delta({ content: "I can't" }), delta({}, "content_filter")],
    usage: usage(9, 2),
  },
  "fx-length": {
    chunks: [delta({ content: "Truncat" }), delta({}, "length")],
    usage: usage(9, 1),
  },
  "fx-slow": {
    chunks: [delta({ content: "late" }), delta({}, "stop")],
    usage: usage(5, 1),
    framing: { firstByteDelayMs: 200 },
  },
  "fx-slow-headers": {
    chunks: [delta({ content: "very late" }), delta({}, "stop")],
    usage: usage(5, 2),
    headersDelayMs: 300,
  },
};

/** OpenAI-wire fixtures that fail. */
export const OPENAI_FAILING: Record<string, OpenAiFixture> = {
  "fx-cut": {
    chunks: [delta({ content: "Half a sent" }), delta({ content: "ence" }), delta({}, "stop")],
    usage: usage(5, 5),
    framing: { cutAfter: 1 },
  },
  "fx-429": {
    chunks: [],
    status: 429,
    errorBody: { error: { message: "Rate limit reached for requests", type: "requests" } },
    headers: { "retry-after": "7" },
  },
  "fx-slow-429": {
    chunks: [],
    status: 429,
    errorBody: { error: { message: "Rate limit reached for requests" } },
    headersDelayMs: 400,
  },
  "fx-503": { chunks: [], status: 503, errorBody: { error: { message: "The server is overloaded" } } },
  "fx-midstream-error": {
    chunks: [delta({ content: "Start" }), { error: { message: "provider crashed", code: 502 } }],
  },
  "fx-bad-args": {
    chunks: [
      delta({ tool_calls: [call(0, "call_bad", "f", '{"a": 1, "b": "unterm')] }),
      delta({}, "tool_calls"),
    ],
    usage: usage(5, 5),
  },
  "fx-endless": {
    chunks: Array.from({ length: 400 }, (_, i) => delta({ content: `${i} ` })),
    framing: { gapMs: 10 },
  },
};

/** Every OpenAI-wire fixture. */
export const OPENAI_FIXTURES: Record<string, OpenAiFixture> = { ...OPENAI_OK, ...OPENAI_FAILING };

const geminiUsage = (prompt: number, candidates: number, cached = 0, thoughts = 0) => ({
  promptTokenCount: prompt,
  candidatesTokenCount: candidates,
  cachedContentTokenCount: cached,
  thoughtsTokenCount: thoughts,
  totalTokenCount: prompt + candidates + thoughts,
});

const candidate = (parts: unknown[], finishReason?: string) => ({
  content: { role: "model", parts },
  ...(finishReason ? { finishReason } : {}),
  index: 0,
});

/** Gemini fixtures that finish normally. */
export const GEMINI_OK: Record<string, GeminiFixture> = {
  "gx-text": {
    chunks: [
      { candidates: [candidate([{ text: "Bonjour" }])], usageMetadata: geminiUsage(20, 1) },
      { candidates: [candidate([{ text: " tout le monde" }], "STOP")], usageMetadata: geminiUsage(20, 4, 8) },
    ],
  },
  "gx-call": {
    chunks: [
      { candidates: [candidate([{ text: "Looking it up." }])] },
      {
        candidates: [candidate([{
          functionCall: { name: "get_weather", args: { city: "Zürich", days: 2 } },
          thoughtSignature: "c2lnLWdlbWluaS0z",
        }], "STOP")],
        usageMetadata: geminiUsage(33, 12),
      },
    ],
  },
  "gx-thinking": {
    chunks: [
      { candidates: [candidate([{ text: "Pondering", thought: true }])] },
      { candidates: [candidate([{ text: " deeply", thought: true, thoughtSignature: "dGhvdWdodA==" }])] },
      { candidates: [candidate([{ text: "Answer." }], "STOP")], usageMetadata: geminiUsage(10, 2, 0, 7) },
    ],
  },
  "gx-safety": {
    chunks: [{ candidates: [candidate([{ text: "I" }], "SAFETY")], usageMetadata: geminiUsage(8, 1) }],
  },
  "gx-crlf": {
    chunks: [
      { candidates: [candidate([{ text: "crlf " }])] },
      { candidates: [candidate([{ text: "framed" }], "STOP")], usageMetadata: geminiUsage(4, 2) },
    ],
    framing: { crlf: true, splitBytes: 5 },
  },
};

/** Gemini fixtures that fail. */
export const GEMINI_FAILING: Record<string, GeminiFixture> = {
  "gx-cut": {
    chunks: [
      { candidates: [candidate([{ text: "Half" }])] },
      { candidates: [candidate([{ text: " more" }], "STOP")] },
    ],
    framing: { cutAfter: 1 },
  },
  "gx-429": { chunks: [], status: 429, errorStatus: "RESOURCE_EXHAUSTED" },
  "gx-malformed-call": {
    chunks: [{ candidates: [candidate([], "MALFORMED_FUNCTION_CALL")], usageMetadata: geminiUsage(3, 0) }],
  },
};

/** Every Gemini fixture. */
export const GEMINI_FIXTURES: Record<string, GeminiFixture> = { ...GEMINI_OK, ...GEMINI_FAILING };

const start = (model: string, input: number) =>
  [
    "message_start",
    {
      type: "message_start",
      message: {
        id: "msg_native",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: {
          input_tokens: input,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    },
  ] as [string, Record<string, unknown>];

/** Native Anthropic fixtures. */
export const ANTHROPIC_FIXTURES: Record<string, AnthropicFixture> = {
  "claude-fx-tool": {
    events: [
      start("claude-fx-tool", 377),
      ["content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" },
      }],
      ["ping", { type: "ping" }],
      ["content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "Sure." },
      }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      [
        "content_block_start",
        {
          type: "content_block_start",
          index: 1,
          content_block: { type: "tool_use", id: "toolu_native", name: "get_weather", input: {} },
        },
      ],
      [
        "content_block_delta",
        {
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: '{"city": "Ly' },
        },
      ],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: 'on"}' } },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 1 }],
      [
        "message_delta",
        {
          type: "message_delta",
          delta: { stop_reason: "tool_use", stop_sequence: null, stop_details: null },
          usage: { output_tokens: 65 },
        },
      ],
      ["message_stop", { type: "message_stop" }],
    ],
  },
  "claude-fx-cut": {
    events: [
      start("claude-fx-cut", 10),
      ["content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "text", text: "" },
      }],
      ["content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "Hal" },
      }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ],
    framing: { cutAfter: 3 },
  },
  "claude-fx-overloaded": { events: [], status: 529, errorType: "overloaded_error" },
};

// The tool fixture paced, so the upstream body ends a few ms after `message_stop` (connection reuse test).
ANTHROPIC_FIXTURES["claude-fx-paced"] = { ...ANTHROPIC_FIXTURES["claude-fx-tool"], framing: { gapMs: 5 } };
