/**
 * Bedrock and Vertex end to end: the unchanged official SDK against the gateway in front of faithful
 * stand-ins (SigV4 verified server-side, event-stream frames with CRCs split across reads, JWT grants
 * verified against the service account's public key). Every lane: whole and streamed answers agree, the
 * stream obeys the grammar, a two-turn tool round trip works; failures map to Anthropic errors.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import Anthropic0 from "@anthropic-ai/sdk-0";
import { checkGrammar } from "./grammar.ts";
import { AWS, type CloudHarness, PROJECT, REGION, startCloudHarness, STATIC_TOKEN } from "./cloud_harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const ask = { max_tokens: 64, messages: [{ role: "user" as const, content: "Hi" }] };
const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** Every lane: a model name and the stand-in serving it. */
const LANES = [
  { model: "bedrock/anthropic.claude-fx-v1:0", upstream: "bedrock", api: "invoke" },
  { model: "claude-on-bedrock", upstream: "bedrock", api: "invoke" },
  { model: "bedrock/amazon.nova-fx-v1:0", upstream: "bedrock", api: "converse" },
  { model: "vertex/claude-fx@20250101", upstream: "vertex", api: "rawPredict" },
  { model: "vertex/gemini-fx", upstream: "vertex", api: "generateContent" },
  { model: "vertex-token/claude-fx@20250101", upstream: "vertex", api: "rawPredict" },
] as const;

