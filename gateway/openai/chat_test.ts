// deno-lint-ignore-file no-explicit-any -- test assertions read loosely typed JSON answers
import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import type { Message } from "../messages/types.ts";
import { parseChatRequest } from "./chat_request.ts";
import { chatCompletionOf } from "./chat_response.ts";
import { ChatStreamFormat } from "./chat_stream.ts";
import { paramOf } from "./errors.ts";

const refused = (body: Record<string, unknown>): GatewayError => {
  try {
    parseChatRequest(body);
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 400);
    return error;
  }
  throw new Error("accepted");
};

Deno.test("chat ingress translates system, images, tools, tool results, format, effort and stops", () => {
  const { request, includeUsage, defaultedMaxTokens } = parseChatRequest({
    model: "claude-x",
    messages: [
      { role: "system", content: "Sys." },
      { role: "developer", content: [{ type: "text", text: "Dev." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "Look" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: "ok" },
      { role: "user", content: "and?" },
    ],
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
    tool_choice: "required",
    parallel_tool_calls: false,
    response_format: {
      type: "json_schema",
      json_schema: { name: "r", strict: true, schema: { type: "object" } },
    },
    reasoning_effort: "medium",
    stop: "END",
    temperature: 0.5,
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: 10_000,
  });
  assert.deepEqual(request.system, [{ type: "text", text: "Sys." }, { type: "text", text: "Dev." }]);
  assert.deepEqual(request.messages[0].content, [
    { type: "text", text: "Look" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
  ]);
  assert.deepEqual(request.messages[1], {
    role: "assistant",
    content: [{ type: "tool_use", id: "c1", name: "f", input: { a: 1 } }],
  });
  // The tool result and the next user text merge into one user turn.
  assert.deepEqual(request.messages[2], {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "c1", content: "ok" }, { type: "text", text: "and?" }],
  });
  assert.deepEqual(request.tool_choice, { type: "any", disable_parallel_tool_use: true });
  assert.deepEqual(request.output_config, { format: { type: "json_schema", schema: { type: "object" } } });
  assert.deepEqual(request.thinking, { type: "enabled", budget_tokens: 4096 });
  assert.deepEqual(request.stop_sequences, ["END"]);
  assert.equal(request.max_tokens, 10_000);
  assert.equal(includeUsage, true);
  assert.equal(defaultedMaxTokens, false);
});

Deno.test("chat ingress writes one system message and a text-only assistant turn as strings", () => {
  const { request } = parseChatRequest({
    model: "m",
    messages: [
      { role: "system", content: "Sys." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: [{ type: "text", text: "Hel" }, { type: "text", text: "lo" }] },
      { role: "user", content: "Again" },
      { role: "assistant", content: "One" },
      { role: "assistant", content: "Two" },
    ],
  });
  assert.equal(request.system, "Sys.");
  assert.deepEqual(request.messages, [
    { role: "user", content: "Hi" },
    { role: "assistant", content: "Hello" },
    { role: "user", content: "Again" },
    // Consecutive turns of one role still merge into blocks.
    { role: "assistant", content: [{ type: "text", text: "One" }, { type: "text", text: "Two" }] },
  ]);
});

Deno.test("chat ingress drops empty system texts, keeps their order, and checks messages before limits", () => {
  const system = (messages: unknown[]) =>
    parseChatRequest({ model: "m", messages: [...messages, { role: "user", content: "Hi" }] }).request.system;
  assert.equal(system([{ role: "system", content: "" }, { role: "developer", content: "A" }]), "A");
  assert.deepEqual(
    system([
      { role: "system", content: "" },
      { role: "developer", content: "A" },
      { role: "system", content: [{ type: "text", text: "B" }] },
      { role: "system", content: "" },
    ]),
    [{ type: "text", text: "A" }, { type: "text", text: "B" }],
  );
  assert.equal(system([{ role: "system", content: "" }]), undefined);
  // The same serialization as before: model, max_tokens, messages, then system.
  const { request } = parseChatRequest({
    model: "m",
    max_completion_tokens: 5,
    messages: [{ role: "system", content: "S" }, { role: "user", content: "Hi" }],
  });
  assert.equal(
    JSON.stringify(request),
    '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"Hi"}],"system":"S"}',
  );
  // A fault in the messages is reported before one in the output limit, as it always was.
  assert.match(refused({ model: "m", max_tokens: -1, messages: [] }).message, /^messages:/);
  // parallel_tool_calls: false rides on every tool_choice that allows tools.
  const choice = (tool_choice: unknown, parallel_tool_calls?: boolean) =>
    parseChatRequest({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      tools: [{ type: "function", function: { name: "f" } }],
      tool_choice,
      parallel_tool_calls,
    }).request.tool_choice;
  assert.deepEqual(choice(undefined, false), { type: "auto", disable_parallel_tool_use: true });
  assert.deepEqual(choice("auto"), { type: "auto" });
  assert.deepEqual(choice("required", false), { type: "any", disable_parallel_tool_use: true });
  assert.deepEqual(choice({ type: "function", function: { name: "f" } }), { type: "tool", name: "f" });
  assert.deepEqual(choice({ type: "function", function: { name: "f" } }, false), {
    type: "tool",
    name: "f",
    disable_parallel_tool_use: true,
  });
  assert.deepEqual(choice("none", false), { type: "none" });
  assert.equal(choice(undefined), undefined);
});

Deno.test("chat ingress refuses what it cannot honour with a 400 naming the field", () => {
  const base = { model: "m", messages: [{ role: "user", content: "hi" }] };
  assert.equal(paramOf(refused({ ...base, n: 3 }).message), "n");
  assert.equal(paramOf(refused({ ...base, logprobs: true }).message), "logprobs");
  assert.equal(paramOf(refused({ ...base, frobnicate: 1 }).message), "frobnicate");
  assert.equal(paramOf(refused({ ...base, tools: [{ type: "web_search" }] }).message), "tools[0].type");
  assert.equal(
    paramOf(refused({ ...base, messages: [{ role: "user", content: 5 }] }).message),
    "messages[0].content",
  );
  assert.equal(paramOf(refused({ ...base, temperature: 3 }).message), "temperature");
  assert.equal(
    paramOf(
      refused({
        ...base,
        messages: [{
          role: "assistant",
          tool_calls: [{ id: "x", type: "function", function: { name: "f", arguments: "{" } }],
        }],
      }).message,
    ),
    "messages[0].tool_calls[0].function.arguments",
  );
  // Ignored hints are accepted.
  parseChatRequest({ ...base, store: true, seed: 3, metadata: { a: "b" }, presence_penalty: 0 });
});

const message = (content: Message["content"], stop: Message["stop_reason"]): Message => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "m",
  content,
  stop_reason: stop,
  stop_sequence: null,
  stop_details: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 },
});

