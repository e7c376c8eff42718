/**
 * Pass-through: an OpenAI-format request whose route lands on a provider speaking that same format
 * (Chat Completions on `openai` / `openai-compatible`, Responses on `openai-responses`) goes upstream as the
 * client sent it — only `model` changes (and, for Chat, what the provider's quirks require; for Responses,
 * `store: false`) — and the upstream's answer comes back untranslated. It still runs inside the route's
 * attempts, so keys, limits, fallbacks, deadlines, size caps and the ledger apply; usage is read from the
 * answer (a stream's usage chunk or `response.completed`) without re-encoding the frames.
 */
import { createSseDecoder, type SseEvent } from "@switchyard/lib/sse.ts";
import type { StreamOutcome } from "../messages/stream_pipe.ts";
import { GatewayError } from "../errors.ts";
import type { Usage } from "../messages/types.ts";
import {
  type OptionalChatParam,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
  RawJson,
} from "../providers/contract.ts";
import { bodyReaderOf } from "../upstream/response.ts";
import { parseUpstreamJson, postUpstream, readUpstreamText, traceHeaders } from "../providers/http.ts";
import { topLevelSpans } from "../providers/json_peek.ts";
import { credentialHeader, refuseUnsupported } from "../providers/openai.ts";
import { usageFromOpenAi } from "../providers/openai_response.ts";
import { usageFromResponses } from "../providers/openai_responses_response.ts";
import { openAiError } from "./errors.ts";
import { isObject } from "./common.ts";

/** The two OpenAI formats. */
export type OpenAiFormat = "chat" | "responses";

/** A pass-through answer: the upstream's JSON text, and the usage read from it. */
export class ClientJson extends RawJson {
  /** Its usage, in the gateway's accounting. */
  readonly usage: Usage | undefined;

  /** Wraps an upstream body (already in the client's format, not a Message). */
  constructor(text: string, usage: Usage | undefined) {
    super(text);
    this.usage = usage;
  }
}

const encoder = new TextEncoder();

/** True when `settings` serves `format` natively. */
export function servesNatively(settings: ProviderSettings, format: OpenAiFormat): boolean {
  return format === "chat"
    ? settings.kind === "openai" || settings.kind === "openai-compatible"
    : settings.kind === "openai-responses";
}

/** A client's request as it came: its JSON text and the value parsed from it. */
export interface ClientBody {
  /** The body's text. */
  text: string;
  /** The parsed body. */
  json: Record<string, unknown>;
}

/**
 * The client's own text when the upstream body would differ from it in `model` alone, with the routed model
 * spliced into its span (the bytes of every other field unchanged, as the Anthropic pass-through forwards
 * them): no copy of the parsed body, no re-serialization. Undefined when anything else must change (a
 * quirk drops or renames a field, a stream's usage option is adjusted, Responses' `store` is not already
 * false) or the structural scan is unsure of the text.
 */
export function splicedBody(
  settings: ProviderSettings,
  format: OpenAiFormat,
  client: ClientBody,
  upstreamModel: string,
): string | undefined {
  const json = client.json;
  if (format === "responses") {
    if (json.store !== false) return undefined;
  } else {
    const { quirks } = settings;
    for (const param in quirks.unsupportedParams) {
      if (quirks.unsupportedParams[param as OptionalChatParam] === "drop" && param in json) return undefined;
    }
    const field = quirks.maxTokensField;
    const other = field === "max_tokens" ? "max_completion_tokens" : "max_tokens";
    if (other in json || json[field] === null) return undefined;
    if (json.stream === true) {
      const options = json.stream_options;
      const usage = isObject(options) && options.include_usage === true;
      if (quirks.streamOptions ? !usage : options !== undefined) return undefined;
    }
  }
  if (json.model === upstreamModel) return client.text;
  const span = topLevelSpans(client.text, MODEL)?.[0];
  if (!span) return undefined;
  return client.text.slice(0, span[0]) + JSON.stringify(upstreamModel) + client.text.slice(span[1]);
}

const MODEL = ["model"];

