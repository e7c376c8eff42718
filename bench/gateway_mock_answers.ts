/**
 * The bench mock's answers, shared by its two servers (gateway_mock_upstream.ts on Deno.serve,
 * gateway_mock_wire.ts on node:net / node:tls): instant OpenAI Chat Completions and Anthropic Messages answers,
 * JSON or SSE of `frames` deltas `gapMs` apart. Each streamed delta carries the time it was sent
 * (`tok3@<ms since the epoch> `, from `performance`), so the bench reads each frame's relay time.
 */
const encoder = new TextEncoder();
/** Placeholder in a frame's text for the time it leaves. */
const SENT_AT = "@SENT_AT";
const TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(20);

/** A Chat Completions answer. */
export const chatCompletion = (model: string) =>
  JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{
      index: 0,
      message: { role: "assistant", content: TEXT, refusal: null },
      finish_reason: "stop",
    }],
    usage: {
      prompt_tokens: 420,
      completion_tokens: 200,
      total_tokens: 620,
      prompt_tokens_details: { cached_tokens: 0 },
    },
  });

/** A Messages answer. */
export const anthropicMessage = (model: string) =>
  JSON.stringify({
    id: "msg_bench",
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: TEXT }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: 420,
      output_tokens: 200,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  });

/** `frames` as a stream, `gapMs` apart, each stamped with its send time. */
export function paced(frames: string[], gapMs: number): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      if (i >= frames.length) return controller.close();
      controller.enqueue(encoder.encode(stamped(frames[i++])));
    },
  });
}

/** Chat Completions SSE frames of `n` deltas. */
export function openAiFrames(model: string, n: number): string[] {
  const base = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model };
  const frames = [];
  for (let i = 0; i < n; i++) {
    frames.push(
      `data: ${
        JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: `tok${i}${SENT_AT} ` } }] })
      }\n\n`,
    );
  }
  frames.push(
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
  );
  frames.push(
    `data: ${
      JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: n } })
    }\n\n`,
  );
  frames.push("data: [DONE]\n\n");
  return frames;
}

/** Messages SSE frames of `n` deltas. */
export function anthropicFrames(model: string, n: number): string[] {
  const ev = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const frames = [
    ev("message_start", {
      type: "message_start",
      message: {
        id: "msg_b",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }) +
    ev("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }),
  ];
  for (let i = 0; i < n; i++) {
    frames.push(ev("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "text_delta", text: `tok${i}${SENT_AT} ` },
    }));
  }
  frames.push(
    ev("content_block_stop", { type: "content_block_stop", index: 0 }) +
      ev("message_delta", {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: n },
      }) + ev("message_stop", { type: "message_stop" }),
  );
  return frames;
}

/** What the mock answers to a request `body` on `path`: status, content type and the body (text or frames). */
export function answerOf(
  path: string,
  body: Record<string, unknown>,
  frames: number,
): { status: number; type: string; text?: string; frames?: string[] } {
  const model = String(body.model);
  const openai = path.endsWith("/chat/completions");
  if (model === "gpt-503") {
    // The "fallback after a 503" lane: an overloaded upstream, answered at once.
    return {
      status: 503,
      type: "application/json",
      text: JSON.stringify({ error: { message: "overloaded" } }),
    };
  }
  if (body.stream) {
    return {
      status: 200,
      type: "text/event-stream",
      frames: openai ? openAiFrames(model, frames) : anthropicFrames(model, frames),
    };
  }
  return {
    status: 200,
    type: "application/json",
    text: openai ? chatCompletion(model) : anthropicMessage(model),
  };
}

/** The frame `frame` as sent now (its send-time placeholders filled in). */
export function stamped(frame: string): string {
  return frame.replaceAll(SENT_AT, `@${(performance.timeOrigin + performance.now()).toFixed(3)}`);
}
