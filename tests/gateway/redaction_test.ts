/**
 * Upstream keys never leak: upstreams that quote the gateway's credential back (raw, JSON-escaped,
 * percent-encoded; in error bodies, raw 5xx pages and mid-stream error events) reach the client as an
 * Anthropic error with a message of ours and a redacted excerpt, and no log line carries the key.
 */
import assert from "node:assert/strict";
import { startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const OPENAI_KEY = "sk-quoted-secret-0123456789abcdef";
const GEMINI_KEY = "gem+key/QUOTED=999999"; // no credential shape: only the configured value can catch it
const ANTHROPIC_KEY = "ant-key-QUOTED-777777";
const ask = { max_tokens: 64, messages: [{ role: "user", content: "Hi" }] };

function sseOf(frames: string[]): Response {
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}

/** Every leakable form of the three keys. */
const FORMS = [OPENAI_KEY, GEMINI_KEY, ANTHROPIC_KEY].flatMap((k) => [k, encodeURIComponent(k)]);

function assertNoKey(text: string, where: string): void {
  for (const form of FORMS) assert.ok(!text.includes(form), `${where} leaks ${form}: ${text}`);
}

Deno.test(
  "upstream error text quoting the gateway's keys is redacted for clients and logs",
  e2e,
  async (t) => {
    const openai = await startFaultyUpstream((r) => {
      const model = String(r.body.model);
      if (model === "quote-401") {
        return Response.json({ error: { message: `Incorrect API key provided: ${OPENAI_KEY}` } }, {
          status: 401,
        });
      }
      if (model === "quote-400") {
        return Response.json({ error: { message: `key ${OPENAI_KEY} cannot use this model` } }, {
          status: 400,
        });
      }
      if (model === "quote-500") {
        return new Response(`<html>upstream proxy failed; Authorization: Bearer ${OPENAI_KEY}</html>`, {
          status: 500,
        });
      }
      return sseOf([
        `data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n`,
        `data: {"error":{"message":"quota for ${OPENAI_KEY} exhausted","code":500}}\n\n`,
      ]);
    });
    const gemini = await startFaultyUpstream(() =>
      Response.json({
        error: {
          code: 403,
          message: `API key ${GEMINI_KEY} (${encodeURIComponent(GEMINI_KEY)}) is not allowed`,
        },
      }, { status: 403 })
    );
    const anthropic = await startFaultyUpstream((r) => {
      if (r.body.stream !== true) {
        return Response.json({
          type: "error",
          error: {
            type: "overloaded_error",
            message: `overloaded for x-api-key ${JSON.stringify(ANTHROPIC_KEY)}`,
          },
        }, { status: 529 });
      }
      return sseOf([
        `event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n`,
        `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"key ${ANTHROPIC_KEY} is overloaded"}}\n\n`,
      ]);
    });
    const gw = await startFaultyGateway({
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: `${openai.url}/v1`,
      GEMINI_API_KEY: GEMINI_KEY,
      GEMINI_BASE_URL: gemini.url,
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
    });
    const expectError = async (body: unknown, status: number, type: string, redactedExcerpt: boolean) => {
      const r = await gw.post(body);
      const text = await r.text();
      assert.equal(r.status, status, text);
      assertNoKey(text, "the response");
      const error = JSON.parse(text).error;
      assert.equal(error.type, type);
      assert.match(error.message, /^upstream provider \w+/);
      if (redactedExcerpt) assert.match(error.message, /\[redacted\]/);
    };
    try {
      await t.step(
        "a 401 quoting the key",
        () => expectError({ model: "openai/quote-401", ...ask }, 502, "api_error", false),
      );
      await t.step(
        "a 400 quoting the key keeps a redacted excerpt",
        () => expectError({ model: "openai/quote-400", ...ask }, 400, "invalid_request_error", true),
      );
      await t.step(
        "a raw 5xx page quoting the key",
        () => expectError({ model: "openai/quote-500", ...ask }, 500, "api_error", false),
      );
      await t.step(
        "a Gemini 403 quoting the key raw and percent-encoded",
        () => expectError({ model: "gemini/gemini-x", ...ask }, 403, "permission_error", true),
      );
      await t.step(
        "an Anthropic 529 quoting the key JSON-escaped",
        () => expectError({ model: "claude-x", ...ask }, 529, "overloaded_error", true),
      );
      await t.step("mid-stream error events quoting the key", async () => {
        for (const model of ["openai/quote-stream", "claude-x"]) {
          const r = await gw.post({ model, ...ask, stream: true });
          const text = await r.text();
          assertNoKey(text, `${model} stream`);
          assert.match(text, /event: error\ndata: .*\[redacted\]/);
        }
      });
      await t.step("no log line carries a key", () => {
        assert.ok(gw.logs.some((line) => line.includes("upstream provider")), "5xx failures are logged");
        for (const line of gw.logs) assertNoKey(line, "a log line");
      });
    } finally {
      await gw.close();
      await Promise.all([openai.close(), gemini.close(), anthropic.close()]);
    }
  },
);
