/**
 * Pass-through: an OpenAI-format request whose route lands on a provider speaking that same format
 * (Chat Completions on `openai` / `openai-compatible`, Responses on `openai-responses`) goes upstream as the
 * client sent it — only `model` changes (and, for Chat, what the provider's quirks require; for Responses,
 * `store: false`) — and the upstream's answer comes back untranslated. It still runs inside the route's
 * attempts, so keys, limits, fallbacks, deadlines, size caps and the ledger apply; usage is read from the
 * answer (a stream's usage chunk or `response.completed`) without re-encoding the frames.
 */
import { createSseDecoder } from "@switchyard/lib/sse.ts";
import { GatewayError } from "../errors.ts";
import type { Usage } from "../messages/types.ts";
import {
  bodyReaderOf,
  type ProviderCall,
  type ProviderDeps,
  type ProviderSettings,
  RawJson,
} from "../providers/contract.ts";
import { postUpstream, readUpstreamJsonText, traceHeaders } from "../providers/http.ts";
import { credentialHeader, refuseUnsupported } from "../providers/openai.ts";
import { usageFromOpenAi } from "../providers/openai_response.ts";
import { usageFromResponses } from "../providers/openai_responses_response.ts";
import { openAiError } from "./errors.ts";

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

/** The upstream body: the client's, for the routed model, adjusted to what the provider accepts. */
function upstreamBody(
  settings: ProviderSettings,
  format: OpenAiFormat,
  client: Record<string, unknown>,
  call: ProviderCall,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...client, model: call.upstreamModel };
  if (format === "responses") {
    body.store = false;
    return body;
  }
  refuseUnsupported(settings, call.request);
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

/** Calls the upstream without streaming; the answer is its JSON text. */
export async function passThroughJson(
  deps: ProviderDeps,
  settings: ProviderSettings,
  format: OpenAiFormat,
  client: Record<string, unknown>,
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
  const { value, text } = await readUpstreamJsonText(settings.name, response);
  const usage = value.usage && typeof value.usage === "object"
    ? format === "chat" ? usageFromOpenAi(value.usage) : usageFromResponses(value.usage)
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

/**
 * Calls the upstream with streaming; the answer is its SSE frames. `includeUsage` false drops the Chat
 * usage chunk the gateway asked for on its own behalf (the ledger needs it; the client did not ask).
 */
export async function passThroughStream(
  deps: ProviderDeps,
  settings: ProviderSettings,
  format: OpenAiFormat,
  client: Record<string, unknown>,
  call: ProviderCall,
  includeUsage: boolean,
): Promise<ReadableStream<Uint8Array>> {
  const body = upstreamBody(settings, format, client, call);
  const response = await postUpstream(
    deps,
    settings.name,
    urlOf(settings, format),
    headersFor(settings, call),
    body,
    call,
  );
  const reader = bodyReaderOf(response);
  let usage: Usage | undefined;
  let out = "";
  let done = false;
  let failed: string | undefined;
  const sse = createSseDecoder((event) => {
    if (done) return;
    const data = event.data;
    if (format === "chat") {
      if (data === "[DONE]") done = true;
      else if (data.includes('"usage":{')) {
        const chunk = JSON.parse(data);
        if (chunk.usage) usage = usageFromOpenAi(chunk.usage);
        if (!includeUsage && Array.isArray(chunk.choices) && chunk.choices.length === 0) return;
      } else if (data.startsWith('{"error"')) {
        done = true;
        failed = "api_error";
        // An upstream's error text may quote what it was sent: cleaned like every relayed error.
        out += `data: ${deps.redact(data)}\n\n`;
        return;
      }
      out += `data: ${data}\n\n`;
      return;
    }
    const type = event.event ?? "";
    if (type === "response.completed" || type === "response.incomplete" || type === "response.failed") {
      done = true;
      if (type === "response.failed") failed = "api_error";
      usage = usageFromResponses(JSON.parse(data).response?.usage);
    } else if (type === "error") {
      done = true;
      failed = "api_error";
    }
    out += `event: ${type}\ndata: ${failed ? deps.redact(data) : data}\n\n`;
  });
  const report = (outcome: "completed" | "upstream_error" | "client_disconnected", errorType?: string) =>
    call.onStreamEnd?.({ outcome, usage, ...(errorType ? { errorType } : {}) });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (!done) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          controller.enqueue(encoder.encode(out + errorFrame(format, error)));
          controller.close();
          return report("upstream_error", error instanceof GatewayError ? error.type : "api_error");
        }
        if (chunk.done) {
          sse.end();
          if (!done) {
            out += errorFrame(
              format,
              new GatewayError("api_error", "the upstream stream ended before the answer was complete"),
            );
            failed = "api_error";
            done = true;
          }
        } else {
          try {
            sse.feed(chunk.value);
          } catch {
            out += errorFrame(format, new GatewayError("api_error", "the upstream sent a malformed event"));
            failed = "api_error";
            done = true;
          }
        }
        if (out) {
          controller.enqueue(encoder.encode(out));
          out = "";
          if (!done) return;
        }
      }
      reader.cancel().catch(() => {}); // the final event came: the rest of the body is not needed
      controller.close();
      report(failed ? "upstream_error" : "completed", failed);
    },
    cancel() {
      reader.cancel().catch(() => {});
      call.abort.abort();
      report("client_disconnected");
    },
  });
}
