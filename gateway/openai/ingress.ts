/**
 * The two OpenAI ingresses (Chat Completions, Responses) for the messages route: parse the body into the
 * internal request, and per request decide, attempt by attempt, between pass-through (the routed provider
 * speaks the client's format) and translation (any other provider, answering in Anthropic's format, which
 * goes back through chat_response/chat_stream or responses_response/responses_stream).
 */
import type { Ingress, IngressAnswer, IngressRequest } from "../ingress.ts";
import type { Message, MessagesRequest, Usage } from "../messages/types.ts";
import { parseJsonBody } from "../messages/validate.ts";
import {
  type Provider,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
  RawJson,
} from "../providers/contract.ts";
import { type ChatIngress, parseChatRequest } from "./chat_request.ts";
import { chatCompletionOf, chatCompletionTextOf } from "./chat_response.ts";
import { ChatStreamFormat } from "./chat_stream.ts";
import { clientStream, type ClientStreamFormat } from "./client_stream.ts";
import { renderOpenAiError } from "./errors.ts";
import {
  type ClientBody,
  ClientJson,
  type OpenAiFormat,
  passThroughJson,
  passThroughStream,
  servesNatively,
} from "./pass_through.ts";
import { parseResponsesRequest, type ResponsesIngress } from "./responses_request.ts";
import { responseOf, responseTextOf } from "./responses_response.ts";
import { ResponsesStreamFormat } from "./responses_stream.ts";

/** What the OpenAI ingresses need: the providers' settings (for pass-through) and their deps. */
export interface OpenAiIngressDeps {
  /** Every configured provider. */
  providers: readonly ProviderSettings[];
  /** The deps the providers were built with (fetch, limits, redaction). */
  providerDeps: ProviderDeps;
}

/**
 * A parsed OpenAI-format request: the internal request, its answer, and the fitting of a defaulted output
 * limit (and a thinking budget under it) to the model's known limit. A class: its method is shared, where a
 * closure per request cost an allocation and a context.
 */
class ParsedOpenAi implements IngressRequest {
  request: MessagesRequest;
  answer: IngressAnswer;
  #defaulted: boolean;

  constructor(request: MessagesRequest, answer: IngressAnswer, defaulted: boolean) {
    this.request = request;
    this.answer = answer;
    this.#defaulted = defaulted;
  }

  fitMaxTokens(limit: number | undefined): void {
    const request = this.request;
    if (!this.#defaulted || limit === undefined || limit >= request.max_tokens) return;
    request.max_tokens = limit;
    const thinking = request.thinking;
    if (thinking?.type === "enabled" && thinking.budget_tokens >= limit) {
      if (limit - 1 >= 1_024) thinking.budget_tokens = limit - 1;
      else delete request.thinking;
    }
  }
}

/** The Message of a translated answer (an Anthropic pass-through provider answers with its JSON text). */
function messageOf(answer: Message | RawJson): Message {
  return answer instanceof RawJson ? JSON.parse(answer.text) as Message : answer;
}

/**
 * One request's answer, bound to its client body: each attempt passes through (a provider speaking the
 * client's format) or goes to the provider's own call, and the answer is rendered in the client's format.
 * One object per request (the subclasses hold the format's own rendering), no closures.
 */
abstract class OpenAiAnswer implements IngressAnswer {
  #deps: OpenAiIngressDeps;
  #settingsOf: Map<string, ProviderSettings>;
  #format: OpenAiFormat;
  #client: ClientBody;
  #includeUsage: boolean;
  #passedThrough = false;

  constructor(
    deps: OpenAiIngressDeps,
    settingsOf: Map<string, ProviderSettings>,
    format: OpenAiFormat,
    client: ClientBody,
    includeUsage: boolean,
  ) {
    this.#deps = deps;
    this.#settingsOf = settingsOf;
    this.#format = format;
    this.#client = client;
    this.#includeUsage = includeUsage;
  }

  /** The client's answer object for a canonical Message. */
  abstract render(message: Message): Record<string, unknown>;
  /** The client's answer text for an Anthropic answer's JSON text, unparsed (undefined: parse it). */
  renderText(_answer: string): { text: string; usage: Usage } | undefined {
    return undefined;
  }
  /** The stream format for a translated stream. */
  abstract streamFormat(): ClientStreamFormat;

  #native(provider: Provider): ProviderSettings | undefined {
    const settings = this.#settingsOf.get(provider.name);
    return settings && servesNatively(settings, this.#format) ? settings : undefined;
  }

