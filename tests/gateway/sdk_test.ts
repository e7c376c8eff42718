/**
 * The unchanged official SDK, both majors (1.x sends `Authorization: Bearer`, 0.x sends `X-API-Key`), with
 * only baseURL and key changed: create, stream helpers and events, a two-turn tool round trip per
 * provider, images, count_tokens, model listing with auto-pagination, error classes, tracing headers.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import Anthropic0 from "@anthropic-ai/sdk-0";
import { checkGrammar } from "./grammar.ts";
import { rawPost, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object" as const,
    properties: { city: { type: "string" }, days: { type: "integer", exclusiveMinimum: 0 } },
    required: ["city"],
    additionalProperties: false,
  },
};
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

Deno.test("both SDK majors work unchanged against the gateway", e2e, async (t) => {
  const h = await startHarness();
  const v1 = new Anthropic({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  const v0 = new Anthropic0({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  const ask = { max_tokens: 64, messages: [{ role: "user" as const, content: "Hi" }] };
  try {
    await t.step("the 1.x SDK authenticates with Bearer and the 0.x SDK with X-API-Key", async () => {
      const before = h.openai.requests.length;
      const a = await v1.messages.create({ model: "openai/fx-text", ...ask });
      const b = await v0.messages.create({ model: "openai/fx-text", ...ask });
      assert.equal(a.content[0].type === "text" && a.content[0].text, "Hello, world");
      assert.equal(b.content[0].type === "text" && b.content[0].text, "Hello, world");
      assert.equal(h.openai.requests.length, before + 2);
      assert.ok(a._request_id?.startsWith("req_"), "the request-id header reaches the SDK");
    });
    await t.step("text and inputJson events stream incrementally on both majors", async () => {
      for (const client of [v1, v0] as const) {
        const texts: string[] = [];
        const stream = (client as Anthropic).messages.stream({ model: "openai/fx-text", ...ask });
        stream.on("text", (delta) => texts.push(delta));
        await stream.finalMessage();
        assert.deepEqual(texts, ["Hello", ", world"]);
        const partials: string[] = [];
        const toolStream = (client as Anthropic).messages.stream({ model: "openai/fx-parallel", ...ask });
        toolStream.on("inputJson", (partial) => partials.push(partial));
        const final = await toolStream.finalMessage();
        assert.deepEqual(partials, ['{"city":', '"Paris"}', '{"city":"Rome"}']);
        assert.deepEqual(final.content.map((b) => b.type), ["text", "tool_use", "tool_use"]);
      }
    });
    await t.step(
      "the 2026-10-21 dialect (system turns, no sampling) and the old one are both accepted",
      async () => {
        const dialect = {
          model: "fast",
          max_tokens: 32,
          messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
        } as unknown as Anthropic.MessageCreateParamsNonStreaming;
        assert.equal((await v1.messages.create(dialect)).model, "fast");
        const sent = h.openai.requests.at(-1)!.body as { messages: Array<{ role: string }> };
        assert.deepEqual(sent.messages.map((m) => m.role), ["system", "user"]);
        await v0.messages.create({ model: "openai/fx-text", ...ask, temperature: 0.2, top_p: 0.9, top_k: 5 });
        assert.equal(h.openai.requests.at(-1)!.body.temperature, 0.2);
      },
    );
    await t.step("raw create({stream: true}) iteration yields the grammar's events", async () => {
      const names: string[] = [];
      const stream = await v1.messages.create({ model: "gemini/gx-text", ...ask, stream: true });
      for await (const event of stream) names.push(event.type);
      assert.equal(names[0], "message_start");
      assert.equal(names.at(-1), "message_stop");
    });
  } finally {
    await h.close();
  }
});

Deno.test("a two-turn tool round trip works on every provider", e2e, async (t) => {
  const h = await startHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  try {
    const cases = [
      { model: "openai/fx-whole-call", upstream: h.openai },
      { model: "mistral/fx-parallel", upstream: h.compat },
      { model: "gemini/gx-call", upstream: h.gemini },
      { model: "claude-fx-tool", upstream: h.anthropic },
    ];
    for (const { model, upstream } of cases) {
      await t.step(model, async () => {
        const question = { role: "user" as const, content: "Weather in Paris?" };
        const first = await client.messages.stream({
          model,
          max_tokens: 128,
          tools: [weatherTool],
          tool_choice: { type: "any", disable_parallel_tool_use: true },
          messages: [question],
        }).finalMessage();
        assert.equal(first.stop_reason, "tool_use");
        const calls = first.content.filter((b) => b.type === "tool_use");
        assert.ok(calls.length >= 1);
        const second = await client.messages.create({
          model,
          max_tokens: 128,
          tools: [weatherTool],
          messages: [
            question,
            { role: "assistant", content: first.content },
            {
              role: "user",
              content: [
                ...calls.map((c) => ({
                  type: "tool_result" as const,
                  tool_use_id: c.id,
                  content: "Sunny, 21°C",
                })),
                { type: "text" as const, text: "Thanks; summarise." },
              ],
            },
          ],
        });
        assert.ok(second.content.length > 0);
        const sent = upstream.requests.at(-1)!.body as Record<string, unknown>;
        if (model.startsWith("openai/") || model.startsWith("mistral/")) {
          const messages = sent.messages as Array<Record<string, unknown>>;
          const roles = messages.map((m) => m.role);
          assert.deepEqual(roles, ["user", "assistant", ...calls.map(() => "tool"), "user"]);
          const assistant = messages[1] as {
            tool_calls: Array<{ id: string; function: { arguments: string } }>;
          };
          const toolIds = messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
          assert.deepEqual(toolIds, assistant.tool_calls.map((c) => c.id));
          assert.deepEqual(JSON.parse(assistant.tool_calls[0].function.arguments), calls[0].input);
          if (model.startsWith("mistral/")) {
            for (const id of toolIds) assert.match(String(id), /^[a-zA-Z0-9]{9}$/);
            const firstSent = upstream.requests.at(-2)!.body;
            assert.equal(firstSent.tool_choice, "any");
          } else {
            assert.equal(upstream.requests.at(-2)!.body.tool_choice, "required");
            assert.equal(upstream.requests.at(-2)!.body.parallel_tool_calls, false);
          }
        } else if (model.startsWith("gemini/")) {
          const contents = sent.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
          assert.deepEqual(contents.map((c) => c.role), ["user", "model", "user"]);
          const callPart = contents[1].parts.find((p) => p.functionCall)!;
          assert.equal(callPart.thoughtSignature, "c2lnLWdlbWluaS0z", "thought signature round-trips");
          const response = contents[2].parts[0].functionResponse as Record<string, unknown>;
          assert.equal(response.name, "get_weather");
          assert.deepEqual(response.response, { result: "Sunny, 21°C" });
          const declaration =
            (sent.tools as Array<{ functionDeclarations: Array<Record<string, unknown>> }>)[0]
              .functionDeclarations[0];
          assert.equal((declaration.parametersJsonSchema as Record<string, unknown>).$schema, undefined);
        } else {
          const messages = sent.messages as Array<{ content: Array<{ type: string }> }>;
          assert.equal(messages[2].content[0].type, "tool_result", "native history is passed through");
          assert.equal(sent.model, "claude-fx-tool");
        }
      });
    }
  } finally {
    await h.close();
  }
});

Deno.test("images, count_tokens and models reach the SDK in Anthropic's shapes", e2e, async (t) => {
  const h = await startHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  const v0 = new Anthropic0({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  try {
    await t.step("a base64 image becomes an OpenAI data URL and Gemini inlineData", async () => {
      const content = [
        {
          type: "image" as const,
          source: { type: "base64" as const, media_type: "image/png" as const, data: PNG },
        },
        { type: "text" as const, text: "What is this?" },
      ];
      await client.messages.create({
        model: "openai/fx-text",
        max_tokens: 16,
        messages: [{ role: "user", content }],
      });
      const openaiParts = (h.openai.requests.at(-1)!.body.messages as Array<{ content: unknown }>)[0].content;
      assert.deepEqual(openaiParts, [
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        { type: "text", text: "What is this?" },
      ]);
      await client.messages.create({
        model: "gemini/gx-text",
        max_tokens: 16,
        messages: [{ role: "user", content }],
      });
      const geminiParts = (h.gemini.requests.at(-1)!.body.contents as Array<{ parts: unknown[] }>)[0].parts;
      assert.deepEqual(geminiParts[0], { inlineData: { mimeType: "image/png", data: PNG } });
    });
    await t.step("count_tokens answers for every provider", async () => {
      const params = { messages: [{ role: "user" as const, content: "How many tokens is this?" }] };
      assert.equal(
        (await client.messages.countTokens({ model: "claude-fx-tool", ...params })).input_tokens,
        4242,
      );
      assert.ok((await client.messages.countTokens({ model: "openai/fx-text", ...params })).input_tokens > 0);
      assert.ok((await v0.messages.countTokens({ model: "gemini/gx-text", ...params })).input_tokens > 0);
    });
    await t.step(
      "models.list() auto-paginates with after_id and retrieve decodes provider/model",
      async () => {
        const ids: string[] = [];
        for await (const model of client.models.list({ limit: 2 })) ids.push(model.id);
        assert.ok(
          ids.includes("openai/gpt-4.1") && ids.includes("mistral/fx-parallel") && ids.includes("fast"),
        );
        assert.ok(
          !ids.some((id) => id.startsWith("offline/")),
          "a provider without credentials is not offered",
        );
        assert.equal(new Set(ids).size, ids.length);
        const ids0: string[] = [];
        for await (const model of v0.models.list({ limit: 3 })) ids0.push(model.id);
        assert.deepEqual(ids0, ids);
        const one = await client.models.retrieve("openai/gpt-4.1");
        assert.equal(one.id, "openai/gpt-4.1");
        assert.equal(one.type, "model");
        const page = await client.models.list({ limit: 2 });
        const before = await fetch(`${h.url}/v1/models?before_id=${encodeURIComponent(page.data[1].id)}`, {
          headers: { "x-api-key": h.key },
        }).then((r) => r.json());
        assert.deepEqual(before.data.map((m: { id: string }) => m.id), [page.data[0].id]);
        assert.equal(before.has_more, false);
      },
    );
  } finally {
    await h.close();
  }
});

Deno.test("failures reach the SDK as the right error classes", e2e, async (t) => {
  const h = await startHarness();
  const client = new Anthropic({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
  const ask = { max_tokens: 64, messages: [{ role: "user" as const, content: "Hi" }] };
  try {
    await t.step("a missing or unknown key is an AuthenticationError", async () => {
      const bad = new Anthropic({
        apiKey: "sy_" + "x".repeat(43),
        baseURL: `${h.url}/compat`,
        maxRetries: 0,
      });
      await assert.rejects(
        bad.messages.create({ model: "openai/fx-text", ...ask }),
        Anthropic.AuthenticationError,
      );
      const none = await fetch(`${h.url}/v1/models`);
      assert.equal(none.status, 401);
      const body = await none.json();
      assert.equal(body.type, "error");
      assert.equal(body.error.type, "authentication_error");
      assert.ok(none.headers.get("request-id"));
    });
    await t.step("a web_search server tool is refused with invalid_request_error naming it", async () => {
      const error = await client.messages.create({
        model: "openai/fx-text",
        ...ask,
        tools: [{ type: "web_search_20250305", name: "web_search" }],
      }).catch((e) => e);
      assert.ok(error instanceof Anthropic.BadRequestError);
      assert.match(error.message, /web_search/);
      assert.equal(error.type, "invalid_request_error");
    });
    await t.step("an unknown model is a NotFoundError that says how to find names", async () => {
      const error = await client.messages.create({ model: "nonesuch", ...ask }).catch((e) => e);
      assert.ok(error instanceof Anthropic.NotFoundError);
      assert.match(error.message, /\/v1\/models/);
    });
    await t.step("an upstream 429 is a RateLimitError with retry-after", async () => {
      for (const model of ["openai/fx-429", "gemini/gx-429"]) {
        const error = await client.messages.create({ model, ...ask }).catch((e) => e);
        assert.ok(error instanceof Anthropic.RateLimitError, model);
        assert.ok(error.headers.get("retry-after"), model);
      }
      const error = await client.messages.create({ model: "openai/fx-429", ...ask }).catch((e) => e);
      assert.equal(error.headers.get("retry-after"), "7");
    });
    await t.step("an upstream that fails after the keep-alive started ends in an error event", async () => {
      const raw = await rawPost(h, "/v1/messages", { model: "openai/fx-slow-429", ...ask, stream: true });
      assert.equal(raw.status, 200);
      const report = await checkGrammar(raw.text);
      assert.deepEqual(report.violations, []);
      assert.equal(report.ending, "error");
      assert.equal((report.events.at(-1)!.data.error as { type: string }).type, "rate_limit_error");
      const error = await client.messages.stream({ model: "openai/fx-slow-429", ...ask }).finalMessage()
        .catch((e) => e);
      assert.ok(error instanceof Anthropic.APIError);
    });
    await t.step("the 0.x SDK sees the same error classes over X-API-Key", async () => {
      const v0 = new Anthropic0({ apiKey: h.key, baseURL: `${h.url}/compat`, maxRetries: 0 });
      const bad = new Anthropic0({
        apiKey: "sy_" + "y".repeat(43),
        baseURL: `${h.url}/compat`,
        maxRetries: 0,
      });
      await assert.rejects(bad.models.list(), Anthropic0.AuthenticationError);
      await assert.rejects(v0.messages.create({ model: "openai/fx-429", ...ask }), Anthropic0.RateLimitError);
      await assert.rejects(v0.messages.create({ model: "nope-model", ...ask }), Anthropic0.NotFoundError);
      const overloaded = await v0.messages.create({ model: "claude-fx-overloaded", ...ask }).catch((e) => e);
      assert.ok(overloaded instanceof Anthropic0.InternalServerError, "0.x has no OverloadedError class");
      assert.equal(overloaded.status, 529);
    });
    await t.step("upstream overload is an OverloadedError (529)", async () => {
      for (const model of ["openai/fx-503", "claude-fx-overloaded"]) {
        const error = await client.messages.create({ model, ...ask }).catch((e) => e);
        assert.equal(error.status, 529, model);
        assert.ok(error instanceof Anthropic.OverloadedError, model);
      }
    });
    await t.step(
      "a stream cut or failing mid-way ends in an error event, never a fake end_turn",
      async () => {
        for (
          const model of ["openai/fx-cut", "gemini/gx-cut", "claude-fx-cut", "openai/fx-midstream-error"]
        ) {
          const error = await client.messages.stream({ model, ...ask }).finalMessage().catch((e) => e);
          assert.ok(error instanceof Anthropic.APIError, model);
          const raw = await rawPost(h, "/v1/messages", { model, ...ask, stream: true });
          const report = await checkGrammar(raw.text);
          assert.deepEqual(report.violations, [], model);
          assert.equal(report.ending, "error", model);
        }
        for (const model of ["openai/fx-cut", "gemini/gx-cut", "claude-fx-cut"]) {
          const whole = await client.messages.create({ model, ...ask }).catch((e) => e);
          assert.ok(whole instanceof Anthropic.InternalServerError, model);
        }
      },
    );
    await t.step(
      "truncated tool arguments and malformed Gemini calls are errors, not silent loss",
      async () => {
        for (const model of ["openai/fx-bad-args", "gemini/gx-malformed-call"]) {
          const raw = await rawPost(h, "/v1/messages", { model, ...ask, stream: true });
          assert.equal((await checkGrammar(raw.text)).ending, "error", model);
          const whole = await client.messages.create({ model, ...ask }).catch((e) => e);
          assert.ok(whole instanceof Anthropic.InternalServerError, model);
        }
      },
    );
    await t.step("a body over 32 MB is request_too_large", async () => {
      const huge = "x".repeat(33 * 1024 * 1024);
      const r = await rawPost(h, "/v1/messages", {
        ...ask,
        model: "openai/fx-text",
        messages: [{ role: "user", content: huge }],
      });
      assert.equal(r.status, 413);
      assert.equal(JSON.parse(r.text).error.type, "request_too_large");
      const chunked = await fetch(`${h.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": h.key },
        body: ReadableStream.from([new TextEncoder().encode(`{"model":"openai/fx-text","pad":"${huge}"}`)]),
      });
      assert.equal(chunked.status, 413, "a chunked body without content-length is limited too");
      assert.equal((await chunked.json()).error.type, "request_too_large");
    });
    await t.step("malformed bodies are invalid_request_error naming the field", async () => {
      const noMax = await rawPost(h, "/v1/messages", {
        model: "openai/fx-text",
        messages: [{ role: "user", content: "Hi" }],
      });
      assert.equal(noMax.status, 400);
      assert.match(JSON.parse(noMax.text).error.message, /max_tokens/);
      const notJson = await fetch(`${h.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": h.key },
        body: "{",
      });
      assert.equal(notJson.status, 400);
      assert.equal((await notJson.json()).error.type, "invalid_request_error");
    });
  } finally {
    await h.close();
  }
});

Deno.test("paths, query strings, tracing headers and disconnects behave", e2e, async (t) => {
  const h = await startHarness();
  const ask = { model: "openai/fx-text", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };
  try {
    await t.step("/v1/messages?beta=true and unknown anthropic-beta values are accepted", async () => {
      const r = await rawPost(h, "/v1/messages?beta=true", ask, {
        "anthropic-version": "2099-01-01",
        "anthropic-beta": "claude-code-20250219,made-up-beta",
      });
      assert.equal(r.status, 200);
      const c = await rawPost(h, "/v1/messages/count_tokens?beta=true", {
        model: ask.model,
        messages: ask.messages,
      });
      assert.equal(c.status, 200);
    });
    await t.step(
      "Gw-Trace-Id and Gw-Thread-Id are echoed and forwarded, and generated when absent",
      async () => {
        const r = await rawPost(h, "/compat/v1/messages", ask, {
          "Gw-Trace-Id": "trace-abc",
          "Gw-Thread-Id": "th-1",
        });
        assert.equal(r.headers.get("gw-trace-id"), "trace-abc");
        assert.equal(r.headers.get("gw-thread-id"), "th-1");
        const upstream = h.openai.requests.at(-1)!.headers;
        assert.equal(upstream["gw-trace-id"], "trace-abc");
        assert.equal(upstream["gw-thread-id"], "th-1");
        assert.equal(upstream.authorization, "Bearer sk-openai-test", "the provider key, never the client's");
        assert.ok(!JSON.stringify(upstream).includes(h.key), "the gateway key is not forwarded upstream");
        const generated = await rawPost(h, "/compat/v1/messages", ask);
        assert.match(generated.headers.get("gw-trace-id") ?? "", /^trace_[0-9a-f]{32}$/);
      },
    );
    await t.step("a client that disconnects mid-stream aborts the upstream request", async () => {
      const controller = new AbortController();
      const response = await fetch(`${h.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": h.key },
        body: JSON.stringify({ ...ask, model: "openai/fx-endless", stream: true }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      await reader.read();
      controller.abort();
      await reader.cancel().catch(() => {});
      const deadline = Date.now() + 3_000;
      while (h.openai.cancelled === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(h.openai.cancelled, 1);
    });
  } finally {
    await h.close();
  }
});
