/**
 * Strict loopback stand-ins for the native web searches the gateway translates Anthropic's `web_search` to:
 * Gemini `generateContent` with Google Search grounding, and the OpenAI Responses API with its `web_search`
 * tool. Each refuses (400, in the provider's own error shape) a field it does not know — a misspelt tool, an
 * unknown option, an `include` value the API does not have — so a wrong field name fails the tests.
 */

type Json = Record<string, unknown>;

/** The sources every stand-in search finds. */
export const SOURCES = [
  { url: "https://deno.com/blog/v2.9", title: "Deno 2.9 release notes" },
  { url: "https://github.com/denoland/deno/releases", title: "Releases · denoland/deno" },
];
/** The answer's text, and the span both sources support. */
export const ANSWER = "Deno 2.9 was released this week. It is fast.";
export const CITED = "Deno 2.9 was released this week.";

function unknownKeys(value: unknown, allowed: readonly string[]): string[] {
  return value && typeof value === "object" ? Object.keys(value).filter((k) => !allowed.includes(k)) : [];
}

/** Google's error for an unknown field. */
function googleUnknown(path: string, name: string): Response {
  return Response.json({
    error: {
      code: 400,
      message: `Invalid JSON payload received. Unknown name "${name}" at '${path}': Cannot find field.`,
      status: "INVALID_ARGUMENT",
    },
  }, { status: 400 });
}

/** Checks a Gemini request's tools; a Response when refused. */
export function checkGeminiRequest(body: Json): Response | undefined {
  for (
    const key of unknownKeys(body, [
      "contents",
      "systemInstruction",
      "generationConfig",
      "tools",
      "toolConfig",
    ])
  ) {
    return googleUnknown("", key);
  }
  const tools = (body.tools ?? []) as Json[];
  for (let i = 0; i < tools.length; i++) {
    const keys = Object.keys(tools[i]);
    const bad = keys.find((k) => !["functionDeclarations", "google_search", "googleSearch"].includes(k));
    if (bad) return googleUnknown(`tools[${i}]`, bad);
    const search = tools[i].google_search ?? tools[i].googleSearch;
    const extra = unknownKeys(search, ["timeRangeFilter"]);
    if (extra.length) return googleUnknown(`tools[${i}].google_search`, extra[0]);
  }
  return undefined;
}

/** True when the Gemini request asked for Google Search grounding. */
export function geminiSearches(body: Json): boolean {
  return ((body.tools ?? []) as Json[]).some((t) => "google_search" in t || "googleSearch" in t);
}

/** Grounding metadata as Gemini returns it (chunk uris are Google redirect links in reality). */
export const GROUNDING = {
  webSearchQueries: ["deno 2.9 release"],
  searchEntryPoint: { renderedContent: "<div>chips</div>" },
  groundingChunks: SOURCES.map((s) => ({ web: { uri: s.url, title: s.title } })),
  groundingSupports: [{
    segment: { startIndex: 0, endIndex: CITED.length, text: CITED },
    groundingChunkIndices: [0, 1],
    confidenceScores: [0.9, 0.8],
  }],
};

const GEMINI_USAGE = { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 };

/** A grounded `generateContent` answer. */
export function geminiGrounded(): Json {
  return {
    candidates: [{
      content: { role: "model", parts: [{ text: ANSWER }] },
      finishReason: "STOP",
      index: 0,
      groundingMetadata: GROUNDING,
    }],
    usageMetadata: GEMINI_USAGE,
    modelVersion: "gemini-2.5-flash",
  };
}

/** A grounded `streamGenerateContent?alt=sse` answer: the grounding arrives with the last chunk. */
export function geminiGroundedStream(): Response {
  const chunks = [
    { candidates: [{ content: { role: "model", parts: [{ text: CITED }] }, index: 0 }] },
    {
      candidates: [{
        content: { role: "model", parts: [{ text: ANSWER.slice(CITED.length) }] },
        finishReason: "STOP",
        index: 0,
        groundingMetadata: GROUNDING,
      }],
      usageMetadata: GEMINI_USAGE,
    },
  ];
  return new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });
}

/** OpenAI's error for an unknown parameter. */
function openAiUnknown(param: string): Response {
  return Response.json({
    error: {
      message: `Unknown parameter: '${param}'.`,
      type: "invalid_request_error",
      param,
      code: "unknown_parameter",
    },
  }, { status: 400 });
}

const INCLUDABLE = [
  "web_search_call.action.sources",
  "web_search_call.results",
  "reasoning.encrypted_content",
  "message.output_text.logprobs",
];

