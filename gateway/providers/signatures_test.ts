import assert from "node:assert/strict";
import type { MessagesRequest } from "../messages/types.ts";
import { foreignSignature, withoutForeignThinking } from "./signatures.ts";

Deno.test("thinking from other providers is dropped before Anthropic sees it; Claude's own is kept", () => {
  const request: MessagesRequest = {
    model: "claude-sonnet-4-5",
    max_tokens: 10,
    messages: [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "gemini's", signature: foreignSignature("gemini", "abc") },
          { type: "thinking", thinking: "openai's", signature: "" },
          { type: "thinking", thinking: "claude's", signature: "EqQBCkYIBxgCKkD" },
          { type: "text", text: "a" },
        ],
      },
    ],
  };
  const cleaned = withoutForeignThinking(request);
  assert.deepEqual(
    (cleaned.messages[1].content as Array<{ type: string; thinking?: string }>).map((b) =>
      b.thinking ?? b.type
    ),
    ["claude's", "text"],
  );
  const clean = { ...request, messages: [request.messages[0]] };
  assert.equal(withoutForeignThinking(clean), clean, "requests without foreign thinking are not copied");
});