  createMessage(provider: Provider, call: ProviderCall): Promise<Message | RawJson> {
    const settings = this.#native(provider);
    return settings
      ? passThroughJson(this.#deps.providerDeps, settings, this.#format, this.#client, call)
      : provider.createMessage(call);
  }

  async streamMessage(provider: Provider, call: ProviderCall): Promise<ReadableStream<Uint8Array>> {
    const settings = this.#native(provider);
    if (!settings) {
      const stream = await provider.streamMessage(call);
      this.#passedThrough = false;
      return stream;
    }
    const stream = await passThroughStream(
      this.#deps.providerDeps,
      settings,
      this.#format,
      this.#client,
      call,
      this.#includeUsage,
    );
    this.#passedThrough = true;
    return stream;
  }

  json(answer: Message | RawJson): { text: string; usage: Usage | undefined } {
    if (answer instanceof ClientJson) return { text: answer.text, usage: answer.usage };
    // An Anthropic pass-through's answer of one text block is rendered from its text, unparsed.
    const rendered = answer instanceof RawJson ? this.renderText(answer.text) : undefined;
    if (rendered) return rendered;
    const message = messageOf(answer);
    return { text: JSON.stringify(this.render(message)), usage: message.usage };
  }

  stream(events: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    return clientStream(events, this.streamFormat(), () => this.#passedThrough);
  }
}

/** A Chat Completions answer. */
class ChatAnswer extends OpenAiAnswer {
  #model: string;
  #includeUsage: boolean;

  constructor(
    deps: OpenAiIngressDeps,
    settingsOf: Map<string, ProviderSettings>,
    client: ClientBody,
    parsed: ChatIngress,
  ) {
    super(deps, settingsOf, "chat", client, parsed.includeUsage);
    this.#model = parsed.request.model;
    this.#includeUsage = parsed.includeUsage;
  }

  render(message: Message): Record<string, unknown> {
    return chatCompletionOf(message, this.#model);
  }

  override renderText(answer: string): { text: string; usage: Usage } | undefined {
    return chatCompletionTextOf(answer, this.#model);
  }

  streamFormat(): ClientStreamFormat {
    return new ChatStreamFormat(this.#model, this.#includeUsage);
  }
}

/** A Responses answer. */
class ResponsesAnswer extends OpenAiAnswer {
  #model: string;
  #echo: Record<string, unknown>;

  constructor(
    deps: OpenAiIngressDeps,
    settingsOf: Map<string, ProviderSettings>,
    client: ClientBody,
    parsed: ResponsesIngress,
  ) {
    super(deps, settingsOf, "responses", client, true);
    this.#model = parsed.request.model;
    this.#echo = parsed.echo;
  }

  render(message: Message): Record<string, unknown> {
    return responseOf(message, this.#model, this.#echo);
  }

  override renderText(answer: string): { text: string; usage: Usage } | undefined {
    return responseTextOf(answer, this.#model, this.#echo);
  }

  streamFormat(): ClientStreamFormat {
    return new ResponsesStreamFormat(this.#model, this.#echo);
  }
}

/** The Chat Completions ingress (`/openai/v1/chat/completions`). */
export function chatIngress(deps: OpenAiIngressDeps): Ingress {
  const settingsOf = new Map(deps.providers.map((p) => [p.name, p]));
  return {
    format: "openai-chat",
    parse(text): IngressRequest {
      const json = parseJsonBody(text);
      const parsed = parseChatRequest(json);
      const answer = new ChatAnswer(deps, settingsOf, { text, json }, parsed);
      return new ParsedOpenAi(parsed.request, answer, parsed.defaultedMaxTokens);
    },
    renderError: renderOpenAiError,
  };
}

/** The Responses ingress (`/openai/v1/responses`). */
export function responsesIngress(deps: OpenAiIngressDeps): Ingress {
  const settingsOf = new Map(deps.providers.map((p) => [p.name, p]));
  return {
    format: "openai-responses",
    parse(text): IngressRequest {
      const json = parseJsonBody(text);
      const parsed = parseResponsesRequest(json);
      const answer = new ResponsesAnswer(deps, settingsOf, { text, json }, parsed);
      return new ParsedOpenAi(parsed.request, answer, parsed.defaultedMaxTokens);
    },
    renderError: renderOpenAiError,
  };
}
