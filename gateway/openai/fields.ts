/**
 * The request fields of both OpenAI formats, in one table each: which are accepted (translated, or ignored
 * as OpenAI-side hints with no meaning here) and which are refused with a 400 naming them. Any other field is
 * refused as unrecognized, as OpenAI does. docs/gateway.md lists the same sets.
 */
import { isObject } from "../messages/validate_content.ts";

/** True for an absent (undefined or null) value. */
export const absent = (value: unknown): boolean => value === undefined || value === null;

/** Chat Completions fields accepted (translated, or ignored as OpenAI-side hints). */
export const CHAT_KNOWN: ReadonlySet<string> = new Set([
  "model",
  "messages",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "temperature",
  "top_p",
  "n",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "response_format",
  "reasoning_effort",
  "user",
  "store",
  "metadata",
  "seed",
  "service_tier",
  "prompt_cache_key",
  "prompt_cache_retention",
  "safety_identifier",
  "verbosity",
  "presence_penalty",
  "frequency_penalty",
]);

/** A refusal for a feature the gateway does not offer, unless the value leaves it off. */
const notSupported = (what: string) => (value: unknown) =>
  value === undefined || value === null || value === false
    ? undefined
    : `${what} is not supported by this gateway`;

/** Chat Completions fields refused (the reason, or undefined for a harmless value). */
export const CHAT_REFUSED: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  n: (value) =>
    value === undefined || value === null || value === 1
      ? undefined
      : "only n = 1 is supported (one choice per request); send separate requests for more",
  logprobs: notSupported("logprobs"),
  top_logprobs: notSupported("top_logprobs"),
  logit_bias: (value) =>
    value === undefined || value === null || (isObject(value) && Object.keys(value).length === 0)
      ? undefined
      : "logit_bias is not supported by this gateway",
  audio: notSupported("audio output"),
  modalities: (value) =>
    value === undefined || value === null ||
      (Array.isArray(value) && value.every((m) => m === "text"))
      ? undefined
      : "only the text modality is supported",
  prediction: notSupported("predicted outputs"),
  web_search_options: notSupported("web search (a provider-hosted tool)"),
  functions: notSupported("the legacy functions parameter (use tools)"),
  function_call: notSupported("the legacy function_call parameter (use tool_choice)"),
};

/** Responses fields accepted (translated, or ignored as OpenAI-side hints). */
export const RESPONSES_KNOWN: ReadonlySet<string> = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "text",
  "reasoning",
  "max_output_tokens",
  "temperature",
  "top_p",
  "stream",
  "stream_options",
  "store",
  "include",
  "metadata",
  "prompt_cache_key",
  "prompt_cache_retention",
  "safety_identifier",
  "service_tier",
  "truncation",
  "user",
  "client_metadata",
  "max_tool_calls",
]);

/** Responses fields refused (the reason, or undefined for a harmless value). */
export const RESPONSES_REFUSED: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  previous_response_id: (value) =>
    absent(value)
      ? undefined
      : "this gateway stores no responses; send the whole conversation as input items (with store: false)",
  conversation: (value) =>
    absent(value) ? undefined : "this gateway stores no conversations; send input items",
  background: (value) =>
    absent(value) || value === false ? undefined : "background responses are not supported",
  prompt: (value) => absent(value) ? undefined : "stored prompt templates are not supported",
  top_logprobs: (value) => absent(value) || value === 0 ? undefined : "logprobs are not supported",
};

/** Input item types of provider-hosted tools (refused). */
export const HOSTED_ITEMS: ReadonlySet<string> = new Set([
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "mcp_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "custom_tool_call",
  "custom_tool_call_output",
]);
