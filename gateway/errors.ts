/**
 * Gateway errors in the Anthropic error envelope: a stable `type`, the HTTP status that type implies, and
 * the mapping of upstream provider failures onto that table (never passing an upstream body through).
 */
import { AppError } from "@switchyard/lib/errors.ts";
import { type Redactor, safeExcerpt } from "./secrets.ts";
import { defaultRetryAfter, rateLimitHeadersOf, statedRetryAfter } from "./upstream/rate_limits.ts";

/** The `error.type` values of the Anthropic API that the gateway emits. */
export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "billing_error"
  | "permission_error"
  | "not_found_error"
  | "timeout_error"
  | "conflict_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error";

/** HTTP status of each error type (Anthropic's table). */
export const STATUS_OF_ERROR_TYPE: Readonly<Record<AnthropicErrorType, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  timeout_error: 504,
  conflict_error: 409,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** Options of {@link GatewayError}. */
export interface GatewayErrorOptions {
  /** Seconds after which a retry may succeed (sent as `retry-after`). */
  retryAfter?: string;
  /** Private detail for logs only. */
  detail?: string;
  /** Response headers the error carries (a limited key's rate-limit headers). */
  headers?: Readonly<Record<string, string>>;
  /** Underlying cause, for logs. */
  cause?: unknown;
  /** An HTTP status other than the type's own (408 for a client too slow to send its body). */
  status?: number;
  /**
   * The upstream failed before answering in a way another attempt may not (connect error, no headers in
   * time, 429, 5xx): a fallback may be tried.
   */
  retryable?: boolean;
  /**
   * The upstream itself is at fault (unreachable, no headers in time, a 5xx): the failure counts toward its
   * deployment's circuit (circuit_breaker.ts). A 429 (alive, only busy), a 4xx, and the gateway's own
   * refusals of an answer (over a size cap) are not.
   */
  upstreamFault?: boolean;
}

/** A refused or failed gateway request, rendered as an Anthropic error envelope. */
export class GatewayError extends AppError {
  /** The Anthropic error type. */
  readonly type: AnthropicErrorType;
  /** Value for the `retry-after` header, when known. */
  readonly retryAfter?: string;
  /** See {@link GatewayErrorOptions.retryable}. */
  readonly retryable: boolean;
  /** See {@link GatewayErrorOptions.upstreamFault}. */
  readonly upstreamFault: boolean;
  /** See {@link GatewayErrorOptions.headers}. */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(type: AnthropicErrorType, message: string, options: GatewayErrorOptions = {}) {
    super(type, message, {
      status: options.status ?? STATUS_OF_ERROR_TYPE[type],
      detail: options.detail,
      cause: options.cause,
    });
    this.name = "GatewayError";
    this.type = type;
    this.retryAfter = options.retryAfter;
    this.retryable = options.retryable ?? false;
    this.upstreamFault = options.upstreamFault ?? false;
    this.headers = options.headers;
  }
}

/** Shorthand for a 400 `invalid_request_error`. */
export function invalidRequest(message: string): GatewayError {
  return new GatewayError("invalid_request_error", message);
}

/** The JSON error envelope. */
export function errorEnvelope(type: AnthropicErrorType, message: string, requestId?: string): unknown {
  const body: Record<string, unknown> = { type: "error", error: { type, message } };
  if (requestId) body.request_id = requestId;
  return body;
}

/**
 * The `retry-after` of an error response: the error's own, else for a rate limit or an overload a default
 * (upstream/rate_limits.ts) — a 429 or 529 always says when to retry, or Claude Code retries at once.
 */
export function retryAfterHeader(error: GatewayError): string | undefined {
  return error.retryAfter ?? defaultRetryAfter(error.type);
}

