/**
 * OpenTelemetry end to end: the gateway's real entry runs as a process with Deno's built-in exporter
 * (`OTEL_DENO=true`, OTLP/HTTP in its JSON encoding) pointed at a loopback receiver. A request whose first
 * target is down and whose fallback answers yields one `messages` span and, under it, one `chat` span per
 * upstream attempt with the GenAI attributes, all carrying the `Gw-Trace-Id`; prompt and completion text
 * appear only with GATEWAY_TRACE_CONTENT=true.
 */
import assert from "node:assert/strict";
import { spawnGateway } from "./gateway_process.ts";
import { startHarness } from "./harness.ts";
import { type ReceivedSpan, startOtlpReceiver } from "./otlp_receiver.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
// `offline` refuses connections (a retryable failure), so `openai/fx-text` answers as its fallback.
const FALLBACK = `fallbacks:\n  offline/fx-text: [openai/fx-text]\n`;
const PROMPT = "Say hello to the tracing test";

async function tracedRun(content: boolean, stream: boolean) {
  const receiver = await startOtlpReceiver();
  const h = await startHarness({ OFFLINE_API_KEY_NOT_SET: "sk-offline-test" }, FALLBACK);
  const gateway = await spawnGateway({
    ...h.env,
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "switchyard-gateway-test",
    OTEL_BSP_SCHEDULE_DELAY: "100", // export within 0.1 s instead of 1 s
    GATEWAY_TRACE_CONTENT: String(content),
    // A stream waits up to one ping interval for its upstream before committing to 200: long enough here for
    // both attempts on a loaded machine, so `gw-attempts` is known when the headers leave.
    GATEWAY_PING_INTERVAL_MS: "10000",
  });
  try {
    const traceId = `trace-otel-${content ? "content" : "plain"}-${stream ? "stream" : "whole"}`;
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": h.key, "gw-trace-id": traceId },
      body: JSON.stringify({
        model: "offline/fx-text",
        max_tokens: 64,
        stream,
        system: "Be brief.",
        messages: [{ role: "user", content: PROMPT }],
      }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.equal(response.headers.get("gw-attempts"), "2");
    const ours = (spans: ReceivedSpan[]) => spans.filter((s) => s.attributes["gw.trace_id"] === traceId);
    await receiver.waitFor((spans) => ours(spans).length >= 3);
    return { spans: ours(receiver.spans), all: receiver.spans, bodies: receiver.bodies.join("\n") };
  } finally {
    await gateway.stop();
    await h.close();
    await receiver.close();
  }
}

function checkSpans(spans: ReceivedSpan[], all: ReceivedSpan[]) {
  const request = spans.find((s) => s.name === "messages offline/fx-text");
  assert.ok(request, `a request span among ${spans.map((s) => s.name).join(", ")}`);
  const attempts = spans.filter((s) => s.name.startsWith("chat ")).sort((a, b) =>
    Number(a.attributes["gw.attempt"]) - Number(b.attributes["gw.attempt"])
  );
  assert.equal(attempts.length, 2, "one span per upstream attempt");
  const [down, served] = attempts;
  for (const span of attempts) {
    assert.equal(span.parentSpanId, request.spanId, "attempts nest under the request span");
    assert.equal(span.traceId, request.traceId);
    assert.equal(span.kind, 3, "client spans");
    assert.equal(span.attributes["gen_ai.operation.name"], "chat");
  }
  assert.deepEqual(
    [
      down.attributes["gen_ai.provider.name"],
      down.attributes["gen_ai.request.model"],
      down.attributes["gw.attempt"],
    ],
    ["offline", "fx-text", 1],
  );
  assert.equal(down.status?.code, 2, "the failed attempt is an error");
  assert.equal(down.attributes["error.type"], "api_error");
  assert.deepEqual(
    [
      served.attributes["gen_ai.provider.name"],
      served.attributes["gen_ai.request.model"],
      served.attributes["gen_ai.response.model"],
      served.attributes["gw.attempt"],
      served.attributes["gen_ai.usage.input_tokens"],
      served.attributes["gen_ai.usage.output_tokens"],
    ],
    ["openai", "fx-text", "fx-text", 2, 120, 5],
  );
  assert.deepEqual(
    [
      request.attributes["gen_ai.request.model"],
      request.attributes["gen_ai.response.model"],
      request.attributes["gen_ai.provider.name"],
      request.attributes["gw.attempts"],
      request.attributes["gen_ai.usage.input_tokens"],
      request.attributes["gen_ai.usage.output_tokens"],
    ],
    ["offline/fx-text", "fx-text", "openai", 2, 120, 5],
  );
  // Deno's own server span is the parent: our spans join the trace of the HTTP request.
  const server = all.find((s) => s.spanId === request.parentSpanId);
  assert.ok(server, "the request span's parent is Deno.serve's span");
  assert.equal(server.traceId, request.traceId);
}

Deno.test(
  "a traced request exports one span per upstream attempt with GenAI attributes and no content",
  e2e,
  async () => {
    const { spans, all, bodies } = await tracedRun(false, false);
    checkSpans(spans, all);
    assert.ok(!bodies.includes(PROMPT), "no prompt text in any exported span");
    assert.ok(!bodies.includes("Hello"), "no completion text in any exported span");
    assert.ok(!bodies.includes("Be brief"), "no system prompt in any exported span");
    assert.ok(!bodies.includes("sy_") && !bodies.includes("sk-openai-test"), "no key in any exported span");
  },
);

Deno.test(
  "a traced stream records prompt and completion text only with GATEWAY_TRACE_CONTENT=true",
  e2e,
  async () => {
    const { spans, all } = await tracedRun(true, true);
    checkSpans(spans, all);
    const served = spans.find((s) => s.attributes["gw.attempt"] === 2)!;
    assert.match(String(served.attributes["gen_ai.input.messages"]), new RegExp(PROMPT));
    assert.match(String(served.attributes["gen_ai.system_instructions"]), /Be brief/);
    const output = JSON.parse(String(served.attributes["gen_ai.output.messages"]));
    assert.deepEqual(output, [{ role: "assistant", content: [{ type: "text", text: "Hello, world" }] }]);
  },
);

Deno.test(
  "a traced whole answer records its completion content with GATEWAY_TRACE_CONTENT=true",
  e2e,
  async () => {
    const { spans } = await tracedRun(true, false);
    const served = spans.find((s) => s.attributes["gw.attempt"] === 2)!;
    const output = JSON.parse(String(served.attributes["gen_ai.output.messages"]));
    assert.equal(output[0].content[0].text, "Hello, world");
  },
);
