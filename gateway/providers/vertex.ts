/**
 * The `vertex` provider (Google Vertex AI): Claude models (`claude-*`) through the Anthropic publisher's
 * `rawPredict` / `streamRawPredict` with the native body (`anthropic_version: vertex-2023-10-16`, the model
 * in the URL, not the body); every other model through the Google publisher's `generateContent` /
 * `streamGenerateContent`, translated by the Gemini lane (gemini_request.ts, gemini_response.ts). Requests
 * carry an OAuth bearer token from vertex_auth.ts. Paths are
 * `/v1/projects/PROJECT/locations/REGION/publishers/PUBLISHER/models/MODEL:METHOD` under the regional host,
 * or `aiplatform.googleapis.com` for the `global` location (config/cloud.ts chooses the host).
 */
import { translateStream } from "../messages/stream_pipe.ts";
import { type Message, newMessageId } from "../messages/types.ts";
import { AnthropicRelay } from "./anthropic.ts";
import { cloudAnthropicBody, countTokensFields } from "./anthropic_cloud.ts";
import {
  type Provider,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
  upstreamCount,
} from "./contract.ts";
import { bodyReaderOf, type UpstreamResponse } from "../upstream/response.ts";
import { toGeminiRequest } from "./gemini_request.ts";
import { GeminiStreamTranslator, messageFromGemini } from "./gemini_response.ts";
import {
  credentialsRefused,
  parseUpstreamJson,
  pipeOptions,
  postUpstream,
  readUpstreamJson,
  readUpstreamText,
} from "./http.ts";
import { createAccessTokenSource } from "./vertex_auth.ts";

/** The `anthropic_version` Vertex's rawPredict requires. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** Encodes a model name as a path segment; `@` (Claude versions: `claude-sonnet-4@20250514`) stays as is. */
function modelSegment(model: string): string {
  return encodeURIComponent(model).replaceAll("%40", "@");
}

/** Creates the Vertex AI provider. */
export function createVertexProvider(settings: ProviderSettings, deps: ProviderDeps): Provider {
  const vertex = settings.vertex;
  if (!vertex) throw new TypeError(`provider ${settings.name} has no Vertex settings`);
  const tokens = createAccessTokenSource(settings.name, vertex.auth, { fetch: deps.fetch });
  const base = `${settings.baseUrl}/v1/projects/${
    encodeURIComponent(vertex.project)
  }/locations/${vertex.region}`;
  const isClaude = (model: string) => model.startsWith("claude-");
  const refused = (response: UpstreamResponse) => {
    if (response.status !== 401 && response.status !== 403) return undefined;
    if (response.status === 401) tokens.invalidate();
    return credentialsRefused(settings.name, response.status);
  };
  const post = async (call: ProviderCall, url: string, body: unknown): Promise<UpstreamResponse> => {
    const headers = { authorization: `Bearer ${await tokens.token()}` };
    return postUpstream(deps, settings.name, url, headers, body, call, refused);
  };
  const anthropicUrl = (model: string, method: string) =>
    `${base}/publishers/anthropic/models/${modelSegment(model)}:${method}`;
  const googleUrl = (model: string, method: string) =>
    `${base}/publishers/google/models/${modelSegment(model)}:${method}`;
  return {
    name: settings.name,
    kind: settings.kind,
    async createMessage(call) {
      if (isClaude(call.upstreamModel)) {
        const body = cloudAnthropicBody(call, VERTEX_ANTHROPIC_VERSION, false);
        const response = await post(call, anthropicUrl(call.upstreamModel, "rawPredict"), body);
        const value = parseUpstreamJson(settings.name, await readUpstreamText(settings.name, response));
        value.model = call.requestedModel;
        return value as unknown as Message;
      }
      const response = await post(
        call,
        googleUrl(call.upstreamModel, "generateContent"),
        toGeminiRequest(call.request),
      );
      return messageFromGemini(
        settings.name,
        await readUpstreamJson(settings.name, response),
        call.requestedModel,
      );
    },
    async streamMessage(call) {
      if (isClaude(call.upstreamModel)) {
        const body = cloudAnthropicBody(call, VERTEX_ANTHROPIC_VERSION, true);
        const response = await post(call, anthropicUrl(call.upstreamModel, "streamRawPredict"), body);
        return translateStream(
          bodyReaderOf(response),
          new AnthropicRelay(settings.name, call.requestedModel),
          pipeOptions(deps, call, () => {}),
        );
      }
      const url = `${googleUrl(call.upstreamModel, "streamGenerateContent")}?alt=sse`;
      const response = await post(call, url, toGeminiRequest(call.request));
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
    async countTokens(call) {
      if (isClaude(call.upstreamModel)) {
        // One fixed endpoint counts for every Claude model; the model goes in the body here.
        const body = { model: call.upstreamModel, ...countTokensFields(call) };
        const json = await readUpstreamJson(
          settings.name,
          await post(call, anthropicUrl("count-tokens", "rawPredict"), body),
        );
        return upstreamCount(json.input_tokens, call);
      }
      const { contents, systemInstruction, tools } = toGeminiRequest(call.request);
      const url = googleUrl(call.upstreamModel, "countTokens");
      const json = await readUpstreamJson(
        settings.name,
        await post(call, url, { contents, systemInstruction, tools }),
      );
      return upstreamCount(json.totalTokens, call);
    },
  };
}
