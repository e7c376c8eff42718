/**
 * Structured outputs on every lane: `output_config.format` (JSON Schema) becomes OpenAI `response_format:
 * json_schema` (strict) and Gemini `responseJsonSchema`, stays as it is on the Anthropic pass-through, and is
 * refused with 400 naming the provider where a provider cannot honour it. The stand-in upstreams are strict:
 * a malformed format is their 400, and without a format they answer prose (as real models do), so the SDK's
 * `messages.parse()` only succeeds when the format really arrived. Claude Code's `tool_reference` blocks in
 * tool results arrive as text, not empty.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { startFaultyGateway, startFaultyUpstream } from "./faulty.ts";

const e2e = { sanitizeOps: false, sanitizeResources: false };
const SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, age: { type: "integer" } },
  required: ["name", "age"],
  additionalProperties: false,
};
const ANSWER = { name: "Ada", age: 36 };
const PROSE = "Ada Lovelace was 36.";
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** OpenAI's checks of `response_format` (name pattern, known keys, schema object). */
function openAiFormatError(format: unknown): string | undefined {
  if (!isObject(format) || format.type !== "json_schema" || !isObject(format.json_schema)) {
    return "response_format: expected {type: json_schema, json_schema}";
  }
  const spec = format.json_schema;
  if (Object.keys(spec).some((k) => !["name", "schema", "strict", "description"].includes(k))) {
    return "response_format.json_schema: unknown parameter";
  }
  if (typeof spec.name !== "string" || !/^[\w-]{1,64}$/.test(spec.name)) return "json_schema.name: invalid";
  if (!isObject(spec.schema)) return "json_schema.schema: expected an object";
  return undefined;
}

