/**
 * The `openai` and `openai-compatible` providers: Chat Completions at `{baseUrl}/chat/completions`, with
 * Bearer auth and per-provider quirks. Token counts are local estimates (Chat Completions has no counter).
 */
import { countOpenAiTokens } from "../messages/openai_tokens.ts";
import { promptCacheKey } from "./prompt_cache_key.ts";
import { invalidRequest } from "../errors.ts";
import { outputSchemaOf } from "../messages/output_format.ts";
import { translateStream } from "../messages/stream_pipe.ts";
import { type MessagesRequest, newMessageId } from "../messages/types.ts";
import {
  type OpenAiQuirks,
  type OptionalChatParam,
  type Provider,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
} from "./contract.ts";
import { bodyReaderOf } from "../upstream/response.ts";
import { pipeOptions, postUpstream, readUpstreamJson, traceHeaders } from "./http.ts";
import { toChatRequest } from "./openai_request.ts";
import { OPENAI_COMPATIBLE_QUIRKS } from "./presets.ts";
import { messageFromChatCompletion, OpenAiStreamTranslator } from "./openai_response.ts";

/** Quirks of OpenAI itself. */
export const OPENAI_QUIRKS: Readonly<OpenAiQuirks> = Object.freeze({
  ...OPENAI_COMPATIBLE_QUIRKS,
  maxTokensField: "max_completion_tokens",
  reasoningRequest: "reasoning_effort",
});

/** The value of the credential header: Bearer for `authorization`, the bare key for any other header. */
export function credentialHeader(settings: ProviderSettings): [string, string] | undefined {
  if (!settings.apiKey) return undefined;
  const name = settings.authHeader ?? "authorization";
  return [name, name === "authorization" ? `Bearer ${settings.apiKey}` : settings.apiKey];
}

/** Refuses, before any upstream call, what the provider's quirks say it cannot honour (400 naming it). */
export function refuseUnsupported(settings: ProviderSettings, request: MessagesRequest): void {
  const { quirks, name } = settings;
  if (!quirks.structuredOutputs && outputSchemaOf(request)) {
    throw invalidRequest(
      `output_config.format: provider ${name} cannot honour structured outputs (json_schema); ` +
        `use a provider that can, or set quirks.structured_outputs if it supports response_format`,
    );
  }
  const choice = request.tool_choice?.type;
  if (!quirks.forcedToolChoice && (choice === "any" || choice === "tool")) {
    throw invalidRequest(
      `tool_choice: provider ${name} cannot force a tool call (tool_choice ${choice}); use auto or none, ` +
        `or set quirks.forced_tool_choice if it supports tool_choice required`,
    );
  }
  const present: Record<OptionalChatParam, boolean> = {
    temperature: request.temperature !== undefined,
    top_p: request.top_p !== undefined,
    stop: (request.stop_sequences?.length ?? 0) > 0,
    user: Boolean(request.metadata?.user_id),
  };
  for (const [param, action] of Object.entries(quirks.unsupportedParams)) {
    if (action !== "refuse" || !present[param as OptionalChatParam]) continue;
    const field = param === "stop" ? "stop_sequences" : param === "user" ? "metadata.user_id" : param;
    throw invalidRequest(`${field}: provider ${name} does not accept ${param}; remove it from the request`);
  }
}

/** Creates a Chat Completions provider. */
export function createOpenAiProvider(settings: ProviderSettings, deps: ProviderDeps): Provider {
  const url = `${settings.baseUrl}/chat/completions`;
  const credential = credentialHeader(settings);
  const headers = (call: ProviderCall): Record<string, string> => {
    const h = traceHeaders(call);
    if (credential) h[credential[0]] = credential[1];
    if (settings.kind === "openai") h["x-client-request-id"] = call.trace.traceId;
    return h;
  };
  const chatRequest = (call: ProviderCall, stream: boolean) => {
    refuseUnsupported(settings, call.request);
    const body = toChatRequest(call.request, call.upstreamModel, settings.quirks, stream);
    // OpenAI's own API takes a cache routing key; OpenAI-compatible hosts may refuse unknown fields.
    if (settings.kind === "openai") {
      const key = promptCacheKey(call.request);
      if (key) body.prompt_cache_key = key;
    }
    return body;
  };
  return {
    name: settings.name,
    kind: settings.kind,
    async createMessage(call) {
      const body = chatRequest(call, false);
      const response = await postUpstream(deps, settings.name, url, headers(call), body, call);
      const json = await readUpstreamJson(settings.name, response);
      return messageFromChatCompletion(
        settings.name,
        json,
        call.requestedModel,
        call.inputTokensEstimate,
        settings.quirks.reasoningField,
      );
    },
    async streamMessage(call) {
      const body = chatRequest(call, true);
      const response = await postUpstream(deps, settings.name, url, headers(call), body, call);
      return translateStream(
        bodyReaderOf(response),
        new OpenAiStreamTranslator(settings.name, call.inputTokensEstimate, settings.quirks.reasoningField),
        pipeOptions(
          deps,
          call,
          (writer) => writer.start(newMessageId(), call.requestedModel, call.inputTokensEstimate),
        ),
      );
    },
    async countTokens(call) {
      // OpenAI's own tokenizer for OpenAI models; the local estimate for others (an OpenAI-compatible host's).
      const tokens = await countOpenAiTokens(call.upstreamModel, call.request);
      return tokens === undefined
        ? { input_tokens: call.inputTokensEstimate, source: "estimate" }
        : { input_tokens: tokens, source: "tokenizer" };
    },
  };
}
