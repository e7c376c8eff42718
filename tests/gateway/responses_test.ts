/**
 * The `openai-responses` lane end to end: both SDK majors, unchanged, against a gateway in front of the
 * loopback Responses API server (strict request checks, OpenAI's event stream). Streamed and whole answers
 * agree fixture by fixture; reasoning survives a tool round trip in the thinking signature; failures reach
 * the SDK as its error classes; an upstream refusing the gateway's key is a 502 naming the provider only.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import Anthropic0 from "@anthropic-ai/sdk-0";
import { checkGrammar } from "./grammar.ts";
import { type FaultyGateway, startFaultyGateway } from "./faulty.ts";
import { RESPONSES_FIXTURES, RESPONSES_OK, RX_ESCAPED_ARGS } from "./responses_fixtures.ts";
import type { MockUpstream } from "./upstreams/mock_server.ts";
import { PROSE, startResponsesMock } from "./upstreams/responses_mock.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const KEY = "sk-rx-test-key-1234567890";
const WRONG_KEY = "sk-rx-wrong-key-0987654321";
const ask = { max_tokens: 256, messages: [{ role: "user" as const, content: "Hi" }] };
const thinking = { type: "enabled" as const, budget_tokens: 2_048 };
const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};
const SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
};

interface Lane {
  gw: FaultyGateway;
  mock: MockUpstream;
  v1: Anthropic;
  v0: Anthropic0;
  close(): Promise<void>;
}

async function startLane(): Promise<Lane> {
  const mock = await startResponsesMock(RESPONSES_FIXTURES, KEY);
  const gw = await startFaultyGateway(
    { RX_KEY: KEY, RX_BAD_KEY: WRONG_KEY },
    `providers:
  rx: { type: openai-responses, base_url: "${mock.url}/v1", api_key_env: RX_KEY }
  rx-badkey: { type: openai-responses, base_url: "${mock.url}/v1", api_key_env: RX_BAD_KEY }
`,
  );
  return {
    gw,
    mock,
    v1: new Anthropic({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 }),
    v0: new Anthropic0({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 }),
    close: async () => {
      await gw.close();
      await mock.close();
    },
  };
}

/** The request parameters each fixture is driven with. */
function paramsFor(name: string) {
  if (name.startsWith("gpt-5")) return { ...ask, thinking, tools: [weatherTool] };
  if (name === "rx-structured") {
    return { ...ask, output_config: { format: { type: "json_schema" as const, schema: SCHEMA } } };
  }
  return ask;
}

function comparable(message: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(message));
  delete copy.id;
  delete copy.parsed_output;
  return copy;
}

Deno.test("streamed and whole Responses translations agree for every fixture", e2e, async (t) => {
  const lane = await startLane();
  try {
    for (const name of Object.keys(RESPONSES_OK)) {
      await t.step(name, async () => {
        const params = {
          model: `rx/${name}`,
          ...paramsFor(name),
        } as Anthropic.MessageCreateParamsNonStreaming;
        const whole = await lane.v1.messages.create(params);
        const streamed = await lane.v1.messages.stream(params).finalMessage();
        assert.deepEqual(comparable(streamed), comparable(whole));
        assert.equal(whole.model, `rx/${name}`);
        const raw = await lane.gw.post({ ...params, stream: true });
        assert.equal(raw.status, 200);
        const report = await checkGrammar(await raw.text(), { translated: true });
        assert.deepEqual(report.violations, []);
        assert.equal(report.ending, "message_stop");
      });
    }
  } finally {
    await lane.close();
  }
});

