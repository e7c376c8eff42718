/**
 * Anthropic's `web_search` translated to a provider's own search, against strict stand-ins
 * (web_search_stand_ins.ts): Gemini's Google Search grounding and the OpenAI Responses `web_search` tool,
 * whole and streamed, with the searches mapped back to `server_tool_use` / `web_search_tool_result` blocks,
 * sources with url and title, and citations on the cited text; the official SDK accumulates the stream.
 * Options with no equivalent, `web_fetch`, and providers with no search stay 400 naming them.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { startFaultyGateway, startFaultyUpstream } from "./faulty.ts";
import { checkGrammar } from "./grammar.ts";
import {
  ANSWER,
  checkGeminiRequest,
  checkResponsesRequest,
  CITED,
  geminiGrounded,
  geminiGroundedStream,
  geminiSearches,
  responsesSearched,
  responsesSearchedStream,
  SOURCES,
} from "./web_search_stand_ins.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const webSearch = { type: "web_search_20250305", name: "web_search", max_uses: 5 };
const lookup = {
  name: "lookup",
  description: "Looks a word up.",
  input_schema: { type: "object", properties: { word: { type: "string" } } },
};
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 256,
  messages: [{ role: "user", content: "What is new in Deno?" }],
  tools: [webSearch, lookup],
  ...extra,
});

type Block = Record<string, unknown> & { type: string };

/** Checks the blocks of an answer that searched once and cites the first sentence. */
function checkSearched(content: Block[], streamed: boolean) {
  const types = content.map((b) => b.type);
  const use = content.find((b) => b.type === "server_tool_use")!;
  const result = content.find((b) => b.type === "web_search_tool_result")!;
  assert.ok(use && result, `search blocks in ${types}`);
  assert.match(String(use.id), /^srvtoolu_/);
  assert.equal(use.name, "web_search");
  assert.deepEqual(use.input, { query: "deno 2.9 release" });
  assert.equal(result.tool_use_id, use.id);
  const results = result.content as Array<Record<string, unknown>>;
  assert.deepEqual(results.map((r) => [r.type, r.url]), SOURCES.map((s) => ["web_search_result", s.url]));
  const text = content.filter((b) => b.type === "text");
  assert.equal(text.map((b) => b.text).join(""), ANSWER);
  if (!streamed) {
    assert.deepEqual(results.map((r) => r.title), SOURCES.map((s) => s.title));
    assert.deepEqual(types, ["server_tool_use", "web_search_tool_result", "text", "text"]);
  }
  return { text, results };
}

