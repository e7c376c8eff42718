/**
 * The gateway's own work per request, without sockets: the real app (routing, auth cache, validation,
 * translation, serialization, stream setup) called in-process with an upstream fetch that answers
 * instantly. Separates the gateway's cost from the cost of one more loopback HTTP hop in Deno.
 */
import { createGatewayApp } from "../gateway/app.ts";
import { readGatewayConfig } from "../gateway/config/mod.ts";
import { createLogger } from "@switchyard/lib/log.ts";

const encoder = new TextEncoder();
const TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(20);
const chat = JSON.stringify({
  id: "c",
  object: "chat.completion",
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: TEXT }, finish_reason: "stop" }],
  usage: { prompt_tokens: 420, completion_tokens: 200 },
});
const native = JSON.stringify({
  id: "msg",
  type: "message",
  role: "assistant",
  model: "m",
  content: [{ type: "text", text: TEXT }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 420, output_tokens: 200 },
});
const chunk = encoder.encode(
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "tok" } }] })}\n\n`,
);

/** An upstream that answers at once, without sockets. */
export const instantFetch = ((url: string, init: RequestInit) => {
  const stream = JSON.parse(String(init.body)).stream === true;
  if (stream) {
    return Promise.resolve(
      new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk) }), {
        headers: { "content-type": "text/event-stream" },
      }),
    );
  }
  return Promise.resolve(
    new Response(url.includes("/chat/") ? chat : native, { headers: { "content-type": "application/json" } }),
  );
}) as unknown as typeof fetch;

/** p50/p99 in ms of the gateway's in-process work for each lane. */
export async function measureInProcess(body: (model: string, stream?: boolean) => string, n: number) {
  const config = readGatewayConfig({ OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" });
  const app = createGatewayApp(config, {
    logger: createLogger({ level: "warn" }),
    keys: { verify: () => Promise.resolve({ id: "key_bench", admin: false }) },
    fetch: instantFetch,
  });
  const run = async (model: string, stream: boolean): Promise<[number, number]> => {
    const text = body(model, stream);
    const times: number[] = [];
    for (let i = 0; i < n + 300; i++) {
      const t0 = performance.now();
      const response = await app.fetch(
        new Request("http://gateway/v1/messages", {
          method: "POST",
          headers: { "x-api-key": "k" },
          body: text,
        }),
      );
      if (stream) {
        const reader = response.body!.getReader();
        await reader.read(); // message_start
        await reader.read(); // first text_delta
        await reader.cancel();
      } else await response.arrayBuffer();
      if (i >= 300) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return [times[Math.floor(n / 2)], times[Math.floor(n * 0.99)]];
  };
  return {
    passThrough: await run("claude-bench", false),
    translated: await run("openai/gpt-bench", false),
    streamFirstDelta: await run("openai/gpt-bench", true),
  };
}
