/** Upstream HTTP helpers shared by the provider modules: one place that turns failures into GatewayErrors. */
import { GatewayError, upstreamHttpError } from "../errors.ts";
import type { TranslateStreamOptions } from "../messages/stream_pipe.ts";
import type { AnthropicEventWriter } from "../messages/stream_writer.ts";
import type { ProviderCall, ProviderDeps } from "./contract.ts";
import type { UpstreamResponse } from "../upstream/response.ts";
import { ConnectTimeoutError, tlsRefusal } from "../upstream/http1_client.ts";
import { HeadTooLargeError, MAX_HEAD_BYTES } from "../upstream/http1_wire.ts";
import { guardedResponse, UpstreamWatch } from "../upstream/guard.ts";

/** The stream pipe's options for one call (abort, pings, redaction); `begin` writes `message_start`. */
export function pipeOptions(
  deps: ProviderDeps,
  call: ProviderCall,
  begin: (writer: AnthropicEventWriter) => void,
): TranslateStreamOptions {
  return {
    abort: call.abort,
    pingIntervalMs: deps.pingIntervalMs,
    begin,
    redact: deps.redact,
    report: call.onStreamEnd,
  };
}

/** Headers that carry the request's trace identifiers to upstreams that accept them. */
export function traceHeaders(call: ProviderCall): Record<string, string> {
  const headers: Record<string, string> = { "gw-trace-id": call.trace.traceId };
  if (call.trace.threadId) headers["gw-thread-id"] = call.trace.threadId;
  return headers;
}

/**
 * The error for an upstream that refused the gateway's own credentials (HTTP 401 or 403 from a cloud API
 * whose 403 means a bad signature or a missing permission, never the client's fault): 502 `api_error`
 * naming the provider and the upstream's error code, never the credential.
 */
export function credentialsRefused(provider: string, status: number, code?: string): GatewayError {
  const safeCode = code && /^[\w.:-]{1,80}$/.test(code) ? ` ${code}` : "";
  return new GatewayError(
    "api_error",
    `upstream provider ${provider} refused the gateway's credentials (HTTP ${status}${safeCode})`,
    { status: 502 },
  );
}

/**
 * POSTs JSON upstream; resolves with a 2xx response or throws the mapped GatewayError. A string `body` is
 * already JSON text and is sent as is; anything else is serialized. `refused` may claim a failed response
 * (a cloud provider's credential refusal) before the generic mapping.
 */
export async function postUpstream(
  deps: ProviderDeps,
  provider: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  call: ProviderCall,
  refused?: (response: UpstreamResponse) => GatewayError | undefined,
): Promise<UpstreamResponse> {
  let response: UpstreamResponse;
  const watch = new UpstreamWatch(provider, deps.limits, call.abort);
  try {
    response = await deps.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
      // Aborted when the client goes away (messages_route.ts) or a deadline passes (the watch).
      signal: call.abort.signal,
    });
  } catch (error) {
    watch.stop();
    if (watch.expired) throw watch.expired;
    const connectTimeout = error instanceof ConnectTimeoutError ||
      (error instanceof Error && error.cause instanceof ConnectTimeoutError);
    if (
      error instanceof HeadTooLargeError ||
      (error instanceof Error && error.cause instanceof HeadTooLargeError)
    ) {
      // The gateway refuses the answer; the upstream did answer, so its circuit is not charged.
      throw new GatewayError(
        "api_error",
        `upstream provider ${provider} sent a response head larger than ${MAX_HEAD_BYTES} bytes`,
        { status: 502, cause: error, retryable: !call.abort.signal.aborted },
      );
    }
    const refusedTls = tlsRefusal(error);
    if (refusedTls) {
      // Not the client's fault and not a transient failure of the network: say what was refused (a 502, as
      // for refused credentials); a fallback of another provider may still serve.
      throw new GatewayError(
        "api_error",
        `upstream provider ${provider} could not be reached over TLS: ${refusedTls}`,
        {
          status: 502,
          cause: error,
          detail: error instanceof Error ? error.message : String(error),
          retryable: true,
          upstreamFault: true,
        },
      );
    }
    throw new GatewayError(
      "api_error",
      connectTimeout
        ? `upstream provider ${provider} could not be reached within ${deps.limits.connectTimeoutMs} ms`
        : `upstream provider ${provider} could not be reached`,
      {
        cause: error,
        detail: error instanceof Error ? error.message : String(error),
        retryable: !call.abort.signal.aborted,
        upstreamFault: !call.abort.signal.aborted,
      },
    );
  }
  watch.headersReceived();
  const guarded = guardedResponse(provider, response, deps.limits, watch);
  if (!guarded.ok) {
    const claimed = refused?.(guarded);
    if (claimed) {
      await guarded.text().catch(() => ""); // read so the connection can be reused; never shown
      throw claimed;
    }
    throw await upstreamHttpError(provider, guarded, deps.redact);
  }
  call.onUpstreamResponse?.(guarded);
  return guarded;
}

/** Reads a JSON body of a successful upstream response, mapping garbage to api_error. */
export function readUpstreamJson(
  provider: string,
  response: UpstreamResponse,
): Promise<Record<string, unknown>> {
  try {
    // A body the client already holds is parsed at once: no async layer per answer.
    const text = response.textNow?.();
    if (text !== undefined) return Promise.resolve(parseUpstreamJson(provider, text));
  } catch (error) {
    return Promise.reject(error);
  }
  return readJsonText(provider, response).then((read) => read.value);
}

/** Reads the body text of a successful upstream response, mapping a failed read to api_error. */
export function readUpstreamText(provider: string, response: UpstreamResponse): Promise<string> {
  try {
    const text = response.textNow?.();
    if (text !== undefined) return Promise.resolve(text);
  } catch (error) {
    return Promise.reject(error); // a size limit, reported as such
  }
  return readText(provider, response);
}

async function readText(provider: string, response: UpstreamResponse): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    if (error instanceof GatewayError) throw error; // a deadline or size limit, reported as such
    throw new GatewayError("api_error", `upstream provider ${provider} returned a malformed response`);
  }
}

/** Parses upstream JSON text that must be an object, mapping garbage to api_error. */
export function parseUpstreamJson(provider: string, text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object") return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new GatewayError("api_error", `upstream provider ${provider} returned a malformed response`);
}

/** Like {@link readUpstreamJson}, also returning the body text the value was parsed from. */
export function readUpstreamJsonText(
  provider: string,
  response: UpstreamResponse,
): Promise<{ value: Record<string, unknown>; text: string }> {
  try {
    const text = response.textNow?.();
    if (text !== undefined) return Promise.resolve({ value: parseUpstreamJson(provider, text), text });
  } catch (error) {
    return Promise.reject(error);
  }
  return readJsonText(provider, response);
}

async function readJsonText(
  provider: string,
  response: UpstreamResponse,
): Promise<{ value: Record<string, unknown>; text: string }> {
  try {
    const text = await response.text();
    const value = JSON.parse(text);
    if (value && typeof value === "object") return { value: value as Record<string, unknown>, text };
  } catch (error) {
    if (error instanceof GatewayError) throw error; // a deadline or size limit, reported as such
  }
  throw new GatewayError("api_error", `upstream provider ${provider} returned a malformed response`);
}
