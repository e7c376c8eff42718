/**
 * The `openai-responses` provider: OpenAI's Responses API at `{baseUrl}/responses`, Bearer auth. Token counts
 * are OpenAI's tokenizer's (or the local estimate), as on the Chat Completions lane; `cache_control`
 * breakpoints become a `prompt_cache_key` (prompt_cache_key.ts).
 */
import { countOpenAiTokens } from "../messages/openai_tokens.ts";
import { promptCacheKey } from "./prompt_cache_key.ts";
import { translateStream } from "../messages/stream_pipe.ts";
import { newMessageId } from "../messages/types.ts";
import { type Provider, type ProviderCall, type ProviderDeps, type ProviderSettings } from "./contract.ts";
import { bodyReaderOf } from "../upstream/response.ts";
import { pipeOptions, postUpstream, readUpstreamJson, traceHeaders } from "./http.ts";
import { toResponsesRequest } from "./openai_responses_request.ts";
import { messageFromResponse, ResponsesStreamTranslator } from "./openai_responses_response.ts";

/** Creates a Responses API provider. */
export function createOpenAiResponsesProvider(settings: ProviderSettings, deps: ProviderDeps): Provider {
  const url = `${settings.baseUrl}/responses`;
  const headers = (call: ProviderCall): Record<string, string> => {
    const h = traceHeaders(call);
    if (settings.apiKey) h.authorization = `Bearer ${settings.apiKey}`;
    h["x-client-request-id"] = call.trace.traceId;
    return h;
  };
  const responsesRequest = (call: ProviderCall, stream: boolean) => {
    const body = toResponsesRequest(settings.name, call.request, call.upstreamModel, stream);
    const key = promptCacheKey(call.request);
    if (key) body.prompt_cache_key = key;
    return body;
  };
  return {
    name: settings.name,
    kind: settings.kind,
    async createMessage(call) {
      const body = responsesRequest(call, false);
      const response = await postUpstream(deps, settings.name, url, headers(call), body, call);
      const json = await readUpstreamJson(settings.name, response);
      return messageFromResponse(settings.name, json, call.requestedModel);
    },
    async streamMessage(call) {
      const body = responsesRequest(call, true);
      const response = await postUpstream(deps, settings.name, url, headers(call), body, call);
      return translateStream(
        bodyReaderOf(response),
        new ResponsesStreamTranslator(settings.name),
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
