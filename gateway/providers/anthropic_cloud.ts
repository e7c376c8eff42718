/**
 * What Bedrock's InvokeModel and Vertex's rawPredict share: the Anthropic body with the model in the URL
 * instead of the body, the platform's `anthropic_version`, and `anthropic-beta` header values moved into an
 * `anthropic_beta` body array (neither platform reads the header).
 *
 * The platforms lag the first-party API: they answer "invalid beta flag" to a beta they do not offer and
 * "Extra inputs are not permitted" to fields that only such a beta allows. Clients written for the
 * first-party API (Claude Code sends a dozen betas, `defer_loading` tools and mid-conversation `system`
 * turns on every request) would fail on every call, so only the betas the platforms document travel, and
 * what depends on a beta that stays behind is adapted: `system` turns join the top-level system prompt (as
 * they do for Gemini), `defer_loading` is dropped (the tool is simply offered), `context_management` goes
 * only with its beta.
 */
import type { MessageParam, MessagesRequest, TextBlockParam } from "../messages/types.ts";
import type { ProviderCall } from "./contract.ts";
import { withoutForeignThinking } from "./signatures.ts";

/** The betas Bedrock and Vertex document for Claude; any other is refused with "invalid beta flag". */
export const CLOUD_BETAS: ReadonlySet<string> = new Set([
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
const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";
const TOOL_SEARCH_BETA = "tool-search-tool-2025-10-19";

/** The client's betas the platforms accept. */
export function cloudBetas(call: ProviderCall): string[] {
  const header = call.clientHeaders.get("anthropic-beta") ?? "";
  return header.split(",").map((b) => b.trim()).filter((b) => CLOUD_BETAS.has(b));
}

function systemBlocks(system: MessagesRequest["system"]): TextBlockParam[] {
  if (system === undefined) return [];
  return typeof system === "string" ? [{ type: "text", text: system }] : system;
}

function turnText(turn: MessageParam): TextBlockParam[] {
  if (typeof turn.content === "string") return [{ type: "text", text: turn.content }];
  return turn.content.filter((b): b is TextBlockParam => b.type === "text");
}

/** The request with `system` turns folded into the top-level system prompt, in their order. */
function withoutSystemTurns(request: MessagesRequest): MessagesRequest {
  const turns = request.messages.filter((m) => m.role === "system");
  if (!turns.length) return request;
  return {
    ...request,
    system: [...systemBlocks(request.system), ...turns.flatMap(turnText)],
    messages: request.messages.filter((m) => m.role !== "system"),
  };
}

/** The request as the cloud platforms take it (see the module comment), with the betas that go along. */
function cloudRequest(call: ProviderCall): { request: MessagesRequest; betas: string[] } {
  const betas = cloudBetas(call);
  const request: MessagesRequest = { ...withoutSystemTurns(withoutForeignThinking(call.request)) };
  if (!betas.includes(CONTEXT_MANAGEMENT_BETA)) delete request.context_management;
  if (request.tools && !betas.includes(TOOL_SEARCH_BETA)) {
    request.tools = request.tools.map((tool) => {
      if (!("defer_loading" in tool)) return tool;
      const { defer_loading: _deferred, ...offered } = tool as typeof tool & { defer_loading?: unknown };
      return offered;
    });
  }
  return { request, betas };
}

/**
 * The body for a cloud platform's Anthropic endpoint. `stream` is set when the platform reads it from the
 * body (Vertex) and left out when the endpoint decides (Bedrock, which refuses the key).
 */
export function cloudAnthropicBody(
  call: ProviderCall,
  version: string,
  stream?: boolean,
): Record<string, unknown> {
  const { request, betas } = cloudRequest(call);
  const { model: _model, stream: _stream, ...rest } = request;
  const body: Record<string, unknown> = { anthropic_version: version, ...rest };
  if (betas.length) body.anthropic_beta = betas;
  if (stream !== undefined) body.stream = stream;
  return body;
}

/** The count_tokens body: only the fields that count. */
export function countTokensFields(call: ProviderCall): Record<string, unknown> {
  const { messages, system, tools, tool_choice, thinking } = cloudRequest(call).request;
  return { messages, system, tools, tool_choice, thinking };
}