function sse(frames: unknown[]): Response {
  const text = frames.map((f) => `data: ${typeof f === "string" ? f : JSON.stringify(f)}\n\n`).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

Deno.test(
  "structured outputs are translated on every lane, and tool_reference results are not empty",
  e2e,
  async (t) => {
    const openai = await startFaultyUpstream((r) => {
      const format = r.body.response_format;
      if (format !== undefined) {
        const problem = openAiFormatError(format);
        if (problem) {
          return Response.json({ error: { message: problem, type: "invalid_request_error" } }, {
            status: 400,
          });
        }
      }
      const content = format ? JSON.stringify(ANSWER) : PROSE;
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      if (r.body.stream !== true) {
        return Response.json({
          id: "c",
          object: "chat.completion",
          model: r.body.model,
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage,
        });
      }
      const base = { id: "c", object: "chat.completion.chunk", model: r.body.model };
      return sse([
        {
          ...base,
          choices: [{
            index: 0,
            delta: { role: "assistant", content: content.slice(0, 7) },
            finish_reason: null,
          }],
        },
        { ...base, choices: [{ index: 0, delta: { content: content.slice(7) }, finish_reason: "stop" }] },
        { ...base, choices: [], usage },
        "[DONE]",
      ]);
    });
    const gemini = await startFaultyUpstream((r) => {
      const config = (r.body.generationConfig ?? {}) as Record<string, unknown>;
      if (config.responseJsonSchema !== undefined && config.responseMimeType !== "application/json") {
        return Response.json({
          error: {
            code: 400,
            message: "responseJsonSchema needs responseMimeType application/json",
            status: "INVALID_ARGUMENT",
          },
        }, { status: 400 });
      }
      if (config.responseJsonSchema !== undefined && config.responseSchema !== undefined) {
        return Response.json({
          error: {
            code: 400,
            message: "only one of responseSchema, responseJsonSchema",
            status: "INVALID_ARGUMENT",
          },
        }, { status: 400 });
      }
      const text = isObject(config.responseJsonSchema) ? JSON.stringify(ANSWER) : PROSE;
      const chunk = {
        candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      };
      return r.path.includes("streamGenerateContent") ? sse([chunk]) : Response.json(chunk);
    });
    const anthropic = await startFaultyUpstream((r) => {
      const format = (r.body.output_config as { format?: { type?: string; schema?: unknown } } | undefined)
        ?.format;
      const text = format?.type === "json_schema" && isObject(format.schema) ? JSON.stringify(ANSWER) : PROSE;
      return Response.json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: r.body.model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      });
    });
    const gw = await startFaultyGateway(
      {
        OPENAI_API_KEY: "sk-test-structured-openai",
        OPENAI_BASE_URL: `${openai.url}/v1`,
        GEMINI_API_KEY: "gemini-test-structured",
        GEMINI_BASE_URL: gemini.url,
        ANTHROPIC_API_KEY: "sk-test-structured-anthropic",
        ANTHROPIC_BASE_URL: anthropic.url,
        COMPAT_KEY: "compat-test-structured",
      },
      `providers:
  compat:
    type: openai-compatible
    base_url: ${openai.url}/v1
    api_key_env: COMPAT_KEY
  plain:
    type: openai-compatible
    base_url: ${openai.url}/v1
    api_key_env: COMPAT_KEY
    quirks: { structured_outputs: false }
`,
    );
    const client = new Anthropic({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 });
    const params = {
      max_tokens: 256,
      messages: [{ role: "user" as const, content: "Who and how old?" }],
      output_config: { format: { type: "json_schema" as const, schema: SCHEMA } },
    };
    try {
      for (const model of ["openai/gpt-x", "compat/llama-x", "gemini/gemini-x", "claude-x"]) {
        await t.step(`${model}: messages.parse() gets the schema's JSON`, async () => {
          const parsed = await client.messages.parse({ model, ...params });
          assert.deepEqual(parsed.parsed_output, ANSWER);
        });
        if (model === "claude-x") continue;
        await t.step(`${model}: a streamed answer parses too`, async () => {
          const final = await client.messages.stream({ model, ...params }).finalMessage();
          const text = final.content.map((b) => (b.type === "text" ? b.text : "")).join("");
          assert.deepEqual(JSON.parse(text), ANSWER);
        });
      }
      await t.step("the OpenAI request carries a strict json_schema response_format", () => {
        const sent = openai.requests.find((r) => r.body.model === "gpt-x")!.body;
        assert.deepEqual(sent.response_format, {
          type: "json_schema",
          json_schema: { name: "response", schema: SCHEMA, strict: true },
        });
      });
      await t.step("the pass-through forwards output_config unchanged", () => {
        assert.deepEqual(anthropic.requests.at(-1)!.body.output_config, params.output_config);
      });
      await t.step("a provider that cannot honour it answers 400 naming the provider", async () => {
        const before = openai.requests.length;
        const error = await client.messages.create({ model: "plain/llama-x", ...params }).catch((e) => e);
        assert.ok(error instanceof Anthropic.BadRequestError);
        assert.match(error.message, /provider plain cannot honour structured outputs/);
        assert.equal(openai.requests.length, before, "no upstream call");
      });
      await t.step("tool_reference blocks in tool results reach OpenAI and Gemini as text", async () => {
        const messages = [
          { role: "user" as const, content: "find a search tool" },
          {
            role: "assistant" as const,
            content: [{
              type: "tool_use" as const,
              id: "toolu_1",
              name: "ToolSearch",
              input: { query: "grep" },
            }],
          },
          {
            role: "user" as const,
            content: [{
              type: "tool_result" as const,
              tool_use_id: "toolu_1",
              content: [{ type: "tool_reference", tool_name: "Grep" }],
            }],
          },
        ];
        const tools = [{ name: "ToolSearch", input_schema: { type: "object" as const } }];
        await client.messages.create({
          model: "openai/gpt-x",
          max_tokens: 64,
          messages: messages as unknown as Anthropic.MessageParam[],
          tools,
        });
        const toolMessage = (openai.requests.at(-1)!.body.messages as Array<Record<string, unknown>>)
          .find((m) => m.role === "tool")!;
        assert.equal(toolMessage.content, "tool_reference: Grep");
        await client.messages.create({
          model: "gemini/gemini-x",
          max_tokens: 64,
          messages: messages as unknown as Anthropic.MessageParam[],
          tools,
        });
        const contents = gemini.requests.at(-1)!.body.contents as Array<
          { parts: Array<Record<string, unknown>> }
        >;
        const response = contents.flatMap((c) => c.parts).find((p) => p.functionResponse)!.functionResponse;
        assert.deepEqual((response as { response: unknown }).response, { result: "tool_reference: Grep" });
      });
    } finally {
      await gw.close();
      await Promise.all([openai.close(), gemini.close(), anthropic.close()]);
    }
  },
);
