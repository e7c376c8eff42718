import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import type { MessagesRequest } from "../messages/types.ts";
import { cachePointsOf, toConverseRequest } from "./bedrock_converse_request.ts";

const base = { model: "m", max_tokens: 100 };

Deno.test("system turns, sampling, top_k and thinking land where Converse reads them", () => {
  const body = toConverseRequest({
    ...base,
    system: [{ type: "text", text: "Be brief." }],
    messages: [{ role: "system", content: "And kind." }, { role: "user", content: "Hi" }, {
      role: "user",
      content: [{ type: "text", text: "there" }],
    }],
    temperature: 0.3,
    top_p: 0.9,
    top_k: 40,
    stop_sequences: ["END"],
    thinking: { type: "enabled", budget_tokens: 2048 },
  } as MessagesRequest);
  assert.deepEqual(body.system, [{ text: "Be brief." }, { text: "And kind." }]);
  assert.deepEqual(body.messages, [{ role: "user", content: [{ text: "Hi" }, { text: "there" }] }]);
  assert.deepEqual(body.inferenceConfig, {
    maxTokens: 100,
    temperature: 0.3,
    topP: 0.9,
    stopSequences: ["END"],
  });
  assert.deepEqual(body.additionalModelRequestFields, {
    top_k: 40,
    thinking: { type: "enabled", budget_tokens: 2048 },
  });
});

Deno.test("only Bedrock's own reasoning goes back, with its original signature", () => {
  const body = toConverseRequest({
    ...base,
    messages: [
      { role: "user", content: "Q" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "mine", signature: "gw-bedrock:c2ln" },
          { type: "thinking", thinking: "gemini's", signature: "gw-gemini:eHh4" },
          { type: "text", text: "A" },
        ],
      },
    ],
  } as MessagesRequest);
  assert.deepEqual((body.messages as Array<{ content: unknown[] }>)[1].content, [
    { reasoningContent: { reasoningText: { text: "mine", signature: "c2ln" } } },
    { text: "A" },
  ]);
});

Deno.test("tool_choice none drops tools unless the history used them", () => {
  const tools = [{ name: "t", input_schema: { type: "object" } }];
  const plain = toConverseRequest({
    ...base,
    tools,
    tool_choice: { type: "none" },
    messages: [{ role: "user", content: "Hi" }],
  } as MessagesRequest);
  assert.equal(plain.toolConfig, undefined);
  const withHistory = toConverseRequest({
    ...base,
    tools,
    tool_choice: { type: "none" },
    messages: [
      { role: "user", content: "Hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "t", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: true }] },
    ],
  } as MessagesRequest);
  const config = withHistory.toolConfig as Record<string, unknown>;
  assert.equal(config.toolChoice, undefined);
  assert.deepEqual((withHistory.messages as Array<{ content: unknown[] }>)[2].content, [
    { toolResult: { toolUseId: "t1", content: [{ text: "" }], status: "error" } },
  ]);
});

Deno.test("PDFs become named documents and unsupported inputs are 400s naming the problem", () => {
  const body = toConverseRequest({
    ...base,
    messages: [{
      role: "user",
      content: [{
        type: "document",
        title: "Q3 report.pdf",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" },
      }],
    }],
  } as MessagesRequest);
  assert.deepEqual((body.messages as Array<{ content: unknown[] }>)[0].content[0], {
    document: { format: "pdf", name: "Q3 report pdf", source: { bytes: "JVBERi0=" } },
  });
  const refused = (request: Partial<MessagesRequest>) =>
    assert.throws(
      () => toConverseRequest({ ...base, messages: [], ...request } as MessagesRequest),
      (e) => e instanceof GatewayError && e.status === 400,
    );
  refused({
    messages: [{ role: "user", content: [{ type: "image", source: { type: "url", url: "https://x" } }] }],
  });
  refused({
    messages: [{
      role: "user",
      content: [{ type: "image", source: { type: "base64", media_type: "image/bmp", data: "" } }],
    }],
  });
  refused({ output_config: { format: { type: "json_schema", schema: { type: "object" } } } });
});

Deno.test("cache_control breakpoints become cachePoint blocks after the cached system block, message and tool", () => {
  const cc = { type: "ephemeral" };
  const request = {
    ...base,
    system: [{ type: "text", text: "You are Claude Code." }, {
      type: "text",
      text: "Long rules.",
      cache_control: cc,
    }, {
      type: "text",
      text: "Today is Monday.",
    }],
    tools: [{ name: "Read", input_schema: { type: "object" } }, {
      name: "Edit",
      input_schema: { type: "object" },
      cache_control: cc,
    }],
    messages: [{
      role: "user",
      content: [{ type: "text", text: "Fix it", cache_control: cc }, { type: "text", text: "now" }],
    }],
  } as unknown as MessagesRequest;
  const point = { cachePoint: { type: "default" } };
  const claude = toConverseRequest(request, cachePointsOf("us.anthropic.claude-sonnet-4-20250514-v1:0"));
  assert.deepEqual(claude.system, [{ text: "You are Claude Code.\nLong rules." }, point, {
    text: "Today is Monday.",
  }]);
  assert.deepEqual(claude.messages, [{
    role: "user",
    content: [{ text: "Fix it" }, point, { text: "now" }],
  }]);
  const tools = (claude.toolConfig as { tools: unknown[] }).tools;
  assert.equal(tools.length, 3);
  assert.deepEqual(tools[2], point);
  // Nova caches system and messages, not tools; other models get no cachePoint at all.
  const nova = toConverseRequest(request, cachePointsOf("amazon.nova-pro-v1:0"));
  assert.equal((nova.toolConfig as { tools: unknown[] }).tools.length, 2);
  assert.deepEqual((nova.system as unknown[])[1], point);
  const llama = toConverseRequest(request, cachePointsOf("meta.llama3-70b-instruct-v1:0"));
  assert.ok(!JSON.stringify(llama).includes("cachePoint"));
  assert.deepEqual(llama.system, [{ text: "You are Claude Code.\nLong rules.\nToday is Monday." }]);
});

Deno.test("at most four cachePoints, as Anthropic allows four breakpoints", () => {
  const cc = { type: "ephemeral" };
  const body = toConverseRequest({
    ...base,
    messages: [{
      role: "user",
      content: Array.from({ length: 6 }, (_, i) => ({ type: "text", text: `part ${i}`, cache_control: cc })),
    }],
  } as unknown as MessagesRequest, { tools: true });
  assert.equal(JSON.stringify(body).split("cachePoint").length - 1, 4);
});
