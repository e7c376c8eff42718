/**
 * The `bedrock` provider (Amazon Bedrock Runtime): Anthropic models through InvokeModel /
 * InvokeModelWithResponseStream with the native body (`anthropic_version: bedrock-2023-05-31`), other
 * models through Converse / ConverseStream (bedrock_converse_*.ts); streams arrive in AWS's binary
 * event-stream framing (aws_event_stream.ts) and go through the one stream pipeline. Every request is
 * SigV4-signed (bedrock_signing.ts); the model id or ARN travels URL-encoded in the path.
 */
import { invalidRequest } from "../errors.ts";
import { translateStream } from "../messages/stream_pipe.ts";
import { type Message, newMessageId } from "../messages/types.ts";
import { cloudAnthropicBody, countTokensFields } from "./anthropic_cloud.ts";
import { eventStreamSseDecoder } from "./aws_event_stream.ts";
import { bedrockRefusal } from "./bedrock_errors.ts";
import { type BedrockModel, bedrockModelFor } from "./bedrock_model.ts";
import { messageFromConverse } from "./bedrock_converse_response.ts";
import { ConverseStreamTranslator } from "./bedrock_converse_response.ts";
import { cachePointsOf, toConverseRequest } from "./bedrock_converse_request.ts";
import { InvokeStreamTranslator } from "./bedrock_invoke_stream.ts";
import { signBedrockRequest } from "./bedrock_signing.ts";
import {
  type Provider,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
  upstreamCount,
} from "./contract.ts";
import { bodyReaderOf, type UpstreamResponse } from "../upstream/response.ts";
import { parseUpstreamJson, pipeOptions, postUpstream, readUpstreamJson, readUpstreamText } from "./http.ts";

/** The `anthropic_version` Bedrock's InvokeModel requires. */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

const EVENT_STREAM = "application/vnd.amazon.eventstream";

/** Creates the Bedrock provider. */
export function createBedrockProvider(settings: ProviderSettings, deps: ProviderDeps): Provider {
  const bedrock = settings.bedrock;
  if (!bedrock) throw new TypeError(`provider ${settings.name} has no Bedrock settings`);
  const modelOf = (call: ProviderCall): BedrockModel => {
    const model = bedrockModelFor(call.upstreamModel, bedrock.region);
    if (typeof model === "string") throw invalidRequest(`model: ${model}`);
    return model;
  };
  const post = async (
    call: ProviderCall,
    model: BedrockModel,
    action: string,
    body: unknown,
    accept = "application/json",
  ): Promise<UpstreamResponse> => {
    const url = `${settings.baseUrl}/model/${model.pathSegment}/${action}`;
    const text = JSON.stringify(body);
    const headers = await signBedrockRequest(bedrock.credentials, bedrock.region, url, text, accept);
    return postUpstream(deps, settings.name, url, headers, text, call, bedrockRefusal(settings.name));
  };
  const stream = (
    call: ProviderCall,
    response: UpstreamResponse,
    translator: InvokeStreamTranslator | ConverseStreamTranslator,
    start: boolean,
  ) =>
    translateStream(bodyReaderOf(response), translator, {
      ...pipeOptions(
        deps,
        call,
        start
          ? (writer) => writer.start(newMessageId(), call.requestedModel, call.inputTokensEstimate)
          : () => {},
      ),
      decoder: eventStreamSseDecoder,
    });
  return {
    name: settings.name,
    kind: settings.kind,
    async createMessage(call) {
      const model = modelOf(call);
      if (model.api === "converse") {
        const response = await post(
          call,
          model,
          "converse",
          toConverseRequest(call.request, cachePointsOf(call.upstreamModel)),
        );
        return messageFromConverse(await readUpstreamJson(settings.name, response), call.requestedModel);
      }
      const response = await post(call, model, "invoke", cloudAnthropicBody(call, BEDROCK_ANTHROPIC_VERSION));
      const value = parseUpstreamJson(settings.name, await readUpstreamText(settings.name, response));
      value.model = call.requestedModel;
      return value as unknown as Message;
    },
    async streamMessage(call) {
      const model = modelOf(call);
      if (model.api === "converse") {
        const response = await post(
          call,
          model,
          "converse-stream",
          toConverseRequest(call.request, cachePointsOf(call.upstreamModel)),
          EVENT_STREAM,
        );
        return stream(call, response, new ConverseStreamTranslator(settings.name), true);
      }
      const body = cloudAnthropicBody(call, BEDROCK_ANTHROPIC_VERSION);
      const response = await post(call, model, "invoke-with-response-stream", body, EVENT_STREAM);
      return stream(call, response, new InvokeStreamTranslator(settings.name, call.requestedModel), false);
    },
    async countTokens(call) {
      const model = modelOf(call);
      // CountTokens takes the body its model's own API would get, so both count the same tokens.
      const input = model.api === "invoke"
        ? {
          invokeModel: {
            body: JSON.stringify({
              anthropic_version: BEDROCK_ANTHROPIC_VERSION,
              max_tokens: call.request.max_tokens ?? 1,
              ...countTokensFields(call),
            }),
          },
        }
        : { converse: pickConverseCount(toConverseRequest({ ...call.request, max_tokens: 1 })) };
      const json = await readUpstreamJson(settings.name, await post(call, model, "count-tokens", { input }));
      return upstreamCount(json.inputTokens, call);
    },
  };
}

function pickConverseCount(request: Record<string, unknown>): Record<string, unknown> {
  const { messages, system, toolConfig } = request;
  return { messages, system, toolConfig };
}