Deno.test("web_search runs as Gemini's Google Search and OpenAI Responses' web_search", e2e, async (t) => {
  const up = await startFaultyUpstream((r) => {
    if (r.path.includes(":generateContent") || r.path.includes(":streamGenerateContent")) {
      const refused = checkGeminiRequest(r.body);
      if (refused) return refused;
      if (!geminiSearches(r.body)) {
        return Response.json({
          candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 },
        });
      }
      return r.path.includes(":stream") ? geminiGroundedStream() : Response.json(geminiGrounded());
    }
    if (r.path === "/v1/responses") {
      const refused = checkResponsesRequest(r.body);
      if (refused) return refused;
      return r.body.stream ? responsesSearchedStream(r.body) : Response.json(responsesSearched(r.body));
    }
    return Response.json({ error: { message: "must not be called" } }, { status: 500 });
  });
  const gw = await startFaultyGateway(
    {
      GEMINI_API_KEY: "gemini-search-key",
      GEMINI_BASE_URL: up.url,
      RX_KEY: "rx-search-key",
      OPENAI_API_KEY: "sk-search",
      OPENAI_BASE_URL: `${up.url}/chat`,
    },
    `providers:\n  rx: { type: openai-responses, base_url: "${up.url}/v1", api_key_env: RX_KEY }\n`,
  );
  const sdk = new Anthropic({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 });
  const last = () => up.requests.at(-1)!;
  try {
    await t.step("the stand-ins refuse a wrong field (so the tests can fail)", () => {
      assert.equal(checkGeminiRequest({ tools: [{ web_search: {} }] })?.status, 400);
      assert.equal(checkGeminiRequest({ tools: [{ google_search: { max_uses: 5 } }] })?.status, 400);
      assert.equal(checkResponsesRequest({ tools: [{ type: "web_search", max_uses: 5 }] })?.status, 400);
      assert.equal(checkResponsesRequest({ max_tool_calls: 0 })?.status, 400);
      assert.equal(checkResponsesRequest({ max_tool_calls: 3 }), undefined);
      assert.equal(checkResponsesRequest({ tools: [{ type: "web_search_20250305" }] })?.status, 400);
      assert.equal(checkResponsesRequest({ include: ["web_search_call.sources"] })?.status, 400);
    });

    await t.step(
      "Gemini: google_search beside the functions; grounding back as blocks and citations",
      async () => {
        const r = await gw.post(ask("gemini/gemini-2.5-flash"));
        const body = await r.json();
        assert.equal(r.status, 200, JSON.stringify(body));
        assert.deepEqual(last().body.tools, [
          {
            functionDeclarations: [{
              name: "lookup",
              description: "Looks a word up.",
              parametersJsonSchema: lookup.input_schema,
            }],
          },
          { google_search: {} },
        ]);
        const { text } = checkSearched(body.content, false);
        assert.equal(text[0].text, CITED);
        assert.deepEqual(
          (text[0].citations as Array<Record<string, unknown>>).map((
            c,
          ) => [c.type, c.url, c.title, c.cited_text]),
          SOURCES.map((s) => ["web_search_result_location", s.url, s.title, CITED]),
        );
        assert.equal(text[1].citations, undefined);
        assert.equal(body.usage.server_tool_use.web_search_requests, 1);
      },
    );

    await t.step(
      "Gemini streamed: the searches' blocks follow the text; the SDK accumulates them",
      async () => {
        const raw = await gw.post({ ...ask("gemini/gemini-2.5-flash"), stream: true });
        const text = await raw.text();
        checkGrammar(text);
        const stream = sdk.messages.stream(ask("gemini/gemini-2.5-flash") as Anthropic.MessageCreateParams);
        const message = await stream.finalMessage();
        const { results } = checkSearched(message.content as unknown as Block[], true);
        assert.deepEqual(results.map((r) => r.title), SOURCES.map((s) => s.title));
        assert.equal(
          (message.usage as unknown as { server_tool_use?: { web_search_requests: number } }).server_tool_use
            ?.web_search_requests,
          1,
        );
      },
    );

    await t.step(
      "Responses: web_search with filters, location and sources; citations from url_citation",
      async () => {
        const r = await gw.post(ask("rx/gpt-5.1", {
          tools: [{
            ...webSearch,
            allowed_domains: ["deno.com"],
            user_location: { type: "approximate", country: "US" },
          }],
        }));
        const body = await r.json();
        assert.equal(r.status, 200, JSON.stringify(body));
        assert.deepEqual(last().body.tools, [
          {
            type: "web_search",
            filters: { allowed_domains: ["deno.com"] },
            user_location: { type: "approximate", country: "US" },
          },
        ]);
        assert.ok((last().body.include as string[]).includes("web_search_call.action.sources"));
        // max_uses: 5 caps the response's built-in tool calls (web search is the only one sent).
        assert.equal(last().body.max_tool_calls, 5);
        const { text } = checkSearched(body.content, false);
        assert.equal(body.content[0].id, "srvtoolu_ws_68a1");
        assert.deepEqual(
          (text[0].citations as Array<Record<string, unknown>>).map((c) => [c.url, c.title, c.cited_text]),
          SOURCES.map((s) => [s.url, s.title, CITED]),
        );
        assert.equal(body.usage.server_tool_use.web_search_requests, 1);
      },
    );

    await t.step("Responses streamed: server blocks, then citations_delta in the text block", async () => {
      const raw = await gw.post({ ...ask("rx/gpt-5.1"), stream: true });
      const text = await raw.text();
      checkGrammar(text);
      assert.equal((text.match(/"citations_delta"/g) ?? []).length, 2, text);
      const message = await sdk.messages.stream(ask("rx/gpt-5.1") as Anthropic.MessageCreateParams)
        .finalMessage();
      const content = message.content as unknown as Block[];
      checkSearched(content, true);
      assert.deepEqual(content.map((b) => b.type), ["server_tool_use", "web_search_tool_result", "text"]);
      const citations = content[2].citations as Array<Record<string, unknown>>;
      assert.deepEqual(
        citations.map((c) => [c.url, c.title, c.cited_text]),
        SOURCES.map((s) => [s.url, s.title, CITED]),
      );
    });

    await t.step("earlier turns' search blocks go to Gemini as the conversation's text only", async () => {
      const r = await gw.post({
        model: "gemini/gemini-2.5-flash",
        max_tokens: 64,
        messages: [
          { role: "user", content: "What is new in Deno?" },
          {
            role: "assistant",
            content: [
              { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "deno" } },
              { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
              { type: "text", text: CITED, citations: [] },
            ],
          },
          { role: "user", content: "Thanks" },
        ],
      });
      assert.equal(r.status, 200, await r.text());
      assert.deepEqual(last().body.contents, [
        { role: "user", parts: [{ text: "What is new in Deno?" }] },
        { role: "model", parts: [{ text: CITED }] },
        { role: "user", parts: [{ text: "Thanks" }] },
      ]);
    });

    const refusals: Array<[string, string, unknown, RegExp]> = [
      [
        "Gemini: allowed_domains",
        "gemini/gemini-2.5-flash",
        { ...webSearch, allowed_domains: ["a.com"] },
        /tools\.0\.allowed_domains/,
      ],
      [
        "Responses: blocked_domains",
        "rx/gpt-5.1",
        { ...webSearch, blocked_domains: ["a.com"] },
        /tools\.0\.blocked_domains/,
      ],
      [
        "Gemini: web_fetch",
        "gemini/gemini-2.5-flash",
        { type: "web_fetch_20250910", name: "web_fetch" },
        /web_fetch/,
      ],
      ["Responses: web_fetch", "rx/gpt-5.1", { type: "web_fetch_20250910", name: "web_fetch" }, /web_fetch/],
      ["Responses: max_uses 0", "rx/gpt-5.1", { ...webSearch, max_uses: 0 }, /tools\.0\.max_uses/],
      [
        "Gemini: max_uses not a number",
        "gemini/gemini-2.5-flash",
        { ...webSearch, max_uses: "5" },
        /max_uses/,
      ],
      [
        "Chat Completions: web_search",
        "openai/gpt-4.1",
        webSearch,
        /web_search.*Gemini's or OpenAI Responses' own search/,
      ],
    ];
    for (const [name, model, tool, message] of refusals) {
      await t.step(`${name} is a 400 naming it, before any call`, async () => {
        const before = up.requests.length;
        const r = await gw.post({ ...ask(model), tools: [tool] });
        const body = await r.json();
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(body.error.type, "invalid_request_error");
        assert.match(body.error.message, message);
        assert.equal(up.requests.length, before);
      });
    }
  } finally {
    await gw.close();
    await up.close();
  }
});
