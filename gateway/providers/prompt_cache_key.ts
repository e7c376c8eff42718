/**
 * OpenAI's `prompt_cache_key` from Anthropic `cache_control` breakpoints. OpenAI caches prompt prefixes of
 * 1,024 tokens or more by itself; the key only steers requests that share a prefix to the same cache, so it
 * should be stable for one client's conversations and differ between clients. A request with at least one
 * breakpoint gets `sy-` and 32 hex digits of SHA-256 over the client's `metadata.user_id` (Claude Code sends
 * one per user and session), the tool names and the system prompt up to its first cached block — the part
 * Claude Code resends unchanged on every call. Without a breakpoint no key is sent (automatic caching still
 * applies).
 */
import { sha256Hex } from "@switchyard/lib/crypto.ts";
import type { MessagesRequest } from "../messages/types.ts";

function hasBreakpoint(blocks: unknown): boolean {
  if (!Array.isArray(blocks)) return false;
  for (const block of blocks) {
    const control = (block as { cache_control?: unknown } | null)?.cache_control;
    if (control && typeof control === "object") return true;
  }
  return false;
}

/** The system text up to and including its first cached block (all of it without one). */
function cachedSystem(system: MessagesRequest["system"]): string {
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  const texts: string[] = [];
  for (const block of system) {
    if (block.type === "text") texts.push(block.text);
    if ((block as { cache_control?: unknown }).cache_control) break;
  }
  return texts.join("\n");
}

/** The `prompt_cache_key` for `request`, or undefined when it has no `cache_control` breakpoint. */
export function promptCacheKey(request: MessagesRequest): string | undefined {
  const marked = hasBreakpoint(request.system) || hasBreakpoint(request.tools) ||
    request.messages.some((message) => hasBreakpoint(message.content));
  if (!marked) return undefined;
  const tools = (request.tools ?? []).map((tool) => (tool as { name?: string }).name ?? "").join(",");
  const digest = sha256Hex(`${request.metadata?.user_id ?? ""}\n${tools}\n${cachedSystem(request.system)}`);
  return `sy-${digest.slice(0, 32)}`;
}
