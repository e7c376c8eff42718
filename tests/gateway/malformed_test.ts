/**
 * Malformed requests: every one is a 400 `invalid_request_error` naming the offending field, on every lane
 * and in both modes, and none reaches an upstream (SDKs retry 5xx, so a 500 here would triple the damage).
 */
import assert from "node:assert/strict";
import { rawPost, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const user = (content: unknown) => [{ role: "user", content }];
const callThen = (result: unknown) => [
  { role: "user", content: "run f" },
  { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: result }] },
];

/** Patch of a valid body → the field the error message must name. */
const CASES: Array<[string, Record<string, unknown>, string]> = [
  ["empty messages", { messages: [] }, "messages"],
  ["max_tokens beyond the unknown-model ceiling", { max_tokens: 1_000_001 }, "max_tokens"],
  ["a document without a source", { messages: user([{ type: "document" }]) }, "messages.0.content.0.source"],
  [
    "a document with a null source",
    { messages: user([{ type: "document", source: null }]) },
    "messages.0.content.0.source",
  ],
  [
    "a document source without data",
    { messages: user([{ type: "document", source: { type: "base64", media_type: "application/pdf" } }]) },
    "messages.0.content.0.source.data",
  ],
  ["a tool_result whose content is a number", { messages: callThen(5) }, "messages.2.content.0.content"],
  [
    "a tool_result whose content holds null",
    { messages: callThen([null]) },
    "messages.2.content.0.content.0",
  ],
  [
    "a tool_result text block without text",
    { messages: callThen([{ type: "text" }]) },
    "messages.2.content.0.content.0.text",
  ],
  [
    "an image source without data",
    { messages: user([{ type: "image", source: { type: "base64", media_type: "image/png" } }]) },
    "messages.0.content.0.source.data",
  ],
  [
    "an image source of unknown type",
    { messages: user([{ type: "image", source: { type: "zzz" } }]) },
    "messages.0.content.0.source.type",
  ],
  ["thinking as a string", { thinking: "yes" }, "thinking.type"],
  [
    "a thinking budget that is not a number",
    { thinking: { type: "enabled", budget_tokens: "x" } },
    "thinking",
  ],
  ["metadata as a string", { metadata: "x" }, "metadata"],
  ["a tool_use input that is not an object", {
    messages: [
      { role: "user", content: "x" },
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "x" }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "ok" }] },
    ],
  }, "messages.1.content.0.input"],
  ["a tool description that is a number", {
    tools: [{ name: "f", description: 5, input_schema: { type: "object" } }],
  }, "tools.0.description"],
  ["an image block in system", {
    system: [{ type: "image", source: { type: "url", url: "https://x" } }],
  }, "system.0"],
  ["output_config.format without a schema", { output_config: { format: { type: "json_schema" } } }, "schema"],
  ["a thinking block whose text is a number", {
    messages: [{ role: "user", content: "a" }, {
      role: "assistant",
      content: [{ type: "thinking", thinking: 5 }],
    }, {
      role: "user",
      content: "b",
    }],
  }, "messages.1.content.0.thinking"],
];

const LANES = ["openai/fx-text", "mistral/fx-text", "gemini/gx-text", "claude-fx-tool"];

Deno.test(
  "every malformed request is a 400 invalid_request_error naming the field, before any upstream call",
  e2e,
  async (t) => {
    const h = await startHarness();
    const upstreamCalls = () =>
      h.openai.requests.length + h.compat.requests.length + h.gemini.requests.length +
      h.anthropic.requests.length;
    try {
      for (const [name, patch, field] of CASES) {
        await t.step(name, async () => {
          const before = upstreamCalls();
          for (const model of LANES) {
            for (const stream of [false, true]) {
              const body = { model, max_tokens: 64, messages: user("hi"), ...patch, stream };
              const r = await rawPost(h, "/v1/messages", body);
              assert.equal(r.status, 400, `${model} stream=${stream}: ${r.text}`);
              const error = JSON.parse(r.text).error;
              assert.equal(error.type, "invalid_request_error");
              assert.ok(error.message.includes(field), `${model}: ${error.message} should name ${field}`);
            }
          }
          assert.equal(upstreamCalls(), before, "no upstream was called");
        });
      }
    } finally {
      await h.close();
    }
  },
);

Deno.test("max_tokens beyond a configured model limit is refused before the upstream call", e2e, async () => {
  const h = await startHarness({}, "models:\n  - { id: openai/fx-text, max_tokens: 4096 }\n");
  try {
    const over = await rawPost(h, "/v1/messages", {
      model: "openai/fx-text",
      max_tokens: 4097,
      messages: user("hi"),
    });
    assert.equal(over.status, 400);
    assert.match(JSON.parse(over.text).error.message, /max_tokens: 4097 > 4096.*openai\/fx-text/);
    assert.equal(h.openai.requests.length, 0);
    const at = await rawPost(h, "/v1/messages", {
      model: "openai/fx-text",
      max_tokens: 4096,
      messages: user("hi"),
    });
    assert.equal(at.status, 200);
  } finally {
    await h.close();
  }
});

Deno.test(
  "a model name with CR/LF or other control characters is a 400 on every route, before any upstream call",
  e2e,
  async () => {
    const h = await startHarness();
    const upstreamCalls = () =>
      h.openai.requests.length + h.compat.requests.length + h.gemini.requests.length +
      h.anthropic.requests.length;
    try {
      for (const model of ["openai/x\r\nX-Evil: 1", "gemini/gx-text\n", "claude-fx-tool\u0000", "a b", ""]) {
        for (const path of ["/v1/messages", "/v1/messages/count_tokens"]) {
          for (const stream of [false, true]) {
            const r = await rawPost(h, path, { model, max_tokens: 64, messages: user("hi"), stream });
            assert.equal(r.status, 400, `${JSON.stringify(model)} ${path}: ${r.text}`);
            const error = JSON.parse(r.text).error;
            assert.equal(error.type, "invalid_request_error");
            assert.match(error.message, /^model: /);
          }
        }
      }
      assert.equal(upstreamCalls(), 0, "no upstream was called");
    } finally {
      await h.close();
    }
  },
);

Deno.test(
  "a body nested deeper than the gateway reads is a 400 on every lane of messages and count_tokens",
  e2e,
  async () => {
    const h = await startHarness();
    const upstreamCalls = () =>
      h.openai.requests.length + h.compat.requests.length + h.gemini.requests.length +
      h.anthropic.requests.length;
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    try {
      for (const model of [...LANES, "gemini/gx-text"]) {
        for (const path of ["/v1/messages", "/v1/messages/count_tokens"]) {
          // The nesting sits in a tool's input, where nothing else looks before translation.
          const text = `{"model":${JSON.stringify(model)},"max_tokens":64,"messages":[` +
            `{"role":"user","content":"run f"},{"role":"assistant","content":[{"type":"tool_use","id":"t1",` +
            `"name":"f","input":{"deep":${deep}}}]},{"role":"user","content":[{"type":"tool_result",` +
            `"tool_use_id":"t1","content":"ok"}]}]}`;
          const response = await fetch(`${h.url}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-api-key": h.key },
            body: text,
          });
          const r = { status: response.status, text: await response.text() };
          assert.equal(r.status, 400, `${model} ${path}: ${r.text.slice(0, 200)}`);
          const error = JSON.parse(r.text).error;
          assert.equal(error.type, "invalid_request_error");
          assert.match(error.message, /nest/);
        }
      }
      assert.equal(upstreamCalls(), 0, "no upstream was called");
    } finally {
      await h.close();
    }
  },
);