Deno.test(
  "the Responses lane carries content, stop reasons and usage as Anthropic defines them",
  e2e,
  async (t) => {
    const lane = await startLane();
    const run = (model: string, extra: Record<string, unknown> = {}) =>
      lane.v1.messages.stream({ model: `rx/${model}`, ...ask, ...extra }).finalMessage();
    try {
      await t.step("cached input tokens leave input_tokens and become cache reads", async () => {
        const m = await run("rx-text");
        assert.deepEqual(m.content, [{ type: "text", text: "Hello, world" }]);
        assert.equal(m.stop_reason, "end_turn");
        assert.deepEqual([m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.output_tokens], [
          20,
          100,
          5,
        ]);
      });
      await t.step(
        "reasoning summaries become one thinking block, reasoning tokens count as output",
        async () => {
          const m = await run("gpt-5-reasoning-tool", { thinking, tools: [weatherTool] });
          assert.deepEqual(m.content.map((b) => b.type), ["thinking", "tool_use"]);
          const block = m.content[0] as Anthropic.ThinkingBlock;
          assert.equal(block.thinking, "**Planning** I need the weather.\n\nCalling the tool.");
          assert.match(block.signature, /^gw-rx:rs_\w+:gAAAA/);
          assert.equal(m.stop_reason, "tool_use");
          assert.equal(m.usage.output_tokens, 60);
        },
      );
      await t.step("parallel calls arrive as contiguous tool_use blocks with exact arguments", async () => {
        const m = await run("rx-parallel");
        assert.deepEqual(
          m.content.map((b) => b.type === "tool_use" ? [b.name, b.input] : b.type),
          ["text", ["read_file", JSON.parse(RX_ESCAPED_ARGS)], ["get_weather", { city: "Rome" }]],
        );
      });
      await t.step(
        "refusal, max_output_tokens and content_filter map to refusal, max_tokens, refusal",
        async () => {
          const refusal = await run("rx-refusal");
          assert.equal(refusal.stop_reason, "refusal");
          assert.deepEqual(refusal.content, [{ type: "text", text: "I can't help with that." }]);
          assert.equal((await run("rx-length")).stop_reason, "max_tokens");
          assert.equal((await run("rx-filtered")).stop_reason, "refusal");
        },
      );
      await t.step("raw reasoning text without a summary still becomes a thinking block", async () => {
        const m = await run("rx-raw-reasoning");
        assert.deepEqual(m.content[0], { type: "thinking", thinking: "Thinking out loud.", signature: "" });
      });
      await t.step("unknown events and split writes do not disturb the stream", async () => {
        assert.deepEqual((await run("rx-unknown-events")).content, [{ type: "text", text: "Still fine." }]);
      });
    } finally {
      await lane.close();
    }
  },
);

Deno.test(
  "a multi-turn tool conversation keeps its reasoning across turns on both SDK majors",
  e2e,
  async () => {
    const lane = await startLane();
    try {
      const question = { role: "user" as const, content: "Weather in Paris?" };
      const first = await lane.v1.messages.stream({
        model: "rx/gpt-5-reasoning-tool",
        max_tokens: 512,
        thinking,
        tools: [weatherTool],
        messages: [question],
      }).finalMessage();
      const call = first.content.find((b) => b.type === "tool_use") as Anthropic.ToolUseBlock;
      const foreign = { type: "thinking" as const, thinking: "from elsewhere", signature: "gw-gemini:c2ln" };
      const second = await lane.v0.messages.create({
        model: "rx/gpt-5-reasoning-tool",
        max_tokens: 512,
        thinking,
        tools: [weatherTool],
        messages: [
          question,
          { role: "assistant", content: [foreign, ...first.content] as Anthropic0.ContentBlockParam[] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny, 21°C" }],
          },
        ],
      });
      assert.deepEqual(second.content.map((b) => b.type), ["thinking", "text"]);
      assert.equal((second.content[1] as { text: string }).text, "Sunny in Paris, 21°C.");
      const sent = lane.mock.requests.at(-1)!.body;
      const input = sent.input as Array<Record<string, unknown>>;
      assert.deepEqual(input.map((i) => i.type), [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
      ]);
      const signature = (first.content[0] as Anthropic.ThinkingBlock).signature;
      assert.equal(
        `gw-rx:${input[1].id}:${input[1].encrypted_content}`,
        signature,
        "the reasoning item came back",
      );
      assert.deepEqual(input[3], { type: "function_call_output", call_id: call.id, output: "Sunny, 21°C" });
      assert.equal(sent.store, false);
      assert.deepEqual(sent.include, ["reasoning.encrypted_content"]);
      assert.deepEqual(sent.reasoning, { effort: "low", summary: "auto" });
      assert.equal(second.usage.input_tokens, 86);
      assert.equal(second.usage.cache_read_input_tokens, 64);
    } finally {
      await lane.close();
    }
  },
);

