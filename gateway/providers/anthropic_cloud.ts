/**
 * What Bedrock's InvokeModel and Vertex's rawPredict share: the Anthropic body with the model in the URL
 * instead of the body, the platform's `anthropic_version`, and `anthropic-beta` header values moved into an
 * `anthropic_beta` body array (neither platform reads the header).
 */
import type { ProviderCall } from "./contract.ts";
import { withoutForeignThinking } from "./signatures.ts";

/**
 * The body for a cloud platform's Anthropic endpoint. `stream` is set when the platform reads it from the
 * body (Vertex) and left out when the endpoint decides (Bedrock, which refuses the key).
 */
export function cloudAnthropicBody(
  call: ProviderCall,
  version: string,
  stream?: boolean,
): Record<string, unknown> {
  const { model: _model, stream: _stream, ...rest } = withoutForeignThinking(call.request);
  const body: Record<string, unknown> = { anthropic_version: version, ...rest };
  const beta = call.clientHeaders.get("anthropic-beta");
  if (beta) body.anthropic_beta = beta.split(",").map((b) => b.trim()).filter(Boolean);
  if (stream !== undefined) body.stream = stream;
  return body;
}

/** The count_tokens body: only the fields that count. */
export function countTokensFields(call: ProviderCall): Record<string, unknown> {
  const { messages, system, tools, tool_choice, thinking } = withoutForeignThinking(call.request);
  return { messages, system, tools, tool_choice, thinking };
}
