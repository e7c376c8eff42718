/**
 * Anthropic server tools (`web_search`, `web_fetch`) are never dropped: an Anthropic upstream receives them
 * (and the `server_tool_use` / `web_search_tool_result` blocks of earlier turns) unchanged and its answer's
 * server blocks reach the client; any other provider — routed to directly or reached by a fallback — is
 * refused with 400 `invalid_request_error` naming the tool, before a call.
 */
import assert from "node:assert/strict";
import { startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const webSearch = { type: "web_search_20250305", name: "web_search", max_uses: 2 };
const webFetch = { type: "web_fetch_20250910", name: "web_fetch" };
const history = [
  { role: "user", content: "Search the news." },
  {
    role: "assistant",
    content: [
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "news" } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [{
          type: "web_search_result",
          url: "https://example.com",
          title: "Ex",
          encrypted_content: "e",
        }],
      },
      { type: "text", text: "Found one." },
    ],
  },
  { role: "user", content: "And more?" },
];

Deno.test("server tools reach Anthropic and are refused, by name, elsewhere", e2e, async (t) => {
  const upstream = await startFaultyUpstream((r) => {
    if (r.path.startsWith("/anthropic/") && r.body.model === "claude-down") {
      return Response.json({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, {
        status: 529,
      });
    }
    if (r.path.startsWith("/anthropic/")) {
      return Response.json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: r.body.model,
        content: [
          { type: "server_tool_use", id: "srvtoolu_2", name: "web_search", input: { query: "more news" } },
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: [] },
          { type: "text", text: "Nothing more." },
        ],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 5, server_tool_use: { web_search_requests: 1 } },
      });
    }
    return Response.json({ error: { message: "must not be called" } }, { status: 500 });
  });
  const gw = await startFaultyGateway(
    {
      ANTHROPIC_API_KEY: "sk-ant-server-tools",
      ANTHROPIC_BASE_URL: `${upstream.url}/anthropic`,
      OPENAI_API_KEY: "sk-server-tools",
      OPENAI_BASE_URL: `${upstream.url}/v1`,
    },
    `fallbacks:
  anthropic/claude-down: [openai/gpt-4.1]
retry: { deadline_ms: 2000, backoff_ms: 10, max_backoff_ms: 50 }
`,
  );
  try {
    await t.step(
      "an Anthropic upstream gets the tools and history unchanged; its server blocks come back",
      async () => {
        const r = await gw.post({
          model: "anthropic/claude-sonnet-4-5",
          max_tokens: 64,
          messages: history,
          tools: [webSearch, webFetch],
        });
        const body = await r.json();
        assert.equal(r.status, 200, JSON.stringify(body));
        const sent = upstream.requests.at(-1)!.body;
        assert.deepEqual(sent.tools, [webSearch, webFetch]);
        assert.deepEqual(sent.messages, history);
        assert.deepEqual(body.content.map((b: { type: string }) => b.type), [
          "server_tool_use",
          "web_search_tool_result",
          "text",
        ]);
      },
    );
    for (const tools of [[webSearch], [webFetch]]) {
      await t.step(
        `${tools[0].name} to an OpenAI model is a 400 naming it, with no upstream call`,
        async () => {
          const before = upstream.requests.length;
          const r = await gw.post({
            model: "openai/gpt-4.1",
            max_tokens: 64,
            messages: [{ role: "user", content: "Hi" }],
            tools,
          });
          const body = await r.json();
          assert.equal(r.status, 400);
          assert.equal(body.error.type, "invalid_request_error");
          assert.match(body.error.message, new RegExp(`${tools[0].name}.*${tools[0].type}`));
          assert.equal(upstream.requests.length, before);
        },
      );
    }
    await t.step("server blocks in the history are refused for another provider", async () => {
      const r = await gw.post({ model: "openai/gpt-4.1", max_tokens: 64, messages: history });
      const body = await r.json();
      assert.equal(r.status, 400);
      assert.match(body.error.message, /messages\.1\.content\.0: a server_tool_use block/);
    });
    await t.step(
      "a fallback to a provider that cannot run the tool is refused, not sent without it",
      async () => {
        const before = upstream.requests.filter((r) => r.path.startsWith("/v1/")).length;
        const r = await gw.post({
          model: "anthropic/claude-down",
          max_tokens: 64,
          messages: [{ role: "user", content: "Hi" }],
          tools: [webSearch],
        });
        const body = await r.json();
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.match(body.error.message, /web_search/);
        assert.equal(upstream.requests.filter((r) => r.path.startsWith("/v1/")).length, before);
      },
    );
    await t.step("count_tokens refuses the same way", async () => {
      const r = await fetch(`${gw.url}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": gw.key },
        body: JSON.stringify({
          model: "openai/gpt-4.1",
          messages: [{ role: "user", content: "Hi" }],
          tools: [webSearch],
        }),
      });
      assert.equal(r.status, 400);
      assert.match((await r.json()).error.message, /web_search/);
    });
  } finally {
    await gw.close();
    await upstream.close();
  }
});
