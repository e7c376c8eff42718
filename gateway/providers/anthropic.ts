/**
 * The `anthropic` provider: native pass-through. The body is forwarded with only `model` rewritten; the
 * stream is relayed event by event with only `message_start` re-stamped with the requested model name, and
 * a stream cut before `message_stop` still ends in `event: error`.
 */
import type { SseEvent } from "@switchyard/lib/sse.ts";
import { type AnthropicErrorType, STATUS_OF_ERROR_TYPE } from "../errors.ts";
import type { StreamTranslator } from "../messages/stream_pipe.ts";
import { translateStream } from "../messages/stream_pipe.ts";
import type { AnthropicEventWriter } from "../messages/stream_writer.ts";
import type { Message } from "../messages/types.ts";
import {
  type Provider,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
  RawJson,
  upstreamCount,
} from "./contract.ts";
import { bodyReaderOf } from "../upstream/response.ts";
import {
  parseUpstreamJson,
  pipeOptions,
  postUpstream,
  readUpstreamJson,
  readUpstreamText,
  traceHeaders,
} from "./http.ts";
import { topLevelString } from "./json_peek.ts";
import { withoutForeignThinking } from "./signatures.ts";

const DEFAULT_VERSION = "2023-06-01";

/**
 * The body to send upstream: the client's own bytes when nothing must change (same model name, no foreign
 * thinking blocks, the same `stream` mode — an absent `stream` means false to Anthropic too), otherwise
 * the request re-serialized with the upstream model and an explicit `stream`.
 */
function upstreamBody(call: ProviderCall, stream: boolean): string | Record<string, unknown> {
  const request = withoutForeignThinking(call.request);
  if (
    call.rawBody !== undefined && request === call.request && call.upstreamModel === request.model &&
    (stream ? request.stream === true : request.stream !== true)
  ) return call.rawBody;
  return { ...request, model: call.upstreamModel, stream };
}

/** Relays a native Anthropic stream (re-stamping the model, mapping errors); Bedrock and Vertex reuse it. */
export class AnthropicRelay implements StreamTranslator {
  #model: string;
  #provider: string;

  /** `provider` names the upstream in errors; `model` is the name echoed to the client. */
  constructor(provider: string, model: string) {
    this.#provider = provider;
    this.#model = model;
  }

  /** Relays one event. */
  onEvent(event: SseEvent, writer: AnthropicEventWriter): void {
    const name = event.event ?? "message";
    if (name === "message_start") {
      const data = JSON.parse(event.data);
      if (data?.message) data.message.model = this.#model;
      writer.noteUsage(data?.message?.usage);
      writer.relay(name, JSON.stringify(data));
    } else if (name === "error") {
      // Never relayed verbatim: the upstream's message may quote a credential (the writer redacts it).
      const error = (JSON.parse(event.data) as { error?: { type?: unknown; message?: unknown } }).error;
      const type = typeof error?.type === "string" && error.type in STATUS_OF_ERROR_TYPE
        ? error.type as AnthropicErrorType
        : "api_error";
      const message = typeof error?.message === "string" ? error.message.slice(0, 500) : "unknown error";
      writer.error(type, `upstream provider ${this.#provider} failed: ${message}`);
    } else if (name === "message_delta") {
      // Its usage is cumulative and final: what the key is charged for.
      writer.noteUsage((JSON.parse(event.data) as { usage?: unknown })?.usage, true);
      writer.relay(name, event.data);
    } else if (name === "message_stop") {
      writer.relay(name, event.data, true);
    } else if (name !== "message") {
      writer.relay(name, event.data);
    }
  }

  /** A stream without `message_stop` is an error. */
  onEnd(writer: AnthropicEventWriter): void {
    if (!writer.ended) {
      writer.error(
        "api_error",
        `upstream provider ${this.#provider} ended the stream before it was complete`,
      );
    }
  }
}

/** Creates the native Anthropic provider. */
export function createAnthropicProvider(settings: ProviderSettings, deps: ProviderDeps): Provider {
  const headers = (call: ProviderCall): Record<string, string> => {
    const h = traceHeaders(call);
    if (settings.apiKey) h["x-api-key"] = settings.apiKey;
    h["anthropic-version"] = call.clientHeaders.get("anthropic-version") ?? DEFAULT_VERSION;
    const beta = call.clientHeaders.get("anthropic-beta");
    if (beta) h["anthropic-beta"] = beta;
    return h;
  };
  const post = (call: ProviderCall, path: string, body: string | Record<string, unknown>) =>
    postUpstream(deps, settings.name, `${settings.baseUrl}${path}`, headers(call), body, call);
  return {
    name: settings.name,
    kind: settings.kind,
    async createMessage(call) {
      const response = await post(call, "/v1/messages", upstreamBody(call, false));
      const text = await readUpstreamText(settings.name, response);
      // The upstream's answer already names the requested model: return its bytes, not a re-serialization
      // (found by a structural scan, not a parse of the whole answer).
      if (topLevelString(text, "model") === call.requestedModel) return new RawJson(text);
      const value = parseUpstreamJson(settings.name, text);
      value.model = call.requestedModel;
      return value as unknown as Message;
    },
    async streamMessage(call) {
      const response = await post(call, "/v1/messages", upstreamBody(call, true));
      return translateStream(
        bodyReaderOf(response),
        new AnthropicRelay(settings.name, call.requestedModel),
        pipeOptions(deps, call, () => {}),
      );
    },
    async countTokens(call) {
      const { messages, system, tools, tool_choice, thinking } = withoutForeignThinking(call.request);
      const body = { model: call.upstreamModel, messages, system, tools, tool_choice, thinking };
      const json = await readUpstreamJson(settings.name, await post(call, "/v1/messages/count_tokens", body));
      return upstreamCount(json.input_tokens, call);
    },
  };
}
