/**
 * Resolves the config file's `providers:` entries into provider settings: the entry's type (given, or
 * `openai-compatible` through a preset), its base URL, credential variable, auth header and quirks — each
 * taken from the entry when it says, else from its preset, else from the type's defaults. An entry that
 * cannot be resolved is a problem naming its key; an entry whose credential variable is unset is not offered.
 */
import type { ConfigProblem, Env } from "@switchyard/lib/config.ts";
import type { GatewayFile, ProviderEntry } from "./file.ts";
import { CLOUD_FIELD_NAMES } from "./cloud_fields.ts";
import type { OpenAiQuirks, ProviderSettings } from "../providers/contract.ts";
import {
  isPresetName,
  OPENAI_COMPATIBLE_QUIRKS,
  PROVIDER_PRESETS,
  type ProviderPreset,
} from "../providers/presets.ts";

/** Where a Responses API provider points unless its entry says otherwise. */
export const OPENAI_RESPONSES_DEFAULTS = {
  baseUrl: "https://api.openai.com/v1",
  apiKeyEnv: "OPENAI_API_KEY",
};

type Quirks = NonNullable<ProviderEntry["quirks"]>;

function quirksOf(preset: ProviderPreset | undefined, q: Quirks): OpenAiQuirks {
  const base: OpenAiQuirks = { ...OPENAI_COMPATIBLE_QUIRKS, ...preset?.quirks };
  return Object.freeze({
    streamOptions: q.stream_options ?? base.streamOptions,
    parallelToolCalls: q.parallel_tool_calls ?? base.parallelToolCalls,
    maxTokensField: q.max_tokens_field ?? base.maxTokensField,
    nineCharToolIds: q.nine_char_tool_ids ?? base.nineCharToolIds,
    toolChoiceAny: q.tool_choice_any ?? base.toolChoiceAny,
    structuredOutputs: q.structured_outputs ?? base.structuredOutputs,
    forcedToolChoice: q.forced_tool_choice ?? base.forcedToolChoice,
    reasoningField: q.reasoning_field ?? base.reasoningField,
    reasoningRequest: q.reasoning_request ?? base.reasoningRequest,
    unsupportedParams: Object.freeze({ ...base.unsupportedParams, ...q.unsupported_params }),
  });
}

/** The preset of an entry: named by `preset:`, or implied by an entry named after one with no type. */
function presetNameOf(name: string, entry: ProviderEntry): string | undefined {
  if (entry.preset) return entry.preset;
  return entry.type === undefined && isPresetName(name) ? name : undefined;
}

/** Resolves one entry, or reports why it cannot be. */
function resolveEntry(
  name: string,
  entry: ProviderEntry,
  env: Env,
): { settings?: ProviderSettings; problem?: ConfigProblem } {
  if (entry.type === "bedrock" || entry.type === "vertex") return {}; // resolved by cloud.ts
  const key = (field: string) => `GATEWAY_CONFIG: providers.${name}${field ? `.${field}` : ""}`;
  const cloudField = CLOUD_FIELD_NAMES.find((field) => entry[field] !== undefined);
  if (cloudField) {
    return { problem: { key: key(cloudField), message: "applies to bedrock and vertex providers only" } };
  }
  const presetName = presetNameOf(name, entry);
  const preset: ProviderPreset | undefined = presetName && isPresetName(presetName)
    ? PROVIDER_PRESETS[presetName]
    : undefined;
  const type = entry.type ?? (preset ? "openai-compatible" : undefined);
  if (!type) {
    return {
      problem: {
        key: key("type"),
        message: `expected type openai-compatible, openai-responses, bedrock or vertex, or preset: one of ${
          Object.keys(PROVIDER_PRESETS).join(", ")
        }`,
      },
    };
  }
  if (preset && type !== "openai-compatible") {
    return {
      problem: { key: key("preset"), message: `presets are openai-compatible providers, not ${type}` },
    };
  }
  if (type === "openai-responses" && entry.quirks) {
    return { problem: { key: key("quirks"), message: "quirks apply to openai-compatible providers only" } };
  }
  const defaults: { baseUrl: string; apiKeyEnv?: string } | undefined = type === "openai-responses"
    ? OPENAI_RESPONSES_DEFAULTS
    : preset;
  const baseUrl = entry.base_url ?? defaults?.baseUrl;
  if (!baseUrl) {
    return {
      problem: {
        key: key("base_url"),
        message: "required for an openai-compatible provider without a preset",
      },
    };
  }
  const apiKeyEnv = entry.api_key_env ?? defaults?.apiKeyEnv;
  const apiKey = apiKeyEnv ? env[apiKeyEnv] : undefined;
  if (apiKeyEnv && !apiKey) return {}; // the credential is not set: the provider is not offered
  return {
    settings: {
      name,
      kind: type,
      baseUrl: baseUrl.replace(/\/+$/, ""),
      apiKey,
      credentialName: apiKeyEnv,
      authHeader: (entry.auth_header ?? preset?.authHeader ?? "authorization").toLowerCase(),
      quirks: quirksOf(preset, entry.quirks ?? {}),
    },
  };
}

/** The offered providers of the config file, and the problems of the entries that cannot be resolved. */
export function fileProviders(
  file: GatewayFile,
  env: Env,
): { providers: ProviderSettings[]; problems: ConfigProblem[] } {
  const providers: ProviderSettings[] = [];
  const problems: ConfigProblem[] = [];
  for (const [name, entry] of Object.entries(file.providers ?? {})) {
    const { settings, problem } = resolveEntry(name, entry, env);
    if (problem) problems.push(problem);
    if (settings) providers.push(settings);
  }
  return { providers, problems };
}