async function rawStream(h: CloudHarness, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${h.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": h.key },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

function comparable(message: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(message));
  delete copy.id;
  delete copy.parsed_output; // added by the SDK's stream helper only
  return copy;
}

Deno.test(
  "every Bedrock and Vertex lane answers alike streamed and whole through both SDK majors",
  e2e,
  async (t) => {
    const h = await startCloudHarness();
    const v1 = new Anthropic({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
    const v0 = new Anthropic0({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
    try {
      for (const lane of LANES) {
        await t.step(lane.model, async () => {
          const whole = await v1.messages.create({ model: lane.model, ...ask });
          assert.deepEqual(whole.content, [{ type: "text", text: "Hello, world" }]);
          assert.equal(whole.model, lane.model);
          assert.equal(whole.stop_reason, "end_turn");
          assert.equal(whole.usage.output_tokens, 5);
          assert.equal(whole.usage.cache_read_input_tokens, 3);
          assert.equal(whole.usage.input_tokens, 12);
          const texts: string[] = [];
          const stream = v0.messages.stream({ model: lane.model, ...ask });
          stream.on("text", (delta) => texts.push(delta));
          const streamed = await stream.finalMessage();
          assert.deepEqual(texts, ["Hello", ", world"]);
          assert.deepEqual(comparable(streamed), comparable(whole));
          const raw = await rawStream(h, { model: lane.model, ...ask, stream: true });
          const report = await checkGrammar(raw.text, {
            translated: lane.api === "converse" || lane.api === "generateContent",
          });
          assert.deepEqual(report.violations, []);
          assert.equal(report.ending, "message_stop");
          assert.ok(!raw.text.includes("amazon-bedrock-invocationMetrics"), "Bedrock's metrics stay inside");
        });
      }
    } finally {
      await h.close();
    }
  },
);

Deno.test("a two-turn tool round trip works on every Bedrock and Vertex lane", e2e, async (t) => {
  const h = await startCloudHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
  try {
    for (const lane of LANES) {
      await t.step(lane.model, async () => {
        const question = { role: "user" as const, content: "Weather in Paris?" };
        const first = await client.messages.stream({
          model: lane.model,
          max_tokens: 128,
          tools: [weatherTool],
          tool_choice: { type: "any" },
          messages: [question],
        }).finalMessage();
        assert.equal(first.stop_reason, "tool_use");
        const call = first.content.find((b) => b.type === "tool_use");
        assert.ok(call && call.type === "tool_use");
        assert.deepEqual(call.input, { city: "Paris" });
        const second = await client.messages.create({
          model: lane.model,
          max_tokens: 128,
          tools: [weatherTool],
          messages: [
            question,
            { role: "assistant", content: first.content },
            {
              role: "user",
              content: [
                { type: "tool_result", tool_use_id: call.id, content: "Sunny, 21°C" },
                { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
              ],
            },
          ],
        });
        assert.deepEqual(second.content, [{ type: "text", text: "Tool said: Sunny, 21°C" }]);
        const upstream = lane.upstream === "bedrock" ? h.bedrock : h.vertex;
        const sent = upstream.requests.at(-1)!.body;
        if (lane.api === "converse") {
          const messages = sent.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
          assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user"]);
          assert.deepEqual(messages[1].content[0], {
            toolUse: { toolUseId: call.id, name: "get_weather", input: { city: "Paris" } },
          });
          assert.deepEqual(messages[2].content[0], {
            toolResult: { toolUseId: call.id, content: [{ text: "Sunny, 21°C" }], status: "success" },
          });
          assert.deepEqual(messages[2].content[1], { image: { format: "png", source: { bytes: PNG } } });
          const spec =
            (sent.toolConfig as { tools: Array<{ toolSpec: Record<string, unknown> }> }).tools[0].toolSpec;
          assert.deepEqual(spec.inputSchema, { json: weatherTool.input_schema });
          const firstSent = upstream.requests.at(-2)!.body as { toolConfig: Record<string, unknown> };
          assert.deepEqual(firstSent.toolConfig.toolChoice, { any: {} });
        } else if (lane.api === "generateContent") {
          const contents = sent.contents as Array<{ role: string }>;
          assert.deepEqual(contents.map((c) => c.role), ["user", "model", "user"]);
        } else {
          const messages = sent.messages as Array<{ content: Array<{ type: string }> }>;
          assert.equal(messages[2].content[0].type, "tool_result", "the native history is passed on");
        }
      });
    }
  } finally {
    await h.close();
  }
});

Deno.test(
  "Bedrock requests are SigV4-signed with the session token and carry Bedrock's Anthropic body",
  e2e,
  async () => {
    const h = await startCloudHarness();
    const client = new Anthropic({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
    try {
      const v0 = new Anthropic0({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
      await v0.messages.create(
        { model: "claude-on-bedrock", ...ask, temperature: 0.5 },
        { headers: { "anthropic-beta": "context-1m-2025-08-07, interleaved-thinking-2025-05-14" } },
      );
      const sent = h.bedrock.requests.at(-1)!;
      assert.equal(
        sent.path,
        "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-fx-v1%3A0/invoke",
      );
      assert.equal(sent.headers["x-amz-security-token"], AWS.sessionToken);
      assert.match(
        sent.headers["authorization"],
        /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/bedrock\//,
      );
      assert.equal(sent.body.anthropic_version, "bedrock-2023-05-31");
      assert.deepEqual(sent.body.anthropic_beta, [
        "context-1m-2025-08-07",
        "interleaved-thinking-2025-05-14",
      ]);
      assert.equal(sent.body.temperature, 0.5);
      assert.ok(!("model" in sent.body) && !("stream" in sent.body));
      await client.messages.stream({ model: "bedrock/anthropic.claude-fx-v1:0", ...ask }).finalMessage();
      assert.equal(
        h.bedrock.requests.at(-1)!.path,
        "/model/anthropic.claude-fx-v1%3A0/invoke-with-response-stream",
      );
      await client.messages.stream({ model: "bedrock/amazon.nova-fx-v1:0", system: "Be brief.", ...ask })
        .finalMessage();
      const converse = h.bedrock.requests.at(-1)!;
      assert.equal(converse.path, "/model/amazon.nova-fx-v1%3A0/converse-stream");
      assert.deepEqual(converse.body.system, [{ text: "Be brief." }]);
      assert.deepEqual(converse.body.inferenceConfig, { maxTokens: 64 });
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "Bedrock and Vertex failures become Anthropic errors that never show a credential",
  e2e,
  async (t) => {
    const h = await startCloudHarness();
    const client = new Anthropic({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
    const secrets = [AWS.secretAccessKey, AWS.sessionToken, STATIC_TOKEN, h.privateKey.split("\n")[1]];
    try {
      await t.step("a signature the upstream refuses is 502 api_error naming the provider", async () => {
        const raw = await rawStream(h, { model: "bedrock-eu/anthropic.claude-fx-v1:0", ...ask });
        assert.equal(raw.status, 502);
        const body = JSON.parse(raw.text);
        assert.equal(body.error.type, "api_error");
        assert.equal(
          body.error.message,
          "upstream provider bedrock-eu refused the gateway's credentials (HTTP 403 InvalidSignatureException)",
        );
        for (const secret of secrets) assert.ok(!raw.text.includes(secret));
      });
      await t.step("a bad ARN is 400 invalid_request_error naming it", async () => {
        const raw = await rawStream(h, {
          model: "bedrock/arn:aws:bedrock:us-east-1::inference-profile/x",
          ...ask,
        });
        assert.equal(raw.status, 400);
        assert.match(JSON.parse(raw.text).error.message, /12-digit account/);
      });
      await t.step("a throttling exception mid-stream ends it with one rate_limit_error event", async () => {
        for (const model of ["bedrock/anthropic.claude-fx-throttled", "bedrock/amazon.nova-throttled"]) {
          const raw = await rawStream(h, { model, ...ask, stream: true });
          const report = await checkGrammar(raw.text, { translated: true });
          assert.equal(report.ending, "error", model);
          assert.match(
            raw.text,
            /"type":"rate_limit_error","message":"upstream provider bedrock failed: throttlingException/,
          );
        }
      });
      await t.step("a frame whose CRC fails ends the stream with api_error, not garbage", async () => {
        for (const model of ["bedrock/anthropic.claude-fx-corrupt", "bedrock/amazon.nova-corrupt"]) {
          const raw = await rawStream(h, { model, ...ask, stream: true });
          const report = await checkGrammar(raw.text, { translated: true });
          assert.equal(report.ending, "error", model);
          assert.match(raw.text, /framingError: message CRC mismatch/);
        }
      });
      await t.step("the SDK sees an InternalServerError-class error, not a hang", async () => {
        await assert.rejects(
          client.messages.create({ model: "bedrock-eu/amazon.nova-fx-v1:0", ...ask }),
          (error: unknown) => error instanceof Anthropic.APIError && error.status === 502,
        );
      });
      await t.step("a refused service-account grant is 502 api_error naming the provider", async () => {
        h.tokens.refuseWith = "invalid_grant";
        const raw = await rawStream(h, { model: "vertex/gemini-fx", ...ask });
        h.tokens.refuseWith = undefined;
        assert.equal(raw.status, 502);
        const body = JSON.parse(raw.text);
        assert.equal(body.error.type, "api_error");
        assert.equal(
          body.error.message,
          "upstream provider vertex refused the gateway's credentials (token endpoint HTTP 400 invalid_grant)",
        );
        for (const secret of secrets) assert.ok(!raw.text.includes(secret));
      });
    } finally {
      await h.close();
    }
  },
);

Deno.test("Vertex mints one token for many concurrent requests and reuses it", e2e, async () => {
  const h = await startCloudHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
  try {
    await Promise.all(
      Array.from(
        { length: 6 },
        (_, i) =>
          client.messages.create({ model: i % 2 ? "vertex/gemini-fx" : "vertex/claude-fx@20250101", ...ask }),
      ),
    );
    await client.messages.create({ model: "vertex/claude-fx@20250101", ...ask });
    assert.equal(h.tokens.grants, 1, "one grant served seven requests");
    const claude = h.vertex.requests.find((r) => r.path.includes("/publishers/anthropic/"))!;
    assert.equal(
      claude.path,
      `/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/claude-fx@20250101:rawPredict`,
    );
    assert.equal(claude.body.anthropic_version, "vertex-2023-10-16");
    assert.equal(claude.body.stream, false);
    assert.ok(!("model" in claude.body));
  } finally {
    await h.close();
  }
});

Deno.test("count_tokens asks each cloud lane's own counting endpoint", e2e, async () => {
  const h = await startCloudHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: h.url, maxRetries: 0 });
  const messages = [{ role: "user" as const, content: "Count these words, please, all of them." }];
  try {
    for (const lane of LANES) {
      const { input_tokens } = await client.messages.countTokens({ model: lane.model, messages });
      assert.ok(input_tokens > 0, lane.model);
    }
    const paths = [...h.bedrock.requests, ...h.vertex.requests].map((r) => r.path);
    assert.equal(
      paths.filter((p) => /\/count-tokens$|count-tokens:rawPredict$|:countTokens$/.test(p)).length,
      LANES.length,
    );
  } finally {
    await h.close();
  }
});