/** Renders `error` as an HTTP response with the envelope, status and `retry-after` (when known). */
export function errorResponse(error: GatewayError, requestId?: string, extraHeaders?: HeadersInit): Response {
  const headers = new Headers(extraHeaders);
  for (const [name, value] of Object.entries(error.headers ?? {})) headers.set(name, value);
  headers.set("content-type", "application/json");
  const retryAfter = retryAfterHeader(error);
  if (retryAfter !== undefined) headers.set("retry-after", retryAfter);
  if (requestId) headers.set("request-id", requestId);
  // A client too slow to send its body does not keep the connection (Deno.serve would wait on it forever).
  if (error.status === 408) headers.set("connection", "close");
  return new Response(JSON.stringify(errorEnvelope(error.type, error.message, requestId)), {
    status: error.status,
    headers,
  });
}

/** Maps an upstream HTTP status onto the Anthropic error type the client should see. */
export function errorTypeForUpstreamStatus(status: number): AnthropicErrorType {
  switch (status) {
    case 400:
    case 422:
      return "invalid_request_error";
    case 401: // The gateway's own upstream credential was refused: not the client's fault.
      return "api_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 408:
    case 504:
      return "timeout_error";
    case 409:
      return "conflict_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 502:
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return status >= 400 && status < 500 ? "invalid_request_error" : "api_error";
  }
}

/** Reads a retry delay in whole seconds from upstream headers (`retry-after-ms`, `retry-after`). */
export function retryAfterFrom(headers: Headers): string | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return String(Math.max(0, Math.ceil(Number(ms) / 1000)));
  const value = headers.get("retry-after");
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return value.trim();
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : String(Math.max(0, Math.ceil((date - Date.now()) / 1000)));
}

/** Extracts a human message from a provider error body (OpenAI, Gemini or Anthropic shape). */
export function upstreamMessage(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string") return error;
  if (error && typeof error === "object") {
    const message = (error as { message?: unknown }).message;
    if (typeof message === "string") return message;
  }
  const message = (body as { message?: unknown }).message;
  return typeof message === "string" ? message : undefined;
}

/** True for an Anthropic-shaped error body of type `overloaded_error` (whatever the status it came with). */
function overloadedBody(body: unknown): boolean {
  const error = (body as { error?: unknown } | undefined)?.error;
  return !!error && typeof error === "object" && (error as { type?: unknown }).type === "overloaded_error";
}

/**
 * Builds the client-facing error for a failed upstream response (reads and discards the body): a message of
 * ours naming the provider and status, plus a safe excerpt of the upstream's own message (secrets redacted,
 * control characters flattened, truncated). The raw body never leaves; its redacted head goes to the log.
 */
export async function upstreamHttpError(
  provider: string,
  response: Pick<Response, "status" | "headers" | "text">,
  redact: Redactor,
): Promise<GatewayError> {
  const text = await response.text().catch(() => "");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const type = overloadedBody(parsed) ? "overloaded_error" : errorTypeForUpstreamStatus(response.status);
  const upstream = upstreamMessage(parsed);
  const message = response.status === 401
    ? `upstream provider ${provider} refused the gateway's credentials`
    : `upstream provider ${provider} returned ${response.status}${
      upstream ? `: ${safeExcerpt(upstream, redact)}` : ""
    }`;
  // A rate limit or an overload always says when to retry (Claude Code otherwise retries at once, again and
  // again), and carries the upstream's limits as `anthropic-ratelimit-*`.
  const limited = type === "rate_limit_error" || type === "overloaded_error";
  const retryAfter = limited ? statedRetryAfter(response.headers, parsed) : retryAfterFrom(response.headers);
  const limits = limited ? rateLimitHeadersOf(response.headers) : undefined;
  const retryable = limited || response.status >= 500;
  return new GatewayError(type, message, {
    retryAfter,
    headers: limits && Object.keys(limits).length > 0 ? limits : undefined,
    detail: safeExcerpt(text, redact, 2000),
    retryable,
    upstreamFault: response.status >= 500,
    // The gateway's own upstream credential was refused: a bad gateway, not the client's request.
    status: response.status === 401 ? 502 : undefined,
  });
}
