/**
 * The `gemini` provider: `POST {baseUrl}/v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`, `x-goog-api-key` auth, token counts from `:countTokens`.
 */
import { translateStream } from "../messages/stream_pipe.ts";
import { newMessageId } from "../messages/types.ts";
import {
  type Provider,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
  upstreamCount,
} from "./contract.ts";
import { bodyReaderOf } from "../upstream/response.ts";
import { toGeminiRequest } from "./gemini_request.ts";
import { GeminiStreamTranslator, messageFromGemini } from "./gemini_response.ts";
import { pipeOptions, postUpstream, readUpstreamJson } from "./http.ts";

/** Creates the Gemini provider. */
export function createGeminiProvider(settings: ProviderSettings, deps: ProviderDeps): Provider {
  const modelUrl = (model: string) => `${settings.baseUrl}/v1beta/models/${encodeURIComponent(model)}`;
  const headers = (): Record<
    string,
    string
  > => (settings.apiKey ? { "x-goog-api-key": settings.apiKey } : {});
  return {
    name: settings.name,
    kind: settings.kind,
    async createMessage(call: ProviderCall) {
      const url = `${modelUrl(call.upstreamModel)}:generateContent`;
      const response = await postUpstream(
        deps,
        settings.name,
        url,
        headers(),
        toGeminiRequest(call.request),
        call,
      );
      return messageFromGemini(
        settings.name,
        await readUpstreamJson(settings.name, response),
        call.requestedModel,
      );
    },
    async streamMessage(call: ProviderCall) {
      const url = `${modelUrl(call.upstreamModel)}:streamGenerateContent?alt=sse`;
      const response = await postUpstream(
        deps,
        settings.name,
        url,
        headers(),
        toGeminiRequest(call.request),
        call,
      );
      return translateStream(
        bodyReaderOf(response),
        new GeminiStreamTranslator(settings.name),
        pipeOptions(
          deps,
          call,
          (writer) => writer.start(newMessageId(), call.requestedModel, call.inputTokensEstimate),
        ),
      );
    },
    async countTokens(call: ProviderCall) {
      const url = `${modelUrl(call.upstreamModel)}:countTokens`;
      const { contents, systemInstruction, tools } = toGeminiRequest(call.request);
      const body = {
        generateContentRequest: { model: `models/${call.upstreamModel}`, contents, systemInstruction, tools },
      };
      const json = await readUpstreamJson(
        settings.name,
        await postUpstream(deps, settings.name, url, headers(), body, call),
      );
      return upstreamCount(json.totalTokens, call);
    },
  };
}
