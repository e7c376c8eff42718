/**
 * Arbitraries for the Messages API fuzz properties: well-formed conversations (alternating turns, tool
 * calls answered by tool results, system prompts, tools, sampling and thinking settings) and mutants of
 * them (any field replaced by any JSON value), plus the upstream request schemas each translated body must
 * satisfy — Chat Completions, Gemini `generateContent` and Bedrock Converse, written from the providers'
 * API references (the Responses API has its own checker in tests/gateway/upstreams/responses_validate.ts).
 */
import fc from "fast-check";
import { z } from "zod";

/** Text the Messages API accepts in a block (it refuses empty and whitespace-only text). */
const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }).filter((s) => s.trim() !== "");
const toolName = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,20}$/);
const schemaProps = fc.dictionary(
  fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
  fc.constantFrom({ type: "string" }, { type: "integer" }, { type: "boolean" }, { type: "array", items: {} }),
  { maxKeys: 3 },
);

/** A Messages request that follows the API's rules (tool results answer the previous turn's calls). */
export const messagesRequest = fc.record({
  turns: fc.array(
    fc.record({
      user: fc.oneof(
        text,
        fc.array(fc.record({ type: fc.constant("text"), text }), { minLength: 1, maxLength: 3 }),
      ),
      calls: fc.array(
        fc.record({
          input: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        }),
        {
          maxLength: 2,
        },
      ),
      assistantText: fc.option(text, { nil: undefined }),
      resultIsError: fc.boolean(),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  tools: fc.uniqueArray(
    fc.record({ name: toolName, description: fc.option(text, { nil: undefined }), properties: schemaProps }),
    {
      minLength: 1,
      maxLength: 3,
      selector: (t) => t.name,
    },
  ),
  system: fc.option(
    fc.oneof(text, fc.array(fc.record({ type: fc.constant("text"), text }), { maxLength: 2 })),
    {
      nil: undefined,
    },
  ),
  maxTokens: fc.integer({ min: 1, max: 64_000 }),
  temperature: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  stream: fc.boolean(),
  toolChoice: fc.option(fc.constantFrom("auto", "any", "none", "tool"), { nil: undefined }),
  thinking: fc.option(fc.integer({ min: 1024, max: 32_000 }), { nil: undefined }),
  stops: fc.option(fc.array(fc.string({ minLength: 1, maxLength: 5 }), { maxLength: 2 }), { nil: undefined }),
}).map((g) => {
  const messages: Record<string, unknown>[] = [];
  let id = 0;
  let pending: string[] = [];
  for (const turn of g.turns) {
    const results = pending.map((toolUseId) => ({
      type: "tool_result",
      tool_use_id: toolUseId,
      content: "ok",
      is_error: turn.resultIsError,
    }));
    const user = typeof turn.user === "string" ? [{ type: "text", text: turn.user || "hi" }] : turn.user;
    messages.push({ role: "user", content: results.length ? [...results, ...user] : turn.user || "hi" });
    pending = turn.calls.map(() => `toolu_${String(++id).padStart(4, "0")}`);
    const blocks: Record<string, unknown>[] = [];
    if (turn.assistantText) blocks.push({ type: "text", text: turn.assistantText });
    turn.calls.forEach((call, i) =>
      blocks.push({
        type: "tool_use",
        id: pending[i],
        name: g.tools[i % g.tools.length].name,
        input: call.input,
      })
    );
    if (blocks.length) messages.push({ role: "assistant", content: blocks });
    else pending = [];
  }
  if (messages.at(-1)?.role === "assistant") {
    messages.push({
      role: "user",
      content: pending.length
        ? pending.map((toolUseId) => ({ type: "tool_result", tool_use_id: toolUseId, content: "done" }))
        : "go on",
    });
  }
  const body: Record<string, unknown> = {
    model: "fuzz/m",
    max_tokens: g.maxTokens,
    messages,
    stream: g.stream,
    tools: g.tools.map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      input_schema: { type: "object", properties: t.properties },
    })),
  };
  if (g.system !== undefined) body.system = g.system;
  if (g.temperature !== undefined && g.thinking === undefined) body.temperature = g.temperature;
  if (g.toolChoice) {
    body.tool_choice = g.toolChoice === "tool"
      ? { type: "tool", name: g.tools[0].name }
      : { type: g.toolChoice };
  }
  if (g.thinking !== undefined && g.thinking < g.maxTokens) {
    body.thinking = { type: "enabled", budget_tokens: g.thinking };
  }
  if (g.stops?.length) body.stop_sequences = g.stops;
  return body;
});

/** A path into a JSON value: keys and indexes. */
type Path = (string | number)[];

function paths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  }
  return out;
}

/** A valid request with one field replaced by any JSON value (or removed, or an unknown key added). */
export const mutatedRequest = fc.tuple(messagesRequest, fc.nat(), fc.jsonValue({ maxDepth: 3 }), fc.nat(3))
  .map(
    ([body, pick, value, how]) => {
      const copy = structuredClone(body);
      const all = paths(copy).filter((p) => p.length > 0);
      const path = all[pick % all.length];
      let parent: Record<string | number, unknown> = copy;
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
      const last = path[path.length - 1];
      if (how === 0 && !Array.isArray(parent)) delete parent[last];
      else if (how === 1) parent[`fuzz_${String(last)}`] = value;
      else parent[last] = value;
      return copy;
    },
  );