/** Checks a Responses request's tools and include; a Response when refused. */
export function checkResponsesRequest(body: Json): Response | undefined {
  const cap = body.max_tool_calls;
  if (cap !== undefined && !(Number.isSafeInteger(cap) && (cap as number) > 0)) {
    return openAiUnknown("max_tool_calls");
  }
  const tools = (body.tools ?? []) as Json[];
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i];
    if (tool.type === "function") continue;
    if (tool.type !== "web_search") {
      return Response.json({
        error: {
          message: `Invalid value: '${tool.type}'. Supported values are: 'function', 'web_search', ...`,
          type: "invalid_request_error",
          param: `tools[${i}].type`,
          code: "invalid_value",
        },
      }, { status: 400 });
    }
    for (const key of unknownKeys(tool, ["type", "filters", "user_location", "search_context_size"])) {
      return openAiUnknown(`tools[${i}].${key}`);
    }
    for (const key of unknownKeys(tool.filters, ["allowed_domains"])) {
      return openAiUnknown(`tools[${i}].filters.${key}`);
    }
    for (const key of unknownKeys(tool.user_location, ["type", "city", "region", "country", "timezone"])) {
      return openAiUnknown(`tools[${i}].user_location.${key}`);
    }
    if (tool.user_location && (tool.user_location as Json).type !== "approximate") {
      return openAiUnknown(`tools[${i}].user_location.type`);
    }
  }
  for (const value of (body.include ?? []) as string[]) {
    if (!INCLUDABLE.includes(value)) return openAiUnknown(`include: ${value}`);
  }
  return undefined;
}

function searchCall(body: Json, status: string): Json {
  const sources = ((body.include ?? []) as string[]).includes("web_search_call.action.sources");
  return {
    type: "web_search_call",
    id: "ws_68a1",
    status,
    action: {
      type: "search",
      query: "deno 2.9 release",
      ...(sources ? { sources: SOURCES.map((s) => ({ type: "url", url: s.url })) } : {}),
    },
  };
}

const ANNOTATIONS = SOURCES.map((s) => ({
  type: "url_citation",
  start_index: 0,
  end_index: CITED.length,
  url: s.url,
  title: s.title,
}));

function message(): Json {
  return {
    type: "message",
    id: "msg_68a2",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: ANSWER, annotations: ANNOTATIONS, logprobs: [] }],
  };
}

const RESPONSES_USAGE = {
  input_tokens: 20,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 11,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 31,
};

/** A whole Responses answer that searched. */
export function responsesSearched(body: Json): Json {
  return {
    id: "resp_68a0",
    object: "response",
    status: "completed",
    model: body.model,
    output: [searchCall(body, "completed"), message()],
    usage: RESPONSES_USAGE,
  };
}

/** The same answer as a stream of Responses events. */
export function responsesSearchedStream(body: Json): Response {
  const events: Json[] = [
    { type: "response.created", response: { id: "resp_68a0", status: "in_progress", output: [] } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...searchCall(body, "in_progress"), action: undefined },
    },
    { type: "response.web_search_call.in_progress", output_index: 0, item_id: "ws_68a1" },
    { type: "response.web_search_call.searching", output_index: 0, item_id: "ws_68a1" },
    { type: "response.web_search_call.completed", output_index: 0, item_id: "ws_68a1" },
    { type: "response.output_item.done", output_index: 0, item: searchCall(body, "completed") },
    {
      type: "response.output_item.added",
      output_index: 1,
      item: { ...message(), status: "in_progress", content: [] },
    },
    {
      type: "response.content_part.added",
      output_index: 1,
      content_index: 0,
      item_id: "msg_68a2",
      part: { type: "output_text", text: "", annotations: [] },
    },
    {
      type: "response.output_text.delta",
      output_index: 1,
      content_index: 0,
      item_id: "msg_68a2",
      delta: CITED,
    },
    ...ANNOTATIONS.map((annotation, i) => ({
      type: "response.output_text.annotation.added",
      output_index: 1,
      content_index: 0,
      item_id: "msg_68a2",
      annotation_index: i,
      annotation,
    })),
    {
      type: "response.output_text.delta",
      output_index: 1,
      content_index: 0,
      item_id: "msg_68a2",
      delta: ANSWER.slice(CITED.length),
    },
    {
      type: "response.output_text.done",
      output_index: 1,
      content_index: 0,
      item_id: "msg_68a2",
      text: ANSWER,
    },
    { type: "response.output_item.done", output_index: 1, item: message() },
    { type: "response.completed", response: responsesSearched(body) },
  ];
  return new Response(
    events.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join(
      "",
    ),
    { headers: { "content-type": "text/event-stream" } },
  );
}
