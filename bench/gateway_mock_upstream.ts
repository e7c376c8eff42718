/**
 * Benchmark upstream, run in a Worker: instant OpenAI Chat Completions and Anthropic Messages answers
 * (JSON, or SSE of `frames` deltas `gapMs` apart), so the gateway's own cost is what the bench measures.
 */
/// <reference lib="deno.worker" />

const encoder = new TextEncoder();
const TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(20);

const chatCompletion = (model: string) =>
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

const anthropicMessage = (model: string) =>
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

function paced(frames: string[], gapMs: number): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      if (i >= frames.length) return controller.close();
      controller.enqueue(encoder.encode(frames[i++]));
    },
  });
}

function openAiFrames(model: string, n: number): string[] {
  const base = { id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1, model };
  const frames = [];
  for (let i = 0; i < n; i++) {
    frames.push(
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: `tok${i} ` } }] })}\n\n`,
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

function anthropicFrames(model: string, n: number): string[] {
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
      delta: { type: "text_delta", text: `tok${i} ` },
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

self.onmessage = (event: MessageEvent<{ frames: number; gapMs: number }>) => {
  const { frames, gapMs } = event.data;
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (addr) => self.postMessage({ url: `http://127.0.0.1:${addr.port}` }),
  }, async (request) => {
    const body = await request.json();
    const path = new URL(request.url).pathname;
    const model = String(body.model);
    const openai = path.endsWith("/chat/completions");
    if (model === "gpt-503") {
      // The "fallback after a 503" lane: an overloaded upstream, answered at once.
      return Response.json({ error: { message: "overloaded" } }, { status: 503 });
    }
    if (body.stream) {
      const stream = paced(openai ? openAiFrames(model, frames) : anthropicFrames(model, frames), gapMs);
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    }
    return new Response(openai ? chatCompletion(model) : anthropicMessage(model), {
      headers: { "content-type": "application/json" },
    });
  });
};
