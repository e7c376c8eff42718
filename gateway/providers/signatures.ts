/**
 * Thinking-signature provenance. Signatures are bound to the model family that made them: Anthropic rejects
 * a thinking block whose signature it did not issue ("Invalid signature in thinking block"), which is what
 * happens when a conversation moves from a translated provider to Claude. Signatures the gateway passes on
 * from other providers are therefore prefixed `gw-<provider>:`, and such blocks — and translated thinking
 * with no signature at all — are dropped before a request goes to Anthropic.
 */
import type { MessagesRequest } from "../messages/types.ts";

const PREFIX = "gw-";

/** Marks a signature minted by a non-Anthropic provider. */
export function foreignSignature(provider: string, signature: string): string {
  return `${PREFIX}${provider}:${signature}`;
}

function isForeignThinking(block: { type: string; signature?: unknown }): boolean {
  return block.type === "thinking" &&
    (typeof block.signature !== "string" || block.signature === "" || block.signature.startsWith(PREFIX));
}

/** The request without thinking blocks Anthropic would reject (the same object when there are none). */
export function withoutForeignThinking(request: MessagesRequest): MessagesRequest {
  const dirty = request.messages.some((m) =>
    m.role === "assistant" && Array.isArray(m.content) && m.content.some(isForeignThinking)
  );
  if (!dirty) return request;
  return {
    ...request,
    messages: request.messages.map((m) =>
      m.role === "assistant" && Array.isArray(m.content)
        ? { ...m, content: m.content.filter((b) => !isForeignThinking(b)) }
        : m
    ),
  };
}
