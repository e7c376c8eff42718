/**
 * Errors in OpenAI's shape for the OpenAI-format endpoints: `{"error": {message, type, param, code}}` with
 * the status the gateway's error table gives. The gateway's own error types stay the source of truth
 * (errors.ts); this module only re-spells them the way OpenAI SDKs read them.
 */
import { isAppError } from "@switchyard/lib/errors.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import { type AnthropicErrorType, GatewayError, retryAfterHeader } from "../errors.ts";

/** OpenAI's `error.type` and `error.code` for each gateway error type. */
const OPENAI_ERROR_OF: Readonly<Record<AnthropicErrorType, { type: string; code: string | null }>> = {
  invalid_request_error: { type: "invalid_request_error", code: null },
  authentication_error: { type: "invalid_request_error", code: "invalid_api_key" },
  billing_error: { type: "insufficient_quota", code: "insufficient_quota" },
  permission_error: { type: "invalid_request_error", code: "permission_denied" },
  not_found_error: { type: "invalid_request_error", code: "model_not_found" },
  timeout_error: { type: "server_error", code: "timeout" },
  conflict_error: { type: "invalid_request_error", code: "conflict" },
  request_too_large: { type: "invalid_request_error", code: "request_too_large" },
  rate_limit_error: { type: "rate_limit_exceeded", code: "rate_limit_exceeded" },
  api_error: { type: "server_error", code: null },
  overloaded_error: { type: "server_error", code: "overloaded" },
};

/** The parameter a validation message names (`messages.2.content: ...` → `messages[2].content`). */
export function paramOf(message: string): string | null {
  const match = /^([A-Za-z_][\w.]*):/.exec(message);
  if (!match) return null;
  return match[1].replace(/\.(\d+)(?=\.|$)/g, "[$1]");
}

/** The OpenAI error object for a gateway error type and message. */
export function openAiError(type: AnthropicErrorType, message: string): Record<string, unknown> {
  const mapped = OPENAI_ERROR_OF[type] ?? OPENAI_ERROR_OF.api_error;
  return {
    message,
    type: mapped.type,
    param: type === "invalid_request_error" ? paramOf(message) : null,
    code: mapped.code,
  };
}

/**
 * Renders any thrown value as an OpenAI error response (the same statuses, headers and logging as the
 * Anthropic envelope of request_context.ts's renderError).
 */
export function renderOpenAiError(
  error: unknown,
  requestId: string,
  logger: Logger,
  extraHeaders?: Record<string, string>,
): Response {
  let gatewayError: GatewayError;
  if (error instanceof GatewayError) {
    gatewayError = error;
    if (error.status >= 500) {
      logger.warn("gateway error", { request_id: requestId, error, detail: error.detail });
    }
  } else if (isAppError(error) && error.status < 500) {
    gatewayError = new GatewayError("invalid_request_error", error.message);
  } else {
    logger.error("unhandled error", { request_id: requestId, error });
    gatewayError = new GatewayError("api_error", "internal error");
  }
  const headers = new Headers(extraHeaders);
  for (const [name, value] of Object.entries(gatewayError.headers ?? {})) headers.set(name, value);
  headers.set("content-type", "application/json");
  headers.set("request-id", requestId);
  headers.set("x-request-id", requestId);
  const retryAfter = retryAfterHeader(gatewayError);
  if (retryAfter !== undefined) headers.set("retry-after", retryAfter);
  if (gatewayError.status === 408) headers.set("connection", "close");
  return new Response(JSON.stringify({ error: openAiError(gatewayError.type, gatewayError.message) }), {
    status: gatewayError.status,
    headers,
  });
}
