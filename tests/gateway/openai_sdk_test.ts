/**
 * The unchanged `openai` SDK (pinned) against the gateway's OpenAI-format endpoints, with only baseURL and
 * key changed: Chat Completions and Responses, non-streaming and streaming, tools, structured outputs and
 * errors, on a translated lane of each upstream family (Anthropic, Gemini) and on the pass-through lane
 * (OpenAI Chat Completions upstream).
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startFaultyGateway } from "./faulty.ts";
import { startHarness } from "./harness.ts";
import { RESPONSES_FIXTURES } from "./responses_fixtures.ts";
import { startResponsesMock } from "./upstreams/responses_mock.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const weather = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

Deno.test("the openai SDK works unchanged against the OpenAI-format endpoints", e2e, async (t) => {
  const responses = await startResponsesMock(RESPONSES_FIXTURES, "sk-rx-openai-sdk");
  const h = await startHarness({}, "fallbacks:\n  openai/fx-503: [gemini/gx-text]\n");
  // The Responses upstream behind a gateway of its own (the harness's config has no such provider).
  const rxGateway = await startFaultyGateway(
    { RX_KEY: "sk-rx-openai-sdk" },
    `providers:\n  rx: { type: openai-responses, base_url: "${responses.url}/v1", api_key_env: RX_KEY }\n`,
  );
  const rx = new OpenAI({ apiKey: rxGateway.key, baseURL: `${rxGateway.url}/openai/v1`, maxRetries: 0 });
  const client = new OpenAI({ apiKey: h.key, baseURL: `${h.url}/openai/v1`, maxRetries: 0 });
  try {
    await t.step("chat, non-streaming, on the pass-through lane: the upstream's own answer", async () => {
      const before = h.openai.requests.length;
      const answer = await client.chat.completions.create({
        model: "openai/fx-text",
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
        max_completion_tokens: 64,
      });
      assert.equal(answer.choices[0].message.content, "Hello, world");
      const sent = h.openai.requests[before].body;
      assert.equal(sent.model, "fx-text");
      assert.deepEqual(sent.messages, [{ role: "system", content: "Be brief." }, {
        role: "user",
        content: "Hi",
      }]);
      assert.equal(answer.usage?.prompt_tokens, 120);
      assert.equal(answer.usage?.prompt_tokens_details?.cached_tokens, 100);
    });
    await t.step("chat, streaming with include_usage, on the pass-through lane", async () => {
      const stream = await client.chat.completions.create({
        model: "openai/fx-text",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? "";
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, "Hello, world");
      assert.ok(usage, "the usage chunk reached the client");
    });
    await t.step("chat, streaming without include_usage: no usage chunk", async () => {
      const stream = await client.chat.completions.create({
        model: "openai/fx-text",
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
      });
      for await (const chunk of stream) {
        assert.equal(chunk.usage ?? undefined, undefined, JSON.stringify(chunk));
      }
    });
    await t.step("chat with tools on the Anthropic lane: tool calls translated both ways", async () => {
      const before = h.anthropic.requests.length;
      const answer = await client.chat.completions.create({
        model: "claude-fx-tool",
        messages: [{ role: "developer", content: "Use tools." }, {
          role: "user",
          content: "Weather in Lyon?",
        }],
        tools: [weather],
        tool_choice: "auto",
        parallel_tool_calls: false,
      });
      const choice = answer.choices[0];
      assert.equal(choice.finish_reason, "tool_calls");
      assert.equal(choice.message.content, "Sure.");
      const call = choice.message.tool_calls![0];
      assert.equal(call.type === "function" && call.function.name, "get_weather");
      assert.deepEqual(call.type === "function" && JSON.parse(call.function.arguments), { city: "Lyon" });
      const sent = h.anthropic.requests[before].body;
      // One system message arrives as the string a Messages API client would send.
      assert.equal(sent.system, "Use tools.");
      assert.deepEqual(sent.tool_choice, { type: "auto", disable_parallel_tool_use: true });
      assert.equal((sent.tools as Array<{ name: string }>)[0].name, "get_weather");
      // The second turn carries the tool result back as a tool_result block.
      const next = h.anthropic.requests.length;
      await client.chat.completions.create({
        model: "claude-fx-tool",
        messages: [
          { role: "user", content: "Weather in Lyon?" },
          { role: "assistant", content: "Sure.", tool_calls: [call] },
          { role: "tool", tool_call_id: call.id, content: "Sunny" },
        ],
        tools: [weather],
      });
      const turns = h.anthropic.requests[next].body.messages as Array<{ role: string; content: unknown }>;
      assert.deepEqual(turns.at(-1), {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: call.id, content: "Sunny" }],
      });
    });
    await t.step("chat streaming on the Anthropic lane: text and tool-call deltas", async () => {
      const stream = await client.chat.completions.create({
        model: "claude-fx-tool",
        messages: [{ role: "user", content: "Weather in Lyon?" }],
        tools: [weather],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let args = "";
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        text += choice?.delta?.content ?? "";
        args += choice?.delta?.tool_calls?.[0]?.function?.arguments ?? "";
        finish = choice?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      assert.equal(text, "Sure.");
      assert.deepEqual(JSON.parse(args), { city: "Lyon" });
      assert.equal(finish, "tool_calls");
      assert.equal(usage?.completion_tokens, 65);
    });
    await t.step("chat on the Gemini lane, and structured outputs reach the upstream", async () => {
      const before = h.gemini.requests.length;
      const answer = await client.chat.completions.create({
        model: "gemini/gx-text",
        messages: [{ role: "user", content: "Bonjour" }],
        response_format: {
          type: "json_schema",
          json_schema: {
            name: "greeting",
            strict: true,
            schema: { type: "object", properties: { g: { type: "string" } } },
          },
        },
      });
      assert.equal(answer.choices[0].message.content, "Bonjour tout le monde");
      const sent = h.gemini.requests[before].body as { generationConfig?: Record<string, unknown> };
      assert.equal(sent.generationConfig?.responseMimeType, "application/json");
    });
    await t.step("responses, non-streaming and streaming, on the Anthropic lane", async () => {
      const answer = await client.responses.create({
        model: "claude-fx-tool",
        instructions: "Use tools.",
        input: "Weather in Lyon?",
        tools: [{
          type: "function",
          name: "get_weather",
          parameters: weather.function.parameters,
          strict: false,
        }],
      });
      assert.equal(answer.output_text, "Sure.");
      const call = answer.output.find((item) => item.type === "function_call");
      assert.equal(call?.type === "function_call" && call.name, "get_weather");
      const events: string[] = [];
      const stream = await client.responses.create({
        model: "claude-fx-tool",
        input: "Weather in Lyon?",
        tools: [{
          type: "function",
          name: "get_weather",
          parameters: weather.function.parameters,
          strict: false,
        }],
        stream: true,
      });
      let args = "";
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        events.push(event.type);
        if (event.type === "response.function_call_arguments.delta") args += event.delta;
        if (event.type === "response.completed") completed = event.response;
      }
      assert.equal(events[0], "response.created");
      assert.equal(events.at(-1), "response.completed");
      assert.deepEqual(JSON.parse(args), { city: "Lyon" });
      assert.equal(completed?.usage?.output_tokens, 65);
    });
    await t.step(
      "responses pass-through to a Responses upstream: the upstream's own items and events",
      async () => {
        const before = responses.requests.length;
        const answer = await rx.responses.create({ model: "rx/rx-text", input: "Hi", store: true });
        assert.equal(answer.output_text, "Hello, world");
        const sent = responses.requests[before].body;
        assert.equal(sent.model, "rx-text");
        assert.equal(sent.store, false, "the gateway stores nothing, and asks the upstream not to either");
        assert.equal(answer.usage?.input_tokens_details?.cached_tokens, 100);
        const events: string[] = [];
        let text = "";
        const stream = await rx.responses.create({ model: "rx/rx-text", input: "Hi", stream: true });
        for await (const event of stream) {
          events.push(event.type);
          if (event.type === "response.output_text.delta") text += event.delta;
        }
        assert.equal(text, "Hello, world");
        assert.equal(events[0], "response.created");
        assert.equal(events.at(-1), "response.completed");
      },
    );
    await t.step("the SDK's stream helpers accumulate the translated streams", async () => {
      for (const model of ["claude-fx-tool", "gemini/gx-call"]) {
        const chat = await client.chat.completions.stream({
          model,
          messages: [{ role: "user", content: "Weather?" }],
          tools: [weather],
        }).finalChatCompletion();
        const call = chat.choices[0].message.tool_calls?.[0];
        assert.equal(call?.type === "function" && call.function.name, "get_weather", model);
        const response = await client.responses.stream({
          model,
          input: "Weather?",
          tools: [{
            type: "function",
            name: "get_weather",
            parameters: weather.function.parameters,
            strict: false,
          }],
        }).finalResponse();
        assert.ok(response.output.some((item) => item.type === "function_call"), model);
        assert.ok(response.output_text.length > 0, model);
      }
    });
    await t.step("responses translated to a Chat Completions upstream, with tool calls", async () => {
      const answer = await client.responses.create({
        model: "openai/fx-parallel",
        input: [{ role: "user", content: "Weather in Paris and Rome?" }],
        tools: [{
          type: "function",
          name: "get_weather",
          parameters: weather.function.parameters,
          strict: false,
        }],
      });
      const calls = answer.output.filter((item) => item.type === "function_call");
      assert.deepEqual(calls.map((c) => c.type === "function_call" && JSON.parse(c.arguments)), [
        { city: "Paris" },
        { city: "Rome" },
      ]);
    });
    await t.step("chat pass-through to an OpenAI-compatible host keeps its quirks", async () => {
      const before = h.compat.requests.length;
      const answer = await client.chat.completions.create({
        model: "mistral/fx-text",
        messages: [{ role: "user", content: "Hi" }],
        max_completion_tokens: 32,
      });
      assert.equal(answer.choices[0].message.content, "Hello, world");
      const sent = h.compat.requests[before].body;
      assert.equal(sent.max_tokens, 32, "the host's own output-limit field");
      assert.equal(sent.max_completion_tokens, undefined);
    });
    await t.step(
      "a fallback from a pass-through lane to a translated one answers in the client's format",
      async () => {
        const answer = await client.chat.completions.create({
          model: "openai/fx-503",
          messages: [{ role: "user", content: "Hi" }],
        });
        assert.equal(answer.object, "chat.completion");
        assert.equal(answer.choices[0].message.content, "Bonjour tout le monde");
      },
    );
    await t.step("errors come in OpenAI's shape, naming the field, before any upstream call", async () => {
      const before = h.openai.requests.length;
      const bad = await client.chat.completions.create({
        model: "openai/fx-text",
        messages: [{ role: "user", content: "Hi" }],
        n: 2,
      }).catch((e) => e);
      assert.ok(bad instanceof OpenAI.BadRequestError, String(bad));
      assert.equal(bad.status, 400);
      assert.equal(bad.param, "n");
      const hosted = await client.responses.create({
        model: "openai/fx-text",
        input: "Hi",
        tools: [{ type: "web_search" }],
      }).catch((e) => e);
      assert.ok(hosted instanceof OpenAI.BadRequestError);
      assert.match(hosted.message, /provider-hosted tool/);
      const stored = await client.responses.create({
        model: "openai/fx-text",
        input: "Hi",
        previous_response_id: "resp_1",
      }).catch((e) => e);
      assert.ok(stored instanceof OpenAI.BadRequestError);
      assert.match(stored.message, /stores no responses/);
      assert.equal(h.openai.requests.length, before, "nothing reached the upstream");
      const unauthorized = new OpenAI({ apiKey: "sk-wrong", baseURL: `${h.url}/openai/v1`, maxRetries: 0 });
      const denied = await unauthorized.chat.completions.create({
        model: "openai/fx-text",
        messages: [{ role: "user", content: "Hi" }],
      }).catch((e) => e);
      assert.ok(denied instanceof OpenAI.AuthenticationError);
      const overloaded = await client.chat.completions.create({
        model: "claude-fx-overloaded",
        messages: [{ role: "user", content: "Hi" }],
      }).catch((e) => e);
      assert.ok(overloaded instanceof OpenAI.APIError);
      assert.ok(overloaded.status >= 500);
    });
    await t.step("a stream that breaks ends in an error the SDK raises, on both kinds of lane", async () => {
      for (const model of ["openai/fx-cut", "openai/fx-midstream-error", "claude-fx-cut"]) {
        const stream = await client.chat.completions.create({
          model,
          messages: [{ role: "user", content: "Hi" }],
          stream: true,
        });
        let text = "";
        const failure = await (async () => {
          for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
        })().then(() => undefined, (e) => e);
        assert.ok(failure instanceof Error, `${model}: the broken stream was not reported (${text})`);
      }
      const events: string[] = [];
      const broken = await client.responses.create({ model: "claude-fx-cut", input: "Hi", stream: true });
      await (async () => {
        for await (const event of broken) events.push(event.type);
      })().catch(() => {});
      assert.equal(events.at(-1), "response.failed", events.join());
      await h.ledger.flush();
      const rows = await h.db.selectFrom("gateway_usage").select(["model", "status", "ingress"])
        .where("model", "in", ["openai/fx-cut", "claude-fx-cut"]).execute();
      assert.ok(rows.length >= 3 && rows.every((r) => r.status === 500), JSON.stringify(rows));
    });
    await t.step("models lists what the key may use, in OpenAI's shape", async () => {
      const models = [];
      for await (const model of client.models.list()) models.push(model);
      assert.ok(models.length > 0);
      assert.ok(models.every((m) => m.object === "model" && typeof m.id === "string"));
      const one = await client.models.retrieve("openai/fx-text");
      assert.equal(one.owned_by, "openai");
      const missing = await client.models.retrieve("nowhere/x").catch((e) => e);
      assert.ok(missing instanceof OpenAI.NotFoundError, String(missing));
    });
    await t.step("the ledger records the ingress format", async () => {
      await h.ledger.flush();
      const rows = await h.db.selectFrom("gateway_usage").select(["ingress"]).execute();
      const formats = new Set(rows.map((r) => r.ingress));
      assert.ok(formats.has("openai-chat") && formats.has("openai-responses"), [...formats].join());
    });
  } finally {
    await h.close();
    await rxGateway.close();
    await responses.close();
  }
});
