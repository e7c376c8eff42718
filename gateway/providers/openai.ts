/**
 * The `openai` and `openai-compatible` providers: Chat Completions at `{baseUrl}/chat/completions`, with
 * Bearer auth and per-provider quirks. Token counts are local estimates (Chat Completions has no counter).
 */
import { invalidRequest } from "../errors.ts";
import { outputSchemaOf } from "../messages/output_format.ts";
import { translateStream } from "../messages/stream_pipe.ts";
import { newMessageId } from "../messages/types.ts";
import {
  bodyReaderOf,
  type OpenAiQuirks,
  type Provider,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
} from "./contract.ts";
import { pipeOptions, postUpstream, readUpstreamJson, traceHeaders } from "./http.ts";
import { toChatRequest } from "./openai_request.ts";
import { messageFromChatCompletion, OpenAiStreamTranslator } from "./openai_response.ts";

/** Quirks of OpenAI itself. */
export const OPENAI_QUIRKS: Readonly<OpenAiQuirks> = {
  streamOptions: true,
  parallelToolCalls: true,
  maxTokensField: "max_completion_tokens",
  nineCharToolIds: false,
  toolChoiceAny: "required",
  structuredOutputs: true,
};

/** Defaults for an OpenAI-compatible server (overridable per provider in the config file). */
export const OPENAI_COMPATIBLE_QUIRKS: Readonly<OpenAiQuirks> = {
  streamOptions: true,
  parallelToolCalls: true,
  maxTokensField: "max_tokens",
  nineCharToolIds: false,
  toolChoiceAny: "required",
  structuredOutputs: true,
};

/** Creates a Chat Completions provider. */
export function createOpenAiProvider(settings: ProviderSettings, deps: ProviderDeps): Provider {
  const url = `${settings.baseUrl}/chat/completions`;
  const headers = (call: ProviderCall): Record<string, string> => {
    const h = traceHeaders(call);
    if (settings.apiKey) h.authorization = `Bearer ${settings.apiKey}`;
    if (settings.kind === "openai") h["x-client-request-id"] = call.trace.traceId;
    return h;
  };
  const chatRequest = (call: ProviderCall, stream: boolean) => {
    if (!settings.quirks.structuredOutputs && outputSchemaOf(call.request)) {
      throw invalidRequest(
        `output_config.format: provider ${settings.name} cannot honour structured outputs (json_schema); ` +
          `use a provider that can, or set quirks.structured_outputs if it supports response_format`,
      );
    }
    return toChatRequest(call.request, call.upstreamModel, settings.quirks, stream);
  };
  return {
    name: settings.name,
    kind: settings.kind,
    async createMessage(call) {
      const body = chatRequest(call, false);
      const response = await postUpstream(deps, settings.name, url, headers(call), body, call);
      const json = await readUpstreamJson(settings.name, response);
      return messageFromChatCompletion(settings.name, json, call.requestedModel, call.inputTokensEstimate);
    },
    async streamMessage(call) {
      const body = chatRequest(call, true);
      const response = await postUpstream(deps, settings.name, url, headers(call), body, call);
      return translateStream(
        bodyReaderOf(response),
        new OpenAiStreamTranslator(settings.name, call.inputTokensEstimate),
        pipeOptions(
          deps,
          call,
          (writer) => writer.start(newMessageId(), call.requestedModel, call.inputTokensEstimate),
        ),
      );
    },
    countTokens(call) {
      return Promise.resolve(call.inputTokensEstimate);
    },
  };
}
