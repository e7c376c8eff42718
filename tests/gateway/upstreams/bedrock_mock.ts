/**
 * A Bedrock Runtime stand-in: `/model/{id}/invoke`, `/invoke-with-response-stream`, `/converse`,
 * `/converse-stream` and `/count-tokens`. Every request must carry a valid SigV4 signature (sigv4_check.ts);
 * bodies are checked as strictly as Bedrock does (InvokeModel refuses `model`, `stream` and unknown keys;
 * Converse refuses unknown keys, unknown block types and tool results without their tool use); streams are
 * event-stream frames with real CRCs, written in small odd-sized pieces so frames split anywhere.
 */
import { anthropicEvents, anthropicMessage, converseBody, converseEvents } from "./cloud_answers.ts";
import { anthropicView, converseView, decideAgentAnswer } from "./agent_script.ts";
import { eventMessage, exceptionMessage, invokeChunk } from "./event_stream_body.ts";
import { json, type MockUpstream, type RecordedRequest, startMock } from "./mock_server.ts";
import { type SigV4Expectation, verifySigV4 } from "./sigv4_check.ts";

const INVOKE_KEYS = new Set([
  "anthropic_version",
  "anthropic_beta",
  "max_tokens",
  "messages",
  "system",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "tools",
  "tool_choice",
  "thinking",
  "metadata",
  "context_management",
  "output_config",
]);
/** The betas Bedrock documents for Claude (any other: "invalid beta flag"), as AWS's model-parameter pages list them. */
const BEDROCK_BETAS = new Set([
  "computer-use-2024-10-22",
  "computer-use-2025-01-24",
  "token-efficient-tools-2025-02-19",
  "interleaved-thinking-2025-05-14",
  "output-128k-2025-02-19",
  "dev-full-thinking-2025-05-14",
  "context-1m-2025-08-07",
  "context-management-2025-06-27",
  "effort-2025-11-24",
  "tool-search-tool-2025-10-19",
  "tool-examples-2025-10-29",
]);
const TOOL_KEYS = new Set(["name", "description", "input_schema", "type", "cache_control", "strict"]);
const CONVERSE_KEYS = new Set([
  "messages",
  "system",
  "inferenceConfig",
  "toolConfig",
  "additionalModelRequestFields",
]);
const CONVERSE_BLOCKS = new Set([
  "text",
  "image",
  "document",
  "toolUse",
  "toolResult",
  "reasoningContent",
  "cachePoint",
]);
const PIECE_BYTES = 13;

