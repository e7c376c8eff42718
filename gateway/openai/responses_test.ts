// deno-lint-ignore-file no-explicit-any -- test assertions read loosely typed JSON answers
import assert from "node:assert/strict";
import { GatewayError } from "../errors.ts";
import type { Message } from "../messages/types.ts";
import { parseResponsesRequest } from "./responses_request.ts";
import { responseOf } from "./responses_response.ts";
import { ResponsesStreamFormat } from "./responses_stream.ts";

Deno.test("responses ingress translates items, instructions, reasoning carried across turns and text.format", () => {
  const { request, echo } = parseResponsesRequest({
    model: "claude-x",
    instructions: "Be terse.",
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "Dev." }] },
      { role: "user", content: "Run ls" },
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "Think" }],
        encrypted_content: "sig",
      },
      { type: "function_call", call_id: "call_1", name: "shell", arguments: '{"cmd":"ls"}' },
      { type: "function_call_output", call_id: "call_1", output: "a.txt" },
      { type: "reasoning", id: "rs_2", summary: [] }, // no encrypted content: cannot be replayed, dropped
    ],
    tools: [{ type: "function", name: "shell", parameters: { type: "object" }, strict: false }],
    text: { format: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true } },
    reasoning: { effort: "high", summary: "auto" },
    store: false,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "k",
    client_metadata: { a: "b" },
  });
  assert.deepEqual(request.system, [{ type: "text", text: "Be terse." }, { type: "text", text: "Dev." }]);
  assert.deepEqual(request.messages, [
    { role: "user", content: [{ type: "text", text: "Run ls" }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Think", signature: "sig" },
        { type: "tool_use", id: "call_1", name: "shell", input: { cmd: "ls" } },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a.txt" }] },
  ]);
  assert.deepEqual(request.thinking, { type: "enabled", budget_tokens: 16_384 });
  assert.ok(request.max_tokens > 16_384);
  assert.deepEqual(request.output_config, { format: { type: "json_schema", schema: { type: "object" } } });
  assert.equal(echo.store, false);
});

Deno.test("responses ingress refuses stored state and hosted tools before any upstream call", () => {
  const attempt = (body: Record<string, unknown>) => {
    try {
      parseResponsesRequest({ model: "m", input: "hi", ...body });
    } catch (error) {
      assert.ok(error instanceof GatewayError && error.status === 400);
      return error.message;
    }
    throw new Error("accepted");
  };
  assert.match(
    attempt({ previous_response_id: "resp_1" }),
    /^previous_response_id: this gateway stores no responses/,
  );
  assert.match(attempt({ tools: [{ type: "file_search" }] }), /^tools\.0\.type: .*provider-hosted/);
  assert.match(attempt({ tools: [{ type: "computer_use_preview" }] }), /provider-hosted/);
  assert.match(attempt({ input: [{ type: "item_reference", id: "x" }] }), /^input\.0\.type/);
  assert.match(attempt({ input: [{ type: "web_search_call", id: "x" }] }), /provider-hosted tools/);
  assert.match(attempt({ reasoning: { effort: "huge" } }), /^reasoning\.effort/);
  assert.match(attempt({ unknown_field: 1 }), /^unknown_field: unrecognized/);
});

const message: Message = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "m",
  content: [
    { type: "thinking", thinking: "Hmm", signature: "sig-1" },
    { type: "text", text: "Running." },
    { type: "tool_use", id: "toolu_1", name: "shell", input: { cmd: "ls" } },
  ],
  stop_reason: "tool_use",
  stop_sequence: null,
  stop_details: null,
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
};

Deno.test("responses answers list reasoning, message and function_call items; the reasoning replays", () => {
  const response = responseOf(message, "alias", {}) as {
    output: Array<Record<string, any>>;
    usage: any;
    status: string;
  };
  assert.deepEqual(response.output.map((item) => item.type), ["reasoning", "message", "function_call"]);
  assert.equal(response.output[0].encrypted_content, "sig-1");
  assert.equal(response.output[2].call_id, "toolu_1");
  assert.equal(response.usage.input_tokens, 12);
  assert.equal(response.usage.input_tokens_details.cached_tokens, 2);
  assert.equal(response.status, "completed");
  // The output fed back as input gives the same assistant turn.
  const next = parseResponsesRequest({
    model: "m",
    input: [{ role: "user", content: "go" }, ...response.output],
  });
  assert.deepEqual(next.request.messages[1].content, [
    { type: "thinking", thinking: "Hmm", signature: "sig-1" },
    { type: "text", text: "Running." },
    { type: "tool_use", id: "toolu_1", name: "shell", input: { cmd: "ls" } },
  ]);
});