Deno.test("chat answers carry tool calls, finish reasons, cached tokens and refusals", () => {
  const answer = chatCompletionOf(
    message(
      [{ type: "text", text: "Hi" }, { type: "tool_use", id: "t1", name: "f", input: { a: 1 } }],
      "tool_use",
    ),
    "alias",
  ) as { model: string; choices: Array<Record<string, any>>; usage: Record<string, any> };
  assert.equal(answer.model, "alias");
  assert.equal(answer.choices[0].finish_reason, "tool_calls");
  assert.deepEqual(answer.choices[0].message.tool_calls, [
    { id: "t1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
  ]);
  assert.equal(answer.usage.prompt_tokens, 14);
  assert.equal(answer.usage.prompt_tokens_details.cached_tokens, 4);
  const refusal = chatCompletionOf(message([{ type: "text", text: "No." }], "refusal"), "m") as any;
  assert.equal(refusal.choices[0].message.refusal, "No.");
  assert.equal(refusal.choices[0].message.content, null);
  const cut = chatCompletionOf(message([{ type: "text", text: "…" }], "max_tokens"), "m") as any;
  assert.equal(cut.choices[0].finish_reason, "length");
});

Deno.test("chat stream: role, deltas, tool call fragments, finish, usage chunk, [DONE]", () => {
  const format = new ChatStreamFormat("m", true);
  const out = [
    { type: "message_start", message: { usage: { input_tokens: 7 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t", name: "f" } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"a"' } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: ":1}" } },
    { type: "content_block_stop", index: 1 },
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
    { type: "message_stop" },
  ].map((event) => format.event(event)).join("");
  const data = out.split("\n\n").filter(Boolean).map((frame) => frame.slice("data: ".length));
  assert.equal(data.at(-1), "[DONE]");
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
  assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
  assert.equal(chunks[1].choices[0].delta.content, "Hi");
  assert.equal(chunks[2].choices[0].delta.tool_calls[0].id, "t");
  assert.equal(chunks[3].choices[0].delta.tool_calls[0].function.arguments, '{"a"');
  assert.equal(chunks.at(-2).choices[0].finish_reason, "tool_calls");
  assert.deepEqual(chunks.at(-1).choices, []);
  assert.equal(chunks.at(-1).usage.completion_tokens, 9);
  assert.equal(chunks.at(-1).usage.prompt_tokens, 7);
  assert.ok(format.ended);
  const failed = new ChatStreamFormat("m", false).error("overloaded_error", "busy");
  assert.deepEqual(JSON.parse(failed.slice(6)).error, {
    message: "busy",
    type: "server_error",
    param: null,
    code: "overloaded",
  });
});
