/**
 * Bad input, keys and limits on the OpenAI-format endpoints, over HTTP: every malformed body is a 400 in
 * OpenAI's error shape whose `param` names the field, and no upstream is called; keys work by Bearer and
 * X-API-Key; an admin key, a key restricted to other models and a key over its rate limit are refused in
 * OpenAI's shape with the Messages API's statuses; the models list shows only what the key may use.
 */
import assert from "node:assert/strict";
import { type Harness, startHarness } from "./harness.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const user = [{ role: "user", content: "Hi" }];

/** Malformed bodies and the `param` each error must name. */
const CHAT_CASES: Array<[string, unknown, string | null]> = [
  ["not JSON", "{", null],
  ["not an object", [1], null],
  ["no model", { messages: user }, "model"],
  ["no messages", { model: "openai/fx-text" }, "messages"],
  ["empty messages", { model: "openai/fx-text", messages: [] }, "messages"],
  [
    "a bad role",
    { model: "openai/fx-text", messages: [{ role: "robot", content: "x" }] },
    "messages[0].role",
  ],
  [
    "a bad part",
    { model: "openai/fx-text", messages: [{ role: "user", content: [{ type: "video" }] }] },
    "messages[0].content[0].type",
  ],
  ["a bad image url", {
    model: "openai/fx-text",
    messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "ftp://x" } }] }],
  }, "messages[0].content[0].image_url.url"],
  ["a tool message without its call id", {
    model: "openai/fx-text",
    messages: [{ role: "tool", content: "x" }],
  }, "messages[0].tool_call_id"],
  ["max_tokens of 0", { model: "openai/fx-text", messages: user, max_tokens: 0 }, "max_tokens"],
  ["a string temperature", { model: "openai/fx-text", messages: user, temperature: "hot" }, "temperature"],
  ["too many stops", { model: "openai/fx-text", messages: user, stop: ["a", "b", "c", "d", "e"] }, "stop"],
  ["n of 2", { model: "openai/fx-text", messages: user, n: 2 }, "n"],
  ["stream_options without stream", {
    model: "openai/fx-text",
    messages: user,
    stream_options: { include_usage: true },
  }, "stream_options"],
  ["a bad tool name", {
    model: "openai/fx-text",
    messages: user,
    tools: [{ type: "function", function: { name: "has space" } }],
  }, "tools[0].function.name"],
  [
    "a hosted tool",
    { model: "openai/fx-text", messages: user, tools: [{ type: "web_search_preview" }] },
    "tools[0].type",
  ],
  ["a bad tool_choice", { model: "openai/fx-text", messages: user, tool_choice: "sometimes" }, "tool_choice"],
  ["a json_schema without schema", {
    model: "openai/fx-text",
    messages: user,
    response_format: { type: "json_schema", json_schema: { name: "x" } },
  }, "response_format.json_schema.schema"],
  [
    "a bad reasoning_effort",
    { model: "openai/fx-text", messages: user, reasoning_effort: "max" },
    "reasoning_effort",
  ],
  ["an unknown field", { model: "openai/fx-text", messages: user, temprature: 1 }, "temprature"],
  ["legacy functions", { model: "openai/fx-text", messages: user, functions: [{ name: "f" }] }, "functions"],
];

const RESPONSES_CASES: Array<[string, unknown, string | null]> = [
  ["no input", { model: "openai/fx-text" }, "input"],
  ["a bad item", { model: "openai/fx-text", input: [{ type: "telepathy" }] }, "input[0].type"],
  ["a function call without arguments", {
    model: "openai/fx-text",
    input: [{ type: "function_call", call_id: "c", name: "f" }],
  }, "input[0].arguments"],
  [
    "previous_response_id",
    { model: "openai/fx-text", input: "Hi", previous_response_id: "resp_1" },
    "previous_response_id",
  ],
  [
    "a file_search tool",
    { model: "openai/fx-text", input: "Hi", tools: [{ type: "file_search" }] },
    "tools[0].type",
  ],
  [
    "a code_interpreter tool",
    { model: "openai/fx-text", input: "Hi", tools: [{ type: "code_interpreter" }] },
    "tools[0].type",
  ],
  [
    "a bad text.format",
    { model: "openai/fx-text", input: "Hi", text: { format: { type: "xml" } } },
    "text.format.type",
  ],
  [
    "a bad max_output_tokens",
    { model: "openai/fx-text", input: "Hi", max_output_tokens: -1 },
    "max_output_tokens",
  ],
  ["background", { model: "openai/fx-text", input: "Hi", background: true }, "background"],
];