function awsError(status: number, code: string, message: string): Response {
  return json({ message }, status, {
    "x-amzn-errortype": `${code}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  });
}

type Body = Record<string, unknown>;

function invokeProblem(body: Body): string | undefined {
  for (const key of Object.keys(body)) {
    if (!INVOKE_KEYS.has(key)) return `extraneous key [${key}] is not permitted`;
  }
  if (body.anthropic_version !== "bedrock-2023-05-31") {
    return "anthropic_version: expected bedrock-2023-05-31";
  }
  if (typeof body.max_tokens !== "number") return "max_tokens: required";
  if (!Array.isArray(body.messages)) return "messages: required";
  const betas = (body.anthropic_beta ?? []) as string[];
  if (betas.some((beta) => !BEDROCK_BETAS.has(beta))) return "invalid beta flag";
  if (body.context_management !== undefined && !betas.includes("context-management-2025-06-27")) {
    return "context_management: Extra inputs are not permitted";
  }
  for (const [i, tool] of ((body.tools ?? []) as Body[]).entries()) {
    const extra = Object.keys(tool).find((key) => !TOOL_KEYS.has(key));
    if (extra) return `tools.${i}.custom.${extra}: Extra inputs are not permitted`;
  }
  for (const [i, message] of (body.messages as Body[]).entries()) {
    if (message.role !== "user" && message.role !== "assistant") {
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    }
  }
  return undefined;
}

function converseProblem(body: Body): string | undefined {
  for (const key of Object.keys(body)) {
    if (!CONVERSE_KEYS.has(key)) return `extraneous key [${key}] is not permitted`;
  }
  const messages = body.messages as Array<{ role: string; content: Body[] }>;
  if (!Array.isArray(messages) || !messages.length) return "messages: at least one is required";
  const toolUses = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (message.role !== (i % 2 === 0 ? "user" : "assistant")) {
      return "A conversation must alternate between user and assistant roles";
    }
    for (const block of message.content) {
      const keys = Object.keys(block);
      if (keys.length !== 1 || !CONVERSE_BLOCKS.has(keys[0])) {
        return `unknown content block ${keys.join(",")}`;
      }
      const use = block.toolUse as { toolUseId?: string } | undefined;
      if (use) toolUses.add(use.toolUseId ?? "");
      const result = block.toolResult as { toolUseId?: string; content?: unknown[] } | undefined;
      if (result && (!toolUses.has(result.toolUseId ?? "") || !result.content?.length)) {
        return "toolResult does not match a previous toolUse";
      }
    }
  }
  if (toolUses.size && !body.toolConfig) {
    return "toolConfig field must be defined when using toolUse and toolResult content blocks";
  }
  const maxTokens = (body.inferenceConfig as { maxTokens?: unknown } | undefined)?.maxTokens;
  if (maxTokens !== undefined && typeof maxTokens !== "number") {
    return "inferenceConfig.maxTokens: expected a number";
  }
  return undefined;
}

function eventStream(messages: Uint8Array[], mock: MockUpstream): Response {
  const whole = new Uint8Array(messages.reduce((n, m) => n + m.length, 0));
  let at = 0;
  for (const m of messages) {
    whole.set(m, at);
    at += m.length;
  }
  let offset = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= whole.length) return controller.close();
      controller.enqueue(whole.slice(offset, offset + PIECE_BYTES));
      offset += PIECE_BYTES;
    },
    cancel() {
      mock.cancelled++;
    },
  });
  return new Response(body, { headers: { "content-type": "application/vnd.amazon.eventstream" } });
}

/**
 * Starts the stand-in. Models ending in `-throttled` stream a throttling exception mid-answer; in
 * `-corrupt` one frame has a flipped payload bit (its CRC no longer matches).
 */
export function startBedrockMock(expect: SigV4Expectation): Promise<MockUpstream> {
  return startMock((request: RecordedRequest, mock) => {
    const problem = verifySigV4("POST", request.path, request.headers, request.raw, expect);
    if (problem) {
      return awsError(
        problem.code === "IncompleteSignatureException" ? 400 : 403,
        problem.code,
        problem.message,
      );
    }
    const match =
      /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/
        .exec(request.path);
    if (!match) return awsError(404, "UnknownOperationException", "unknown operation");
    const model = decodeURIComponent(match[1]);
    const action = match[2];
    const body = request.body;
    if (action === "count-tokens") {
      const input = body.input as { invokeModel?: { body: string }; converse?: Body } | undefined;
      const counted = input?.invokeModel
        ? JSON.parse(input.invokeModel.body).messages
        : input?.converse?.messages;
      if (!counted) return awsError(400, "ValidationException", "input: expected invokeModel or converse");
      return json({ inputTokens: Math.ceil(JSON.stringify(counted).length / 4) });
    }
    const converse = action.startsWith("converse");
    const invalid = converse ? converseProblem(body) : invokeProblem(body);
    if (invalid) return awsError(400, "ValidationException", invalid);
    const answer = decideAgentAnswer(converse ? converseView(body) : anthropicView(body));
    if (action === "invoke") return json(anthropicMessage(answer, model));
    if (action === "converse") return json(converseBody(answer));
    const frames = converse
      ? converseEvents(answer).map(([type, payload]) => eventMessage(type, { ...payload, p: "abc" }))
      : anthropicEvents(answer, model).map((event, i, all) =>
        invokeChunk(
          i === all.length - 1
            ? { ...event, "amazon-bedrock-invocationMetrics": { inputTokenCount: 12, outputTokenCount: 5 } }
            : event,
        )
      );
    if (model.endsWith("-throttled")) {
      frames.splice(
        2,
        frames.length,
        exceptionMessage("throttlingException", "Too many tokens, please wait before trying again."),
      );
    }
    if (model.endsWith("-corrupt")) frames[2][frames[2].length - 6] ^= 0x20; // a payload bit flipped in transit
    return eventStream(frames, mock);
  });
}