/** The upstream body rebuilt from the parsed client body: for the routed model, adjusted to the provider. */
export function rebuiltBody(
  settings: ProviderSettings,
  format: OpenAiFormat,
  json: Record<string, unknown>,
  upstreamModel: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...json, model: upstreamModel };
  if (format === "responses") {
    body.store = false;
    return body;
  }
  const { quirks } = settings;
  for (const [param, action] of Object.entries(quirks.unsupportedParams)) {
    if (action === "drop") delete body[param];
  }
  const max = body.max_completion_tokens ?? body.max_tokens;
  delete body.max_completion_tokens;
  delete body.max_tokens;
  if (max !== undefined) body[quirks.maxTokensField] = max;
  if (body.stream === true) {
    if (quirks.streamOptions) {
      body.stream_options = { ...(body.stream_options as object), include_usage: true };
    } else delete body.stream_options;
  }
  return body;
}

/** The upstream body: the client's bytes with the model spliced in when that is all, else rebuilt. */
function upstreamBody(
  settings: ProviderSettings,
  format: OpenAiFormat,
  client: ClientBody,
  call: ProviderCall,
): string | Record<string, unknown> {
  if (format === "chat") refuseUnsupported(settings, call.request);
  return splicedBody(settings, format, client, call.upstreamModel) ??
    rebuiltBody(settings, format, client.json, call.upstreamModel);
}

function headersFor(settings: ProviderSettings, call: ProviderCall): Record<string, string> {
  const headers = traceHeaders(call);
  const credential = credentialHeader(settings);
  if (credential) headers[credential[0]] = credential[1];
  if (settings.kind !== "openai-compatible") headers["x-client-request-id"] = call.trace.traceId;
  return headers;
}

function urlOf(settings: ProviderSettings, format: OpenAiFormat): string {
  return `${settings.baseUrl}/${format === "chat" ? "chat/completions" : "responses"}`;
}

/**
 * The `usage` of a pass-through answer, read from its span without parsing the answer (its text goes to the
 * client as it is); an answer the structural scan is unsure of is parsed, so a malformed one is still the
 * same `api_error`.
 */
export function usageOfAnswer(provider: string, text: string): unknown {
  const spans = topLevelSpans(text, USAGE);
  if (!spans) return parseUpstreamJson(provider, text).usage;
  const span = spans[0];
  if (!span) return undefined;
  try {
    return JSON.parse(text.slice(span[0], span[1]));
  } catch {
    return parseUpstreamJson(provider, text).usage; // throws the malformed-answer error
  }
}

const USAGE = ["usage"];

/** Calls the upstream without streaming; the answer is its JSON text. */
export async function passThroughJson(
  deps: ProviderDeps,
  settings: ProviderSettings,
  format: OpenAiFormat,
  client: ClientBody,
  call: ProviderCall,
): Promise<ClientJson> {
  const body = upstreamBody(settings, format, client, call);
  const response = await postUpstream(
    deps,
    settings.name,
    urlOf(settings, format),
    headersFor(settings, call),
    body,
    call,
  );
  const text = await readUpstreamText(settings.name, response);
  const reported = usageOfAnswer(settings.name, text);
  const usage = reported && typeof reported === "object"
    ? format === "chat" ? usageFromOpenAi(reported) : usageFromResponses(reported)
    : undefined;
  return new ClientJson(text, usage);
}

/** The final frame of a failed pass-through stream, in the client's format. */
function errorFrame(format: OpenAiFormat, error: unknown): string {
  const e = error instanceof GatewayError
    ? error
    : new GatewayError("api_error", "the upstream connection failed");
  const body = openAiError(e.type, e.message);
  return format === "chat"
    ? `data: ${JSON.stringify({ error: body })}\n\n`
    : `event: response.failed\ndata: ${
      JSON.stringify({
        type: "response.failed",
        response: { status: "failed", error: { code: body.code ?? body.type, message: e.message } },
      })
    }\n\n`;
}

