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
import { parseChatRequest } from "./chat_request.ts";
import { chatCompletionOf, chatCompletionTextOf } from "./chat_response.ts";
import { ChatStreamFormat } from "./chat_stream.ts";
import { clientStream, type ClientStreamFormat } from "./client_stream.ts";
import { renderOpenAiError } from "./errors.ts";
import {
  ClientJson,
  type OpenAiFormat,
  passThroughJson,
  passThroughStream,
  servesNatively,
} from "./pass_through.ts";
import { parseResponsesRequest } from "./responses_request.ts";
import { responseOf } from "./responses_response.ts";
import { ResponsesStreamFormat } from "./responses_stream.ts";

/** What the OpenAI ingresses need: the providers' settings (for pass-through) and their deps. */
export interface OpenAiIngressDeps {
  /** Every configured provider. */
  providers: readonly ProviderSettings[];
  /** The deps the providers were built with (fetch, limits, redaction). */
  providerDeps: ProviderDeps;
}

/** Lowers a defaulted output limit (and a thinking budget under it) to the model's known limit. */
function fitter(request: MessagesRequest, defaulted: boolean): (limit: number | undefined) => void {
  return (limit) => {
    if (!defaulted || limit === undefined || limit >= request.max_tokens) return;
    request.max_tokens = limit;
    const thinking = request.thinking;
    if (thinking?.type === "enabled" && thinking.budget_tokens >= limit) {
      if (limit - 1 >= 1_024) thinking.budget_tokens = limit - 1;
      else delete request.thinking;
    }
  };
}

/** The Message of a translated answer (an Anthropic pass-through provider answers with its JSON text). */
function messageOf(answer: Message | RawJson): Message {
  return answer instanceof RawJson ? JSON.parse(answer.text) as Message : answer;
}

function answerFor(
  deps: OpenAiIngressDeps,
  settingsOf: Map<string, ProviderSettings>,
  format: OpenAiFormat,
  client: Record<string, unknown>,
  render: (message: Message) => Record<string, unknown>,
  streamFormat: () => ClientStreamFormat,
  includeUsage: boolean,
  renderText?: (answer: string) => { text: string; usage: Usage } | undefined,
): IngressAnswer {
  const native = (provider: Provider) => {
    const settings = settingsOf.get(provider.name);
    return settings && servesNatively(settings, format) ? settings : undefined;
  };
  let passedThrough = false;
  return {
    createMessage(provider: Provider, call: ProviderCall) {
      const settings = native(provider);
      return settings
        ? passThroughJson(deps.providerDeps, settings, format, client, call)
        : provider.createMessage(call);
    },
    async streamMessage(provider: Provider, call: ProviderCall) {
      const settings = native(provider);
      if (!settings) {
        const stream = await provider.streamMessage(call);
        passedThrough = false;
        return stream;
      }
      const stream = await passThroughStream(deps.providerDeps, settings, format, client, call, includeUsage);
      passedThrough = true;
      return stream;
    },
    json(answer) {
      if (answer instanceof ClientJson) return { text: answer.text, usage: answer.usage };
      // An Anthropic pass-through's answer of one text block is rendered from its text, unparsed.
      const rendered = renderText && answer instanceof RawJson ? renderText(answer.text) : undefined;
      if (rendered) return rendered;
      const message = messageOf(answer);
      return { text: JSON.stringify(render(message)), usage: message.usage };
    },
    stream(events) {
      return clientStream(events, streamFormat(), () => passedThrough);
    },
  };
}

/** The Chat Completions ingress (`/openai/v1/chat/completions`). */
export function chatIngress(deps: OpenAiIngressDeps): Ingress {
  const settingsOf = new Map(deps.providers.map((p) => [p.name, p]));
  return {
    format: "openai-chat",
    parse(text): IngressRequest {
      const client = parseJsonBody(text);
      const parsed = parseChatRequest(client);
      const model = parsed.request.model;
      return {
        request: parsed.request,
        fitMaxTokens: fitter(parsed.request, parsed.defaultedMaxTokens),
        answer: answerFor(
          deps,
          settingsOf,
          "chat",
          client,
          (message) => chatCompletionOf(message, model),
          () => new ChatStreamFormat(model, parsed.includeUsage),
          parsed.includeUsage,
          (answer) => chatCompletionTextOf(answer, model),
        ),
      };
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
      const client = parseJsonBody(text);
      const parsed = parseResponsesRequest(client);
      const model = parsed.request.model;
      return {
        request: parsed.request,
        fitMaxTokens: fitter(parsed.request, parsed.defaultedMaxTokens),
        answer: answerFor(
          deps,
          settingsOf,
          "responses",
          client,
          (message) => responseOf(message, model, parsed.echo),
          () => new ResponsesStreamFormat(model, parsed.echo),
          true,
        ),
      };
    },
    renderError: renderOpenAiError,
  };
}
