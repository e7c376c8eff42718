/**
 * A mock Anthropic Messages API (`/v1/messages` JSON and SSE, `/v1/messages/count_tokens`). A fixture is a
 * native event list; the whole answer is the same events accumulated into a Message.
 */
import { type Framing, namedFrame, sseBody } from "./sse_body.ts";
import {
  cutJson,
  type FixtureEntry,
  fixtureFor,
  json,
  type MockUpstream,
  sse,
  startMock,
} from "./mock_server.ts";

/** One scripted generation as native events `[name, payload]`. */
export interface AnthropicFixture {
  /** The events, starting with message_start and ending with message_stop. */
  events: Array<[string, Record<string, unknown>]>;
  /** Stream framing. */
  framing?: Framing;
  /** Answer with this HTTP error status (Anthropic error body). */
  status?: number;
  /** Error type for `status`. */
  errorType?: string;
}

/** Accumulates native events into the Message a non-streaming call returns. */
export function accumulateAnthropic(fixture: AnthropicFixture): Record<string, unknown> {
  let message: Record<string, unknown> = {};
  const content: Array<Record<string, unknown>> = [];
  const buffers: string[] = [];
  for (const [name, data] of fixture.events) {
    if (name === "message_start") message = structuredClone(data.message as Record<string, unknown>);
    if (name === "content_block_start") {
      content[data.index as number] = structuredClone(data.content_block as Record<string, unknown>);
      buffers[data.index as number] = "";
    }
    if (name === "content_block_delta") {
      const block = content[data.index as number];
      const d = data.delta as Record<string, string>;
      if (d.type === "text_delta") block.text = String(block.text) + d.text;
      if (d.type === "thinking_delta") block.thinking = String(block.thinking) + d.thinking;
      if (d.type === "signature_delta") block.signature = d.signature;
      if (d.type === "input_json_delta") buffers[data.index as number] += d.partial_json;
    }
    if (name === "content_block_stop") {
      const block = content[data.index as number];
      if (block.type === "tool_use") {
        const buffer = buffers[data.index as number];
        block.input = buffer ? JSON.parse(buffer) : {};
      }
    }
    if (name === "message_delta") {
      Object.assign(message, data.delta);
      message.usage = { ...(message.usage as object), ...(data.usage as object) };
    }
  }
  return { ...message, content };
}

/** Starts the mock; requests must carry `x-api-key: <apiKey>`. */
export function startAnthropicMock(
  fixtures: Record<string, FixtureEntry<AnthropicFixture>>,
  apiKey: string,
): Promise<MockUpstream> {
  return startMock((request, mock) => {
    if (request.headers["x-api-key"] !== apiKey) {
      return json(
        { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
        401,
      );
    }
    if (request.path.startsWith("/v1/messages/count_tokens")) {
      return json({ input_tokens: 4242 });
    }
    const model = String(request.body.model);
    const fixture = fixtureFor(fixtures, model, request);
    if (!fixture) {
      return json({ type: "error", error: { type: "not_found_error", message: `model: ${model}` } }, 404);
    }
    if (fixture.status) {
      return json(
        { type: "error", error: { type: fixture.errorType, message: "Overloaded" } },
        fixture.status,
      );
    }
    if (request.body.stream !== true) {
      if (fixture.framing?.cutAfter !== undefined) return cutJson({ type: "message", content: [] });
      return json(accumulateAnthropic(fixture));
    }
    const frames = fixture.events.map(([name, data]) => namedFrame(name, data));
    return sse(sseBody(frames, fixture.framing, () => mock.cancelled++));
  });
}