Deno.test("requests reach the Responses API in its own shapes", e2e, async (t) => {
  const lane = await startLane();
  const PNG =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
  const last = () => lane.mock.requests.at(-1)!.body;
  try {
    await t.step(
      "adaptive thinking asks a reasoning model to reason and a non-reasoning one not",
      async () => {
        // Claude Code sends `thinking: {type: "adaptive"}` whatever the model; OpenAI refuses `reasoning` and
        // `include: [reasoning.encrypted_content]` for a model that cannot reason.
        const adaptive = { type: "adaptive" } as unknown as Anthropic.ThinkingConfigParam;
        const text = await lane.v1.messages.create({ model: "rx/rx-text", ...ask, thinking: adaptive });
        assert.equal(text.stop_reason, "end_turn");
        assert.equal(last().reasoning, undefined);
        assert.equal(last().include, undefined);
        await lane.v1.messages.create({ model: "rx/gpt-5-reasoning-tool", ...ask, thinking: adaptive });
        assert.deepEqual(last().reasoning, { summary: "auto" });
        assert.deepEqual(last().include, ["reasoning.encrypted_content"]);
      },
    );
    await t.step("system, images, documents and tool results with images map onto input items", async () => {
      await lane.v0.messages.create({
        model: "rx/rx-text",
        max_tokens: 1,
        system: "Be brief.",
        temperature: 0.2,
        metadata: { user_id: "user-42" },
        tools: [weatherTool],
        tool_choice: { type: "any", disable_parallel_tool_use: true },
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
              {
                type: "document",
                source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" },
              },
              { type: "text", text: "What are these?" },
            ],
          },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Oslo" } }],
          },
          {
            role: "user",
            content: [{
              type: "tool_result",
              tool_use_id: "toolu_9",
              content: [{ type: "text", text: "see chart" }, {
                type: "image",
                source: { type: "base64", media_type: "image/png", data: PNG },
              }],
            }],
          },
        ],
      });
      const body = last();
      assert.equal(body.instructions, "Be brief.");
      assert.equal(body.max_output_tokens, 16, "raised to the API's floor");
      assert.equal(body.temperature, 0.2);
      assert.match(String(body.safety_identifier), /^[0-9a-f]{64}$/);
      assert.equal(body.tool_choice, "required");
      assert.equal(body.parallel_tool_calls, false);
      assert.deepEqual(body.tools, [{
        type: "function",
        name: "get_weather",
        description: "Weather for a city",
        parameters: weatherTool.input_schema,
        strict: false,
      }]);
      const input = body.input as Array<Record<string, unknown>>;
      assert.deepEqual(input[0].content, [
        { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
        { type: "input_file", filename: "document.pdf", file_data: "data:application/pdf;base64,JVBERi0=" },
        { type: "input_text", text: "What are these?" },
      ]);
      assert.deepEqual(input[1], {
        type: "function_call",
        call_id: "toolu_9",
        name: "get_weather",
        arguments: '{"city":"Oslo"}',
      });
      assert.deepEqual((input[2].output as unknown[]).map((p) => (p as { type: string }).type), [
        "input_text",
        "input_image",
      ]);
    });
    await t.step("a reasoning model gets no sampling parameters", async () => {
      await lane.v0.messages.create({
        model: "rx/gpt-5-reasoning-tool",
        ...ask,
        temperature: 0.5,
        top_p: 0.9,
      });
      assert.equal(last().temperature, undefined);
      assert.equal(last().top_p, undefined);
    });
    await t.step("stop_sequences are refused with a 400 naming the provider, before any call", async () => {
      const before = lane.mock.requests.length;
      const error = await lane.v1.messages.create({ model: "rx/rx-text", ...ask, stop_sequences: ["END"] })
        .catch((e) => e);
      assert.ok(error instanceof Anthropic.BadRequestError);
      assert.match(error.message, /provider rx .*no stop sequences/);
      assert.equal(lane.mock.requests.length, before);
    });
    await t.step("structured outputs go as text.format json_schema strict and parse in the SDK", async () => {
      const params = {
        model: "rx/rx-structured",
        ...ask,
        output_config: { format: { type: "json_schema" as const, schema: SCHEMA } },
      };
      assert.deepEqual((await lane.v1.messages.parse(params)).parsed_output, { name: "Ada", age: 36 });
      assert.deepEqual(last().text, {
        format: { type: "json_schema", name: "response", schema: SCHEMA, strict: true },
      });
      const prose = await lane.v1.messages.create({ model: "rx/rx-structured", ...ask });
      assert.deepEqual(
        prose.content,
        [{ type: "text", text: PROSE }],
        "without a format the model answers prose",
      );
    });
  } finally {
    await lane.close();
  }
});