const chatContentPart = z.union([
  z.object({ type: z.literal("text"), text: z.string() }).strict(),
  z.object({ type: z.literal("image_url"), image_url: z.object({ url: z.string().min(1) }).passthrough() })
    .strict(),
]);
const chatToolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }).strict(),
}).strict();

/** OpenAI Chat Completions request body (the fields the gateway sends). */
export const chatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(z.discriminatedUnion("role", [
    z.object({ role: z.literal("system"), content: z.union([z.string(), z.array(chatContentPart)]) })
      .strict(),
    z.object({ role: z.literal("developer"), content: z.union([z.string(), z.array(chatContentPart)]) })
      .strict(),
    z.object({ role: z.literal("user"), content: z.union([z.string(), z.array(chatContentPart).min(1)]) })
      .strict(),
    z.object({
      role: z.literal("assistant"),
      content: z.union([z.string(), z.null(), z.array(chatContentPart)]).optional(),
      tool_calls: z.array(chatToolCall).min(1).optional(),
    }).passthrough().refine(
      (m) => m.content != null || m.tool_calls,
      "assistant needs content or tool_calls",
    ),
    z.object({
      role: z.literal("tool"),
      tool_call_id: z.string().min(1),
      content: z.union([z.string(), z.array(chatContentPart)]),
    }).strict(),
  ])).min(1),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean() }).strict().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).optional(),
  tools: z.array(
    z.object({
      type: z.literal("function"),
      function: z.object({
        name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
        description: z.string().optional(),
        parameters: z.record(z.string(), z.unknown()).optional(),
        strict: z.boolean().optional(),
      }).strict(),
    }).strict(),
  ).optional(),
  tool_choice: z.union([
    z.enum(["none", "auto", "required", "any"]),
    z.object({ type: z.literal("function"), function: z.object({ name: z.string() }).strict() }).strict(),
  ]).optional(),
  parallel_tool_calls: z.boolean().optional(),
  reasoning_effort: z.enum(["minimal", "low", "medium", "high"]).optional(),
  response_format: z.record(z.string(), z.unknown()).optional(),
  user: z.string().optional(),
}).strict().refine(
  (b) => (b.max_tokens === undefined) !== (b.max_completion_tokens === undefined),
  "one max tokens field",
);

const geminiPart = z.object({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: z.object({ mimeType: z.string(), data: z.string() }).strict().optional(),
  fileData: z.object({ mimeType: z.string().optional(), fileUri: z.string() }).strict().optional(),
  functionCall: z.object({
    name: z.string().min(1),
    args: z.record(z.string(), z.unknown()).optional(),
    id: z.string().optional(),
  })
    .strict().optional(),
  functionResponse: z.object({
    name: z.string().min(1),
    response: z.record(z.string(), z.unknown()),
    id: z.string().optional(),
  })
    .passthrough().optional(),
}).strict().refine(
  (p) =>
    ["text", "inlineData", "fileData", "functionCall", "functionResponse"].filter((k) => k in p).length === 1,
  "a part holds exactly one kind of data",
);

/** Gemini `generateContent` request body. */
export const geminiRequestSchema = z.object({
  contents: z.array(z.object({ role: z.enum(["user", "model"]), parts: z.array(geminiPart).min(1) }).strict())
    .min(1),
  systemInstruction: z.object({ parts: z.array(geminiPart).min(1) }).passthrough().optional(),
  tools: z.array(z.record(z.string(), z.unknown())).optional(),
  toolConfig: z.record(z.string(), z.unknown()).optional(),
  generationConfig: z.object({
    maxOutputTokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().optional(),
    topK: z.number().optional(),
    stopSequences: z.array(z.string()).max(5).optional(),
  }).passthrough().optional(),
}).passthrough();

const converseBlock = z.record(z.string(), z.unknown()).refine(
  (b) =>
    ["text", "toolUse", "toolResult", "image", "document", "reasoningContent", "cachePoint"].filter((k) =>
      k in b
    )
      .length === 1,
  "a content block holds exactly one member",
);

/** Bedrock Converse request body. */
export const converseRequestSchema = z.object({
  messages: z.array(
    z.object({ role: z.enum(["user", "assistant"]), content: z.array(converseBlock).min(1) }).strict(),
  )
    .min(1),
  system: z.array(z.record(z.string(), z.unknown())).optional(),
  inferenceConfig: z.object({
    maxTokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(1).optional(),
    topP: z.number().optional(),
    stopSequences: z.array(z.string()).max(4).optional(),
  }).strict().optional(),
  toolConfig: z.object({
    tools: z.array(z.record(z.string(), z.unknown())).min(1),
    toolChoice: z.record(z.string(), z.unknown()).optional(),
  })
    .strict().optional(),
  additionalModelRequestFields: z.record(z.string(), z.unknown()).optional(),
}).strict().refine((b) => b.messages[0]?.role === "user", "the first message is the user's");
