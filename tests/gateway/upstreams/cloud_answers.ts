/**
 * The scripted model behind the Bedrock and Vertex stand-ins: one abstract answer per request (a tool call
 * when tools are offered and the last turn is not a tool result, else text that quotes the tool result it
 * got), rendered in each wire format — Anthropic events and message, Converse events and body, Gemini
 * chunks. Deciding from the request makes a tool round trip observable end to end.
 */

/** What the scripted model answers. */
export type Answer =
  | { kind: "text"; parts: string[] }
  | { kind: "tool"; id: string; name: string; args: string[] };

/** Usage every answer reports. */
export const USAGE = { input: 12, output: 5, cacheRead: 3 };

/** Decides the answer: `tools` offered, and the text of the last turn's tool result, if any. */
export function decideAnswer(toolName: string | undefined, lastToolResult: string | undefined): Answer {
  if (lastToolResult !== undefined) return { kind: "text", parts: ["Tool said: ", lastToolResult] };
  if (toolName) return { kind: "tool", id: "toolu_cloud_1", name: toolName, args: ['{"city":', '"Paris"}'] };
  return { kind: "text", parts: ["Hello", ", world"] };
}

/** The Anthropic stream events of an answer (Bedrock InvokeModel, Vertex rawPredict). */
export function anthropicEvents(answer: Answer, model: string): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [{
    type: "message_start",
    message: {
      id: "msg_cloud_1",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: USAGE.input, output_tokens: 1, cache_read_input_tokens: USAGE.cacheRead },
    },
  }];
  if (answer.kind === "text") {
    events.push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    for (const text of answer.parts) {
      events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } });
    }
  } else {
    events.push({
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: answer.id, name: answer.name, input: {} },
    });
    for (const partial_json of answer.args) {
      events.push({
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json },
      });
    }
  }
  events.push({ type: "content_block_stop", index: 0 });
  events.push({
    type: "message_delta",
    delta: { stop_reason: answer.kind === "tool" ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: USAGE.output },
  });
  events.push({ type: "message_stop" });
  return events;
}

/** The whole Anthropic message of an answer. */
export function anthropicMessage(answer: Answer, model: string): Record<string, unknown> {
  return {
    id: "msg_cloud_1",
    type: "message",
    role: "assistant",
    model,
    content: answer.kind === "text"
      ? [{ type: "text", text: answer.parts.join("") }]
      : [{ type: "tool_use", id: answer.id, name: answer.name, input: JSON.parse(answer.args.join("")) }],
    stop_reason: answer.kind === "tool" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: USAGE.input,
      output_tokens: USAGE.output,
      cache_read_input_tokens: USAGE.cacheRead,
    },
  };
}

const converseUsage = {
  inputTokens: USAGE.input,
  outputTokens: USAGE.output,
  cacheReadInputTokens: USAGE.cacheRead,
  totalTokens: USAGE.input + USAGE.output + USAGE.cacheRead,
};

/** ConverseStream's events of an answer, as [event type, payload]. */
export function converseEvents(answer: Answer): Array<[string, Record<string, unknown>]> {
  const events: Array<[string, Record<string, unknown>]> = [["messageStart", { role: "assistant" }]];
  if (answer.kind === "text") {
    for (const text of answer.parts) {
      events.push(["contentBlockDelta", { contentBlockIndex: 0, delta: { text } }]);
    }
  } else {
    events.push(["contentBlockStart", {
      contentBlockIndex: 0,
      start: { toolUse: { toolUseId: answer.id, name: answer.name } },
    }]);
    for (const input of answer.args) {
      events.push(["contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input } } }]);
    }
  }
  events.push(["contentBlockStop", { contentBlockIndex: 0 }]);
  events.push(["messageStop", { stopReason: answer.kind === "tool" ? "tool_use" : "end_turn" }]);
  events.push(["metadata", { usage: converseUsage, metrics: { latencyMs: 42 } }]);
  return events;
}

/** The whole Converse response of an answer. */
export function converseBody(answer: Answer): Record<string, unknown> {
  return {
    output: {
      message: {
        role: "assistant",
        content: answer.kind === "text" ? [{ text: answer.parts.join("") }] : [{
          toolUse: { toolUseId: answer.id, name: answer.name, input: JSON.parse(answer.args.join("")) },
        }],
      },
    },
    stopReason: answer.kind === "tool" ? "tool_use" : "end_turn",
    usage: converseUsage,
    metrics: { latencyMs: 42 },
  };
}

/** streamGenerateContent's chunks of an answer (Gemini calls arrive whole). */
export function geminiChunks(answer: Answer): Array<Record<string, unknown>> {
  const usageMetadata = {
    promptTokenCount: USAGE.input + USAGE.cacheRead,
    cachedContentTokenCount: USAGE.cacheRead,
    candidatesTokenCount: USAGE.output,
  };
  if (answer.kind === "tool") {
    return [{
      candidates: [{
        content: {
          role: "model",
          parts: [{ functionCall: { name: answer.name, args: JSON.parse(answer.args.join("")) } }],
        },
        finishReason: "STOP",
      }],
      usageMetadata,
    }];
  }
  return answer.parts.map((text, i) => ({
    candidates: [{
      content: { role: "model", parts: [{ text }] },
      ...(i === answer.parts.length - 1 ? { finishReason: "STOP" } : {}),
    }],
    ...(i === answer.parts.length - 1 ? { usageMetadata } : {}),
  }));
}
