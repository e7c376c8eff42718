/**
 * Presets for OpenAI-compatible hosts: one table of each host's base URL, credential variable, auth header
 * and documented differences from OpenAI's Chat Completions. A config entry `preset: groq` starts from its
 * row; every field can be overridden in the entry. Where a host's documentation leaves a behaviour open, the
 * row takes the setting that cannot fail (an optional field not sent) rather than the one that might.
 */
import type { OpenAiQuirks } from "./contract.ts";

/** One host's preset. */
export interface ProviderPreset {
  /** Product name, for messages and docs. */
  label: string;
  /** Base URL of its Chat Completions API (the gateway appends `/chat/completions`). */
  baseUrl: string;
  /** The environment variable its vendor's SDKs read the key from; absent for keyless local servers. */
  apiKeyEnv?: string;
  /** The header carrying the key (`authorization` sends `Bearer <key>`). */
  authHeader: string;
  /** Differences from the compatible defaults. */
  quirks: Partial<OpenAiQuirks>;
}

/** Quirks every OpenAI-compatible provider starts from (overridden by its preset, then its config entry). */
export const OPENAI_COMPATIBLE_QUIRKS: Readonly<OpenAiQuirks> = Object.freeze({
  streamOptions: true,
  parallelToolCalls: true,
  maxTokensField: "max_tokens",
  nineCharToolIds: false,
  toolChoiceAny: "required",
  structuredOutputs: true,
  forcedToolChoice: true,
  reasoningField: "any",
  reasoningRequest: "none",
  unsupportedParams: {},
});

/** The preset table, keyed by the name used in `preset:`. */
export const PROVIDER_PRESETS = {
  openrouter: {
    label: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    apiKeyEnv: "OPENROUTER_API_KEY",
    authHeader: "authorization",
    // Reasoning streams as `reasoning`; `reasoning: {max_tokens}` takes Anthropic's budget as it is.
    quirks: { reasoningField: "reasoning", reasoningRequest: "reasoning_max_tokens" },
  },
  groq: {
    label: "Groq",
    baseUrl: "https://api.groq.com/openai/v1",
    apiKeyEnv: "GROQ_API_KEY",
    authHeader: "authorization",
    quirks: { maxTokensField: "max_completion_tokens", reasoningField: "reasoning" },
  },
  deepseek: {
    label: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    authHeader: "authorization",
    // `response_format` is json_object only; parallel_tool_calls is not part of its API.
    quirks: { reasoningField: "reasoning_content", structuredOutputs: false, parallelToolCalls: false },
  },
  mistral: {
    label: "Mistral",
    baseUrl: "https://api.mistral.ai/v1",
    apiKeyEnv: "MISTRAL_API_KEY",
    authHeader: "authorization",
    // Unknown fields are 422 `extra_forbidden` (stream_options, max_completion_tokens, user); usage always
    // ends a stream; tool call ids are nine alphanumerics; forced choice is spelled `any`.
    quirks: {
      streamOptions: false,
      nineCharToolIds: true,
      toolChoiceAny: "any",
      unsupportedParams: { user: "drop" },
    },
  },
  xai: {
    label: "xAI",
    baseUrl: "https://api.x.ai/v1",
    apiKeyEnv: "XAI_API_KEY",
    authHeader: "authorization",
    // Grok reasoning models answer `stop` with a 400; refusing says so before the call.
    quirks: { reasoningField: "reasoning_content", unsupportedParams: { stop: "refuse" } },
  },
  together: {
    label: "Together AI",
    baseUrl: "https://api.together.xyz/v1",
    apiKeyEnv: "TOGETHER_API_KEY",
    authHeader: "authorization",
    quirks: { streamOptions: false, reasoningField: "reasoning" },
  },
  fireworks: {
    label: "Fireworks AI",
    baseUrl: "https://api.fireworks.ai/inference/v1",
    apiKeyEnv: "FIREWORKS_API_KEY",
    authHeader: "authorization",
    quirks: { streamOptions: false, toolChoiceAny: "any", reasoningField: "reasoning_content" },
  },
  cerebras: {
    label: "Cerebras",
    baseUrl: "https://api.cerebras.ai/v1",
    apiKeyEnv: "CEREBRAS_API_KEY",
    authHeader: "authorization",
    // parallel_tool_calls is a 400; tool_choice is auto or none only.
    quirks: {
      maxTokensField: "max_completion_tokens",
      parallelToolCalls: false,
      forcedToolChoice: false,
      reasoningField: "reasoning",
    },
  },
  ollama: {
    label: "Ollama",
    baseUrl: "http://localhost:11434/v1",
    authHeader: "authorization",
    // tool_choice is not supported (a forced choice would be silently ignored).
    quirks: { forcedToolChoice: false, parallelToolCalls: false, reasoningField: "reasoning" },
  },
  vllm: {
    label: "vLLM",
    baseUrl: "http://localhost:8000/v1",
    authHeader: "authorization",
    quirks: { reasoningField: "any" },
  },
  lmstudio: {
    label: "LM Studio",
    baseUrl: "http://localhost:1234/v1",
    authHeader: "authorization",
    quirks: { streamOptions: false, parallelToolCalls: false, reasoningField: "reasoning_content" },
  },
  llamacpp: {
    label: "llama.cpp server",
    baseUrl: "http://localhost:8080/v1",
    authHeader: "authorization",
    quirks: { reasoningField: "reasoning_content" },
  },
} as const satisfies Record<string, ProviderPreset>;

/** A preset's name. */
export type PresetName = keyof typeof PROVIDER_PRESETS;

/** Every preset name, in table order. */
export const PRESET_NAMES = Object.keys(PROVIDER_PRESETS) as [PresetName, ...PresetName[]];

/** True when `name` is a preset. */
export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PROVIDER_PRESETS, name);
}
