import assert from "node:assert/strict";
import type { MessagesRequest } from "../messages/types.ts";
import { OPENAI_QUIRKS } from "./openai.ts";
import { nineCharToolId, toChatRequest } from "./openai_request.ts";

const request: MessagesRequest = {
  model: "x",
  max_tokens: 100,
  system: [{ type: "text", text: "Sys A" }, { type: "text", text: "Sys B" }],
  messages: [
    { role: "user", content: "weather?" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "secret", signature: "claude-sig" },
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "toolu_01", name: "w", input: { c: "P" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "text", text: "and also" },
        { type: "tool_result", tool_use_id: "toolu_01", content: "sunny", is_error: false },
      ],
    },
  ],
  tools: [{ name: "w", input_schema: { type: "object" } }],
  tool_choice: { type: "tool", name: "w", disable_parallel_tool_use: true },
  stop_sequences: ["END"],
};

Deno.test("tool results become tool messages right after the calls, before the user's own text", () => {
  const body = toChatRequest(request, "gpt-4.1", OPENAI_QUIRKS, false);
  const messages = body.messages as Array<Record<string, unknown>>;
  assert.deepEqual(messages.map((m) => m.role), ["system", "user", "assistant", "tool", "user"]);
  assert.equal(messages[0].content, "Sys A\nSys B");
  assert.equal(messages[2].content, "Let me check.", "thinking blocks are dropped");
  assert.equal(messages[3].tool_call_id, "toolu_01");
  assert.equal(body.max_completion_tokens, 100);
  assert.deepEqual(body.tool_choice, { type: "function", function: { name: "w" } });
  assert.equal(body.parallel_tool_calls, false);
  assert.deepEqual(body.stop, ["END"]);
});

Deno.test("streaming requests ask for usage and Mistral ids are nine alphanumerics, stable both ways", () => {
  const body = toChatRequest(request, "m", { ...OPENAI_QUIRKS, nineCharToolIds: true }, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  const messages = body.messages as Array<Record<string, unknown>>;
  const call = (messages[2].tool_calls as Array<{ id: string }>)[0].id;
  assert.match(call, /^[a-zA-Z0-9]{9}$/);
  assert.equal(messages[3].tool_call_id, call);
  assert.equal(nineCharToolId("toolu_01"), call);
  assert.notEqual(nineCharToolId("toolu_02"), call);
  assert.equal(nineCharToolId("abcDEF123"), "abcDEF123");
});

Deno.test("sampling parameters are dropped for OpenAI reasoning models only", () => {
  const sampled = { ...request, temperature: 0.3, top_p: 0.9 };
  assert.equal(toChatRequest(sampled, "o4-mini", OPENAI_QUIRKS, false).temperature, undefined);
  assert.equal(toChatRequest(sampled, "gpt-5-mini", OPENAI_QUIRKS, false).top_p, undefined);
  assert.equal(toChatRequest(sampled, "gpt-4.1", OPENAI_QUIRKS, false).temperature, 0.3);
});