Deno.test("responses stream events come in the order Codex CLI reads them", () => {
  const format = new ResponsesStreamFormat("m", {});
  const text = [
    { type: "message_start", message: { usage: { input_tokens: 3 } } },
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Hmm" } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hi" } },
    { type: "content_block_stop", index: 1 },
    {
      type: "content_block_start",
      index: 2,
      content_block: { type: "tool_use", id: "toolu_1", name: "shell" },
    },
    {
      type: "content_block_delta",
      index: 2,
      delta: { type: "input_json_delta", partial_json: '{"cmd":"ls"}' },
    },
    { type: "content_block_stop", index: 2 },
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 4 } },
    { type: "message_stop" },
  ].map((event) => format.event(event)).join("");
  const events = text.split("\n\n").filter(Boolean).map((frame) => JSON.parse(frame.split("\ndata: ")[1]));
  assert.deepEqual(events.map((e) => e.type), [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.reasoning_summary_part.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.output_item.added",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.output_item.done",
    "response.completed",
  ]);
  assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i));
  assert.equal(events[7].item.encrypted_content, "sig");
  assert.equal(events[17].item.call_id, "toolu_1");
  const done = events.at(-1).response;
  assert.equal(done.usage.output_tokens, 4);
  assert.deepEqual(done.output.map((i: { type: string }) => i.type), [
    "reasoning",
    "message",
    "function_call",
  ]);
  const failed = new ResponsesStreamFormat("m", {}).error("rate_limit_error", "slow down");
  const event = JSON.parse(failed.split("\ndata: ")[1]);
  assert.equal(event.type, "response.failed");
  assert.equal(event.response.status, "failed");
  assert.deepEqual(event.response.error, { code: "rate_limit_exceeded", message: "slow down" });
});

Deno.test("responses ingress: empty system texts dropped, thinking leads its turn only when out of place", () => {
  const parse = (body: Record<string, unknown>) => parseResponsesRequest({ model: "m", ...body }).request;
  assert.deepEqual(
    parse({
      instructions: "",
      input: [{ role: "developer", content: "Dev." }, { role: "user", content: "Hi" }],
    })
      .system,
    [{ type: "text", text: "Dev." }],
  );
  assert.equal(parse({ instructions: "", input: "Hi" }).system, undefined);
  assert.deepEqual(
    parse({ instructions: "I.", input: [{ role: "system", content: "" }, { role: "user", content: "Hi" }] })
      .system,
    [{ type: "text", text: "I." }],
  );
  const reasoning = (id: string) => ({
    type: "reasoning",
    id,
    summary: [{ type: "summary_text", text: id }],
    encrypted_content: `sig-${id}`,
  });
  const call = { type: "function_call", call_id: "c1", name: "f", arguments: "{}" };
  const text = { role: "assistant", content: "Said." };
  // Out of place: the reasoning after the text moves before it, in its order.
  assert.deepEqual(
    parse({ input: [{ role: "user", content: "Hi" }, text, reasoning("r1"), reasoning("r2"), call] })
      .messages[1]
      .content,
    [
      { type: "thinking", thinking: "r1", signature: "sig-r1" },
      { type: "thinking", thinking: "r2", signature: "sig-r2" },
      { type: "text", text: "Said." },
      { type: "tool_use", id: "c1", name: "f", input: {} },
    ],
  );
  // In place: the turn is left as it came.
  const inOrder =
    parse({ input: [{ role: "user", content: "Hi" }, reasoning("r1"), text, call] }).messages[1];
  assert.deepEqual(inOrder.content, [
    { type: "thinking", thinking: "r1", signature: "sig-r1" },
    { type: "text", text: "Said." },
    { type: "tool_use", id: "c1", name: "f", input: {} },
  ]);
});
