/**
 * The internal (Anthropic) answer → a Responses API `response` object. Output items in order: `reasoning`
 * (thinking text as its summary, the signature as `encrypted_content` so the next turn can replay it),
 * `message` (`output_text`, or `refusal`), `function_call` (tool_use, with `call_id` = the tool_use id).
 * A `max_tokens` stop is `status: "incomplete"` with `incomplete_details.reason: "max_output_tokens"`.
 */
import type { ContentBlock, Message, StopReason, Usage } from "../messages/types.ts";
import { REDACTED_PREFIX } from "./responses_request.ts";
import { randomHex128 } from "../request_context.ts";
import { countsOf, oneTextAnswer } from "./answer_text.ts";
import { responsesUsage } from "./usage.ts";

type Item = Record<string, unknown>;

/** A short random id with `prefix` (`resp`, `msg`, `rs`, `fc`). */
export function itemId(prefix: string): string {
  return `${prefix}_${randomHex128()}`;
}

/** The reasoning item of a thinking block. */
export function reasoningItem(id: string, thinking: string, signature: string): Item {
  return {
    type: "reasoning",
    id,
    summary: thinking ? [{ type: "summary_text", text: thinking }] : [],
    // No signature (a provider that gives none): nothing to replay, so nothing is claimed.
    encrypted_content: signature || null,
  };
}

/** The message item of some text (a refusal when the model refused). */
export function messageItem(id: string, text: string, refused: boolean, status = "completed"): Item {
  return {
    type: "message",
    id,
    status,
    role: "assistant",
    content: [refused ? { type: "refusal", refusal: text } : { type: "output_text", text, annotations: [] }],
  };
}

/** The function call item of a tool_use block. */
export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  status = "completed",
): Item {
  return { type: "function_call", id, call_id: callId, name, arguments: args, status };
}

function itemOf(
  block: ContentBlock | { type: "redacted_thinking"; data: string },
  refused: boolean,
): Item | undefined {
  switch (block.type) {
    case "thinking":
      return reasoningItem(itemId("rs"), block.thinking, block.signature);
    case "redacted_thinking":
      return reasoningItem(itemId("rs"), "", `${REDACTED_PREFIX}${block.data}`);
    case "text":
      return messageItem(itemId("msg"), block.text, refused);
    case "tool_use":
      return functionCallItem(itemId("fc"), block.id, block.name, JSON.stringify(block.input ?? {}));
    default:
      return undefined;
  }
}

/** The `status` and `incomplete_details` of a stop reason. */
export function statusOf(
  reason: StopReason | null | undefined,
): { status: string; incomplete_details: unknown } {
  return reason === "max_tokens" || reason === "model_context_window_exceeded"
    ? { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
    : { status: "completed", incomplete_details: null };
}

/** The response object's common fields (`echo` carries the request's settings). */
export function responseShell(
  id: string,
  model: string,
  createdAt: number,
  echo: Record<string, unknown>,
): Record<string, unknown> {
  return {
    id,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    error: null,
    incomplete_details: null,
    model,
    output: [],
    usage: null,
    ...echo,
  };
}

/** Builds the `response` for `message`, echoing `model` and the request's settings. */
export function responseOf(
  message: Message,
  model: string,
  echo: Record<string, unknown>,
): Record<string, unknown> {
  const refused = message.stop_reason === "refusal";
  // Adjacent text blocks form one message item, as OpenAI answers.
  const blocks: ContentBlock[] = [];
  for (const block of message.content) {
    const last = blocks.at(-1);
    if (block.type === "text" && last?.type === "text") {
      blocks[blocks.length - 1] = { type: "text", text: last.text + block.text };
    } else blocks.push(block);
  }
  const output = blocks.map((block) => itemOf(block, refused)).filter((item) => item !== undefined);
  const thinkingChars = message.content.reduce(
    (n, b) => n + (b.type === "thinking" ? b.thinking.length : 0),
    0,
  );
  return {
    ...responseShell(itemId("resp"), model, Math.floor(Date.now() / 1000), echo),
    ...statusOf(message.stop_reason),
    output,
    usage: responsesUsage(message.usage as Usage, thinkingChars),
  };
}

/** The keys of {@link responseShell} before the echo (an echo repeating one would move it). */
const SHELL_KEYS: ReadonlySet<string> = new Set([
  "id",
  "object",
  "created_at",
  "status",
  "error",
  "incomplete_details",
  "model",
  "output",
  "usage",
]);

/** The Responses `usage` JSON, written directly (the same text as `JSON.stringify(responsesUsage(u, 0))`). */
function responsesUsageText(usage: Usage): string {
  const counts = countsOf(usage);
  if (!counts) return JSON.stringify(responsesUsage(usage, 0));
  const { output, read } = counts;
  const input = counts.input + read + counts.written;
  return `{"input_tokens":${input},"input_tokens_details":{"cached_tokens":${read}},"output_tokens":${output},` +
    `"output_tokens_details":{"reasoning_tokens":${Math.min(output, 0)}},"total_tokens":${input + output}}`;
}

/**
 * The `response` text of an Anthropic answer's JSON `text` whose content is one text block, without parsing
 * the answer (answer_text.ts): the same response as `JSON.stringify(responseOf(JSON.parse(text), model,
 * echo))` (the text's escapes as the upstream wrote them). Undefined for anything else (other blocks, a
 * refusal, an unexpected layout): then the caller parses.
 */
export function responseTextOf(
  text: string,
  model: string,
  echo: Record<string, unknown>,
): { text: string; usage: Usage } | undefined {
  for (const key in echo) if (SHELL_KEYS.has(key)) return undefined;
  const answer = oneTextAnswer(text);
  if (!answer) return undefined;
  const { status, incomplete_details } = statusOf(answer.stop);
  const echoed = JSON.stringify(echo);
  return {
    text: `{"id":"${itemId("resp")}","object":"response","created_at":${Math.floor(Date.now() / 1000)},` +
      `"status":"${status}","error":null,"incomplete_details":${JSON.stringify(incomplete_details)},` +
      `"model":${JSON.stringify(model)},"output":[{"type":"message","id":"${itemId("msg")}",` +
      `"status":"completed","role":"assistant","content":[{"type":"output_text","text":${answer.literal},` +
      `"annotations":[]}]}],"usage":${responsesUsageText(answer.usage)}` +
      `${echoed.length > 2 ? `,${echoed.slice(1)}` : "}"}`,
    usage: answer.usage,
  };
}
