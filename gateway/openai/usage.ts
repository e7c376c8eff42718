/** Token usage in OpenAI's two spellings, from the gateway's (Anthropic) accounting. */
import { estimateTextTokens } from "../messages/count_tokens.ts";
import type { Usage } from "../messages/types.ts";

/** Prompt tokens as OpenAI counts them: cached and cache-written tokens included. */
function promptTokens(usage: Usage): number {
  return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
}

/** Reasoning tokens: upstreams report thinking within the output; estimated from the thinking text. */
function reasoningTokens(usage: Usage, thinkingChars: number): number {
  return Math.min(usage.output_tokens, thinkingChars > 0 ? estimateTextTokens(thinkingChars) : 0);
}

/** Chat Completions `usage`. */
export function chatUsage(usage: Usage, thinkingChars: number): Record<string, unknown> {
  const prompt = promptTokens(usage);
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: usage.cache_read_input_tokens },
    completion_tokens_details: { reasoning_tokens: reasoningTokens(usage, thinkingChars) },
  };
}

/** Responses API `usage`. */
export function responsesUsage(usage: Usage, thinkingChars: number): Record<string, unknown> {
  const input = promptTokens(usage);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cache_read_input_tokens },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens(usage, thinkingChars) },
    total_tokens: input + usage.output_tokens,
  };
}
