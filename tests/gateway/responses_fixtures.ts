/**
 * Responses API fixtures, written by us from OpenAI's documented shapes: text with cached input, reasoning
 * with two summary parts before a tool call (and the answer on the next turn), parallel calls with arguments
 * split mid-escape, refusal, both incomplete reasons, a failed response, a mid-stream `error` event, a cut
 * stream, raw reasoning text without a summary, unknown events, 429, and structured output.
 */
import type { ResponsesFixture } from "./upstreams/responses_mock.ts";

/** Arguments of the split-escape call, exactly as generated. */
export const RX_ESCAPED_ARGS = '{"path":"C:\\\\Users\\\\ü ñ \\"quoted\\" \\u00e9\\n"}';

const usage = (input: number, output: number, cached = 0, reasoning = 0) => ({
  input,
  output,
  cached,
  reasoning,
});

/** Fixtures that finish (streamed and whole translations must agree). */
export const RESPONSES_OK: Record<string, ResponsesFixture> = {
  "rx-text": { turns: [{ output: [{ type: "message", text: "Hello, world" }], usage: usage(120, 5, 100) }] },
  "gpt-5-reasoning-tool": {
    turns: [
      {
        output: [
          { type: "reasoning", summary: ["**Planning** I need the weather.", "Calling the tool."] },
          { type: "function_call", name: "get_weather", arguments: '{"city":"Paris"}' },
        ],
        usage: usage(80, 60, 0, 40),
      },
      {
        output: [
          { type: "reasoning", summary: ["The tool said sunny."] },
          { type: "message", text: "Sunny in Paris, 21°C." },
        ],
        usage: usage(150, 30, 64, 12),
      },
    ],
  },
  "rx-parallel": {
    turns: [{
      output: [
        { type: "message", text: "Checking both." },
        { type: "function_call", name: "read_file", arguments: RX_ESCAPED_ARGS },
        { type: "function_call", name: "get_weather", arguments: '{"city":"Rome"}' },
      ],
      usage: usage(40, 30),
    }],
  },
  "rx-refusal": {
    turns: [{ output: [{ type: "message", refusal: "I can't help with that." }], usage: usage(9, 6) }],
  },
  "rx-length": {
    turns: [{
      output: [{ type: "message", text: "Truncat" }],
      status: "incomplete",
      incompleteReason: "max_output_tokens",
      usage: usage(9, 16),
    }],
  },
  "rx-filtered": {
    turns: [{
      output: [{ type: "message", text: "I" }],
      status: "incomplete",
      incompleteReason: "content_filter",
      usage: usage(9, 1),
    }],
  },
  "rx-raw-reasoning": {
    turns: [{
      output: [{ type: "reasoning", raw: "Thinking out loud." }, { type: "message", text: "42" }],
      usage: usage(12, 20, 0, 8),
    }],
  },
  "rx-unknown-events": {
    turns: [{ output: [{ type: "message", text: "Still fine." }], usage: usage(5, 3), unknownEvents: true }],
    framing: { splitBytes: 23 },
  },
  "rx-structured": {
    turns: [{
      output: [{ type: "message", structured: { answer: { name: "Ada", age: 36 } } }],
      usage: usage(10, 5),
    }],
  },
};

/** Fixtures that fail. */
export const RESPONSES_FAILING: Record<string, ResponsesFixture> = {
  "rx-failed": {
    turns: [{
      output: [{ type: "message", text: "Part" }],
      status: "failed",
      error: { code: "server_error", message: "The model had an internal error." },
      usage: usage(5, 1),
    }],
  },
  "rx-error-event": {
    turns: [{
      output: [{ type: "message", text: "Half" }],
      errorEvent: { code: "rate_limit_exceeded", message: "Rate limit reached for gpt", status: 429 },
      usage: usage(5, 1),
    }],
  },
  "rx-cut": {
    turns: [{ output: [{ type: "message", text: "Half a sentence" }], usage: usage(5, 5) }],
    framing: { cutAfter: 4 },
  },
  "rx-429": {
    turns: [],
    status: 429,
    errorBody: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } },
    headers: { "retry-after": "3" },
  },
};

/** Every Responses fixture. */
export const RESPONSES_FIXTURES: Record<string, ResponsesFixture> = { ...RESPONSES_OK, ...RESPONSES_FAILING };
