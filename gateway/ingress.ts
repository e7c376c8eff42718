/**
 * The API format a request arrives in, as the messages route sees it: how its body becomes the internal
 * (Anthropic Messages) request, how the answer goes back, and how errors are spelled. The Messages API is the
 * route's own format (no ingress object); the OpenAI formats plug in here (gateway/openai/ingress.ts), so
 * every format runs the one pipeline: keys, limits, routing, fallbacks, deadlines, ledger, spans.
 */
import type { Logger } from "@switchyard/lib/log.ts";
import type { Message, MessagesRequest, Usage } from "./messages/types.ts";
import type { Provider, ProviderCall, RawJson } from "./providers/contract.ts";

/** The ledger's name of each API format. */
export type IngressFormat = "anthropic" | "openai-chat" | "openai-responses";

/** How one request's answer reaches its client. */
export interface IngressAnswer {
  /** One non-streaming attempt (a provider's own call, or a pass-through in the client's format). */
  createMessage(provider: Provider, call: ProviderCall): Promise<Message | RawJson>;
  /** One streaming attempt. */
  streamMessage(provider: Provider, call: ProviderCall): Promise<ReadableStream<Uint8Array>>;
  /** The client's body for a non-streaming answer, and the usage it reports. */
  json(answer: Message | RawJson): { text: string; usage: Usage | undefined };
  /** The client's stream for the route's stream (Anthropic SSE, or pass-through frames). */
  stream(events: ReadableStream<Uint8Array>): ReadableStream<Uint8Array>;
}

/** A request parsed by an ingress. */
export interface IngressRequest {
  /** The internal request. */
  request: MessagesRequest;
  /** Fits a defaulted output limit under the model's known limit (no-op when the client set one). */
  fitMaxTokens(limit: number | undefined): void;
  /** Binds the answer to the route's upstream call (pass-through needs the call's model and abort). */
  answer: IngressAnswer;
}

/** An API format other than the Messages API. */
export interface Ingress {
  /** The format's ledger name. */
  format: IngressFormat;
  /** Validates and translates a body (400 naming the field on any fault). */
  parse(text: string): IngressRequest;
  /** Renders an error in the format's shape. */
  renderError(
    error: unknown,
    requestId: string,
    logger: Logger,
    extraHeaders?: Record<string, string>,
  ): Response;
}