Deno.test(
  "Responses failures reach the SDK as its error classes, never as a fake end_turn",
  e2e,
  async (t) => {
    const lane = await startLane();
    try {
      await t.step(
        "a failed response and a cut stream end in an error event; whole ones are 500",
        async () => {
          for (const model of ["rx/rx-failed", "rx/rx-cut"]) {
            const raw = await lane.gw.post({ model, ...ask, stream: true });
            const report = await checkGrammar(await raw.text());
            assert.deepEqual(report.violations, [], model);
            assert.equal(report.ending, "error", model);
            const whole = await lane.v1.messages.create({ model, ...ask }).catch((e) => e);
            assert.ok(whole instanceof Anthropic.InternalServerError, model);
          }
        },
      );
      await t.step(
        "a mid-stream rate-limit error event keeps its type; the whole call is a RateLimitError",
        async () => {
          const raw = await lane.gw.post({ model: "rx/rx-error-event", ...ask, stream: true });
          const report = await checkGrammar(await raw.text());
          assert.equal(report.ending, "error");
          assert.equal((report.events.at(-1)!.data.error as { type: string }).type, "rate_limit_error");
          const whole = await lane.v0.messages.create({ model: "rx/rx-error-event", ...ask }).catch((e) => e);
          assert.ok(whole instanceof Anthropic0.RateLimitError);
        },
      );
      await t.step("an upstream 429 keeps its retry-after", async () => {
        const error = await lane.v1.messages.create({ model: "rx/rx-429", ...ask }).catch((e) => e);
        assert.ok(error instanceof Anthropic.RateLimitError);
        assert.equal(error.headers.get("retry-after"), "3");
      });
      await t.step(
        "a refused gateway credential is a 502 api_error naming the provider, not the key",
        async () => {
          for (const stream of [false, true]) {
            const response = await lane.gw.post({ model: "rx-badkey/rx-text", ...ask, stream });
            const text = await response.text();
            assert.equal(response.status, 502, text);
            assert.equal(JSON.parse(text).error.type, "api_error");
            assert.match(text, /upstream provider rx-badkey refused the gateway's credentials/);
            assert.ok(!text.includes(WRONG_KEY) && !text.includes("sk-wrong"), text);
          }
          assert.ok(!lane.gw.logs.some((line) => line.includes(WRONG_KEY)), "no key in any log line");
        },
      );
    } finally {
      await lane.close();
    }
  },
);