function post(h: Harness, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${h.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${h.key}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Waits until the key cache knows `key` (it refreshes every GATEWAY_KEY_CACHE_TTL_MS). */
async function known(h: Harness, key: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const response = await fetch(`${h.url}/openai/v1/models`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await response.body?.cancel();
    if (response.status !== 401) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the new key never became known");
}

async function expectError(response: Response, status: number, param?: string | null) {
  const body = await response.json();
  assert.equal(response.status, status, JSON.stringify(body));
  assert.equal(typeof body.error?.message, "string");
  assert.ok("type" in body.error && "param" in body.error && "code" in body.error, JSON.stringify(body));
  if (param !== undefined) assert.equal(body.error.param, param, body.error.message);
  return body.error;
}

Deno.test(
  "malformed OpenAI-format requests are 400s naming the field, before any upstream call",
  e2e,
  async (t) => {
    const h = await startHarness();
    try {
      const upstreamCalls = () =>
        h.openai.requests.length + h.anthropic.requests.length + h.gemini.requests.length;
      const before = upstreamCalls();
      for (
        const [path, cases] of [["/openai/v1/chat/completions", CHAT_CASES], [
          "/openai/v1/responses",
          RESPONSES_CASES,
        ]] as const
      ) {
        for (const [name, body, param] of cases) {
          await t.step(`${path}: ${name}`, async () => {
            await expectError(await post(h, path, body), 400, param);
          });
        }
      }
      assert.equal(upstreamCalls(), before, "no malformed request reached an upstream");
    } finally {
      await h.close();
    }
  },
);

Deno.test("OpenAI-format keys, permissions and limits behave as on the Messages API", e2e, async (t) => {
  const h = await startHarness();
  try {
    await t.step("X-API-Key works as well as Bearer, on both paths of each endpoint", async () => {
      for (const path of ["/openai/v1/chat/completions", "/v1/chat/completions"]) {
        const response = await post(h, path, { model: "openai/fx-text", messages: user }, {
          authorization: "",
          "x-api-key": h.key,
        });
        assert.equal(response.status, 200, await response.clone().text());
        assert.equal((await response.json()).object, "chat.completion");
      }
      const response = await post(h, "/v1/responses", { model: "openai/fx-text", input: "Hi" });
      assert.equal((await response.json()).object, "response");
    });
    await t.step("no key, a wrong key and an admin key are refused in OpenAI's shape", async () => {
      const body = { model: "openai/fx-text", messages: user };
      assert.equal(
        (await expectError(await post(h, "/openai/v1/chat/completions", body, { authorization: "" }), 401))
          .code,
        "invalid_api_key",
      );
      await expectError(
        await post(h, "/openai/v1/chat/completions", body, { authorization: "Bearer sy_nope" }),
        401,
      );
      const admin = await h.store.create("admin", { admin: true });
      await known(h, admin.key);
      await expectError(
        await post(h, "/openai/v1/responses", { model: "openai/fx-text", input: "Hi" }, {
          authorization: `Bearer ${admin.key}`,
        }),
        403,
      );
    });
    await t.step("a key restricted to some models is refused others, and lists only its own", async () => {
      const limited = await h.store.create("limited", { models: ["openai/fx-text"] });
      await known(h, limited.key);
      const refused = await post(h, "/openai/v1/chat/completions", {
        model: "gemini/gx-text",
        messages: user,
      }, {
        authorization: `Bearer ${limited.key}`,
      });
      assert.equal((await expectError(refused, 403)).code, "permission_denied");
      const list = await (await fetch(`${h.url}/openai/v1/models`, {
        headers: { authorization: `Bearer ${limited.key}` },
      })).json();
      // The alias `fast` routes to openai/fx-text, so the key may use it too.
      assert.deepEqual(list.data.map((m: { id: string }) => m.id).sort(), ["fast", "openai/fx-text"]);
    });
    await t.step("a key over its rate limit gets 429 rate_limit_exceeded with retry-after", async () => {
      const slow = await h.store.create("slow", { rpm: 1 });
      await known(h, slow.key);
      const headers = { authorization: `Bearer ${slow.key}` };
      const first = await post(
        h,
        "/openai/v1/chat/completions",
        { model: "openai/fx-text", messages: user },
        headers,
      );
      assert.equal(first.status, 200);
      await first.body?.cancel();
      const second = await post(
        h,
        "/openai/v1/chat/completions",
        { model: "openai/fx-text", messages: user },
        headers,
      );
      assert.ok(second.headers.get("retry-after"));
      assert.equal((await expectError(second, 429)).code, "rate_limit_exceeded");
    });
    await t.step("a wrong method is a 405 in OpenAI's shape", async () => {
      const response = await fetch(`${h.url}/openai/v1/chat/completions`, {
        headers: { authorization: `Bearer ${h.key}` },
      });
      await expectError(response, 405);
    });
  } finally {
    await h.close();
  }
});
