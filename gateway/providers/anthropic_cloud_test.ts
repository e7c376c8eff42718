import assert from "node:assert/strict";
import type { MessagesRequest } from "../messages/types.ts";
import { cloudAnthropicBody, countTokensFields } from "./anthropic_cloud.ts";
import type { ProviderCall } from "./contract.ts";

/** What Claude Code 2.1 sends on every turn (trimmed): betas, a deferred tool, a mid-conversation system turn. */
const CLAUDE_CODE_BETAS =
  "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27," +
  "per-turn-control-2026-07-01,advanced-tool-use-2025-11-20,effort-2025-11-24";

function call(request: Partial<MessagesRequest>, betas = CLAUDE_CODE_BETAS): ProviderCall {
  return {
    request: { model: "claude-x", max_tokens: 64, messages: [], ...request } as MessagesRequest,
    upstreamModel: "claude-x",
    requestedModel: "claude-x",
    abort: new AbortController(),
    trace: { traceId: "t" },
    clientHeaders: new Headers(betas ? { "anthropic-beta": betas } : {}),
    inputTokensEstimate: 1,
  };
}

const claudeCodeTurn = {
  system: [{ type: "text" as const, text: "You are a Claude agent." }],
  messages: [
    { role: "user" as const, content: "run it" },
    { role: "system" as const, content: [{ type: "text" as const, text: "# Environment" }] },
  ],
  tools: [
    { name: "Bash", input_schema: { type: "object" } },
    { name: "DeferredToolPlaceholder", input_schema: { type: "object" }, defer_loading: true },
  ],
  context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
  output_config: { effort: "medium" },
};

Deno.test("a cloud body carries only the betas Bedrock and Vertex offer", () => {
  const body = cloudAnthropicBody(call(claudeCodeTurn), "bedrock-2023-05-31");
  assert.deepEqual(body.anthropic_beta, [
    "interleaved-thinking-2025-05-14",
    "context-management-2025-06-27",
    "effort-2025-11-24",
  ]);
  assert.deepEqual(body.context_management, claudeCodeTurn.context_management);
  assert.deepEqual(body.output_config, { effort: "medium" });
  assert.equal("anthropic_beta" in cloudAnthropicBody(call({}, "claude-code-20250219"), "v"), false);
});

Deno.test("system turns join the system prompt and defer_loading goes without the tool-search beta", () => {
  const request = call(claudeCodeTurn);
  const body = cloudAnthropicBody(request, "vertex-2023-10-16", true);
  assert.deepEqual(body.system, [
    { type: "text", text: "You are a Claude agent." },
    { type: "text", text: "# Environment" },
  ]);
  assert.deepEqual(body.messages, [{ role: "user", content: "run it" }]);
  assert.deepEqual(body.tools, [
    { name: "Bash", input_schema: { type: "object" } },
    { name: "DeferredToolPlaceholder", input_schema: { type: "object" } },
  ]);
  assert.equal(request.request.messages.length, 2, "the client's request is left as it was");
  assert.deepEqual(countTokensFields(request).messages, body.messages);
  const searching = cloudAnthropicBody(call(claudeCodeTurn, "tool-search-tool-2025-10-19"), "v");
  assert.equal((searching.tools as Array<Record<string, unknown>>)[1].defer_loading, true);
});

Deno.test("context_management stays behind when its beta does", () => {
  const body = cloudAnthropicBody(call(claudeCodeTurn, "interleaved-thinking-2025-05-14"), "v");
  assert.equal("context_management" in body, false);
  assert.equal("context_management" in call(claudeCodeTurn).request, true);
});
