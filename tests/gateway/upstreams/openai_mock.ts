/**
 * A mock OpenAI Chat Completions server. Each fixture is one generation expressed as stream chunks; the
 * non-streaming answer is the same generation accumulated into a `chat.completion`, as OpenAI would return
 * it, so streamed and whole translations of one fixture must agree.
 */
import { dataFrame, type Framing, sseBody } from "./sse_body.ts";
import {
  cutJson,
  type FixtureEntry,
  fixtureFor,
  json,
  type MockUpstream,
  sse,
  startMock,
} from "./mock_server.ts";

/** One scripted generation. */
export interface OpenAiFixture {
  /** Partial chunks (`choices`, `usage`, `error`); id/object/model are filled in. */
  chunks: Array<Record<string, unknown>>;
  /** Usage sent in the final `choices: []` chunk (when the request asks for it) and in the whole answer. */
  usage?: Record<string, unknown>;
  /** Stream framing. */
  framing?: Framing;
  /** Omit `data: [DONE]`. */
  noDone?: boolean;
  /** Answer with this HTTP error status instead. */
  status?: number;
  /** Error body for `status`. */
  errorBody?: unknown;
  /** Extra response headers for `status`. */
  headers?: Record<string, string>;
  /** Milliseconds to wait before answering at all (before any header). */
  headersDelayMs?: number;
}

/** A chunk with one choice delta. */
export function delta(
  value: Record<string, unknown>,
  finishReason: string | null = null,
): Record<string, unknown> {
  return { choices: [{ index: 0, delta: value, finish_reason: finishReason }] };
}

interface Call {
  id?: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Accumulates stream chunks into the equivalent whole `chat.completion`. */
export function accumulateChatCompletion(fixture: OpenAiFixture, model: string): Record<string, unknown> {
  let content: string | null = null;
  let reasoning: string | null = null;
  let finish: string | null = null;
  const calls: Call[] = [];
  for (const chunk of fixture.chunks) {
    for (const choice of (chunk.choices ?? []) as Array<Record<string, unknown>>) {
      const d = (choice.delta ?? {}) as Record<string, unknown>;
      if (typeof d.content === "string") content = (content ?? "") + d.content;
      if (typeof d.reasoning_content === "string") reasoning = (reasoning ?? "") + d.reasoning_content;
      for (const tc of (d.tool_calls ?? []) as Array<Record<string, unknown>>) {
        const index = tc.index as number;
        const fn = (tc.function ?? {}) as { name?: string; arguments?: string };
        calls[index] ??= { type: "function", function: { name: "", arguments: "" } };
        if (tc.id) calls[index].id = tc.id as string;
        if (fn.name) calls[index].function.name += fn.name;
        if (fn.arguments) calls[index].function.arguments += fn.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason as string;
    }
  }
  const message: Record<string, unknown> = { role: "assistant", content, refusal: null };
  if (reasoning !== null) message.reasoning_content = reasoning;
  if (calls.length) message.tool_calls = calls.filter(Boolean);
  return {
    id: "chatcmpl-mock",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: fixture.usage,
  };
}

/** Starts the mock; requests must carry `Authorization: Bearer <apiKey>`. */
export function startOpenAiMock(
  fixtures: Record<string, FixtureEntry<OpenAiFixture>>,
  apiKey: string,
): Promise<MockUpstream> {
  return startMock(async (request, mock) => {
    const model = String(request.body.model);
    const fixture = fixtureFor(fixtures, model, request);
    const delay = fixture?.headersDelayMs;
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return json({ error: { message: "Incorrect API key provided", type: "invalid_request_error" } }, 401);
    }
    if (!request.path.endsWith("/chat/completions")) {
      return json({ error: { message: "no such route" } }, 404);
    }
    if (!fixture) {
      return json(
        { error: { message: `The model \`${model}\` does not exist`, code: "model_not_found" } },
        404,
      );
    }
    if (fixture.status) return json(fixture.errorBody ?? {}, fixture.status, fixture.headers);
    if (request.body.stream !== true) {
      const whole = accumulateChatCompletion(fixture, model);
      return fixture.framing?.cutAfter !== undefined ? cutJson(whole) : json(whole);
    }
    const base = { id: "chatcmpl-mock", object: "chat.completion.chunk", created: 1_700_000_000, model };
    const frames = fixture.chunks.map((chunk) => dataFrame({ ...base, ...chunk }));
    const options = request.body.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage && fixture.usage) {
      frames.push(dataFrame({ ...base, choices: [], usage: fixture.usage }));
    }
    if (!fixture.noDone) frames.push(dataFrame("[DONE]"));
    return sse(sseBody(frames, fixture.framing, () => mock.cancelled++));
  });
}