/** Relays one pass-through stream's events, noting its usage and how it ended. */
class PassThroughRelay {
  /** Frames ready for the client. */
  out = "";
  /** The final event came (or the stream failed). */
  done = false;
  /** Set when it ended in a failure. */
  failed = false;
  /** The error type of a failure. */
  errorType = "api_error";
  /** The usage the stream reported. */
  usage: Usage | undefined;
  #format: OpenAiFormat;
  #includeUsage: boolean;
  #redact: (text: string) => string;

  constructor(format: OpenAiFormat, includeUsage: boolean, redact: (text: string) => string) {
    this.#format = format;
    this.#includeUsage = includeUsage;
    this.#redact = redact;
  }

  /** Handles one upstream event. */
  event(event: SseEvent): void {
    if (this.done) return;
    if (this.#format === "chat") return this.#chat(event.data);
    const type = event.event ?? "";
    if (type === "response.completed" || type === "response.incomplete" || type === "response.failed") {
      this.done = true;
      this.failed = type === "response.failed";
      this.usage = usageFromResponses(JSON.parse(event.data).response?.usage);
    } else if (type === "error") this.end();
    // An upstream's error text may quote what it was sent: cleaned like every relayed error.
    this.out += `event: ${type}\ndata: ${this.failed ? this.#redact(event.data) : event.data}\n\n`;
  }

  #chat(data: string): void {
    if (data === "[DONE]") this.done = true;
    else if (data.startsWith('{"error"')) {
      this.end();
      this.out += `data: ${this.#redact(data)}\n\n`;
      return;
    } else if (data.includes('"usage":{')) {
      const chunk = JSON.parse(data);
      if (chunk.usage) this.usage = usageFromOpenAi(chunk.usage);
      // The usage chunk the gateway asked for on its own behalf (for the ledger) is not the client's.
      if (!this.#includeUsage && Array.isArray(chunk.choices) && chunk.choices.length === 0) return;
    }
    this.out += `data: ${data}\n\n`;
  }

  /** Ends the stream as failed, with `error`'s frame when given. */
  end(error?: GatewayError): void {
    this.done = true;
    this.failed = true;
    if (error) {
      this.errorType = error.type;
      this.out += errorFrame(this.#format, error);
    }
  }
}

/**
 * Calls the upstream with streaming; the answer is its SSE frames, relayed as whole frames per chunk.
 * `includeUsage` false drops the Chat usage chunk the gateway asked for on its own behalf.
 */
export async function passThroughStream(
  deps: ProviderDeps,
  settings: ProviderSettings,
  format: OpenAiFormat,
  client: ClientBody,
  call: ProviderCall,
  includeUsage: boolean,
): Promise<ReadableStream<Uint8Array>> {
  const body = upstreamBody(settings, format, client, call);
  const url = urlOf(settings, format);
  const response = await postUpstream(deps, settings.name, url, headersFor(settings, call), body, call);
  const reader = bodyReaderOf(response);
  const relay = new PassThroughRelay(format, includeUsage, deps.redact);
  const sse = createSseDecoder((event) => relay.event(event));
  const report = (outcome: StreamOutcome["outcome"], errorType?: string) =>
    call.onStreamEnd?.({ outcome, usage: relay.usage, ...(errorType ? { errorType } : {}) });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (!relay.done) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            sse.end();
            if (!relay.done) relay.end(new GatewayError("api_error", "the upstream stream ended early"));
          } else sse.feed(chunk.value);
        } catch (error) {
          // A deadline or size cap (a GatewayError), a broken connection, or a malformed event.
          relay.end(
            error instanceof GatewayError ? error : new GatewayError("api_error", "the upstream failed"),
          );
        }
        if (relay.out) {
          controller.enqueue(encoder.encode(relay.out));
          relay.out = "";
          if (!relay.done) return;
        }
      }
      reader.cancel().catch(() => {}); // the final event came: the rest of the body is not needed
      controller.close();
      report(relay.failed ? "upstream_error" : "completed", relay.failed ? relay.errorType : undefined);
    },
    cancel() {
      reader.cancel().catch(() => {});
      call.abort.abort();
      report("client_disconnected");
    },
  });
}
