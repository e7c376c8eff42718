/**
 * The access line of a stream says how it ended — `completed`, `upstream_error` (with the error type, at
 * warn level) or `client_disconnected` — instead of a bare 200 written when the headers left.
 */
import assert from "node:assert/strict";
import { sleep, startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }], stream: true };
const encoder = new TextEncoder();
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${
    JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  }\n\n`;

Deno.test("a stream's access line records its outcome and error type", e2e, async (t) => {
  const upstream = await startFaultyUpstream(async (r, signal) => {
    const model = String(r.body.model);
    if (model === "hang") await sleep(60_000, signal);
    let timer: ReturnType<typeof setInterval> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(chunk({ content: "Hi" })));
        if (model === "ok") {
          controller.enqueue(encoder.encode(chunk({}, "stop") + "data: [DONE]\n\n"));
          controller.close();
        } else if (model === "cut") {
          setTimeout(() => controller.error(new Error("cut by the fixture")), 20);
        } else timer = setInterval(() => controller.enqueue(encoder.encode(chunk({ content: "." }))), 20);
      },
      cancel: () => clearInterval(timer),
    });
    signal.addEventListener("abort", () => clearInterval(timer));
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const gw = await startFaultyGateway({
    OPENAI_API_KEY: "sk-test-outcomes",
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: "300",
  });
  const accessLine = async (requestId: string) => {
    await sleep(50);
    const lines = gw.logs.map((l) => JSON.parse(l)).filter((l) =>
      l.msg === "request" && l.request_id === requestId
    );
    assert.equal(lines.length, 1, `exactly one access line: ${gw.logs.join("\n")}`);
    return lines[0];
  };
  try {
    await t.step("a complete stream is completed", async () => {
      const r = await gw.post({ model: "openai/ok", ...ask });
      await r.text();
      const line = await accessLine(r.headers.get("request-id")!);
      assert.equal(line.status, 200);
      assert.equal(line.outcome, "completed");
      assert.equal(line.level, "info");
    });
    await t.step("a stream cut mid-way is an upstream_error at warn level", async () => {
      const r = await gw.post({ model: "openai/cut", ...ask });
      assert.match(await r.text(), /event: error/);
      const line = await accessLine(r.headers.get("request-id")!);
      assert.equal(line.outcome, "upstream_error");
      assert.equal(line.error_type, "api_error");
      assert.equal(line.level, "warn");
    });
    await t.step("a stream whose upstream never answers is an upstream_error timeout_error", async () => {
      const r = await gw.post({ model: "openai/hang", ...ask });
      assert.match(await r.text(), /event: error/);
      const line = await accessLine(r.headers.get("request-id")!);
      assert.equal(line.outcome, "upstream_error");
      assert.equal(line.error_type, "timeout_error");
    });
    await t.step("a stream the client leaves is client_disconnected", async () => {
      const controller = new AbortController();
      const r = await gw.post({ model: "openai/trickle", ...ask }, { signal: controller.signal });
      const reader = r.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => {});
      await sleep(100);
      const line = await accessLine(r.headers.get("request-id")!);
      assert.equal(line.outcome, "client_disconnected");
    });
  } finally {
    await gw.close();
    await upstream.close();
  }
});
