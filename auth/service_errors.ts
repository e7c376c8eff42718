/**
 * The auth service's table of its own (non-OAuth) error codes: the answers of routes that are not OAuth/OIDC
 * endpoints (health, pages, the edge's route allowlist and rate limits, local-mode guards, start-up) and the
 * failures of the operator commands (`auth:keys`, `oauth:clients`, …). OAuth/OIDC endpoints answer with
 * auth/oauth_error.ts instead.
 *
 * Each entry says how a response is rendered, so a code has one status and one body shape:
 * - `json`: `{"error": code, "message": …}` (the service's own routes);
 * - `oauth_json`: `{"error": code, "error_description": …}` (the edge's 429, met by OAuth clients first);
 * - `better_auth`: `{"message": …, "code": …}` (origin checks in front of Better Auth, whose clients read its
 *   error shape);
 * - `text`: plain text for a person at a browser (local mode's Host guard).
 * Operator-command codes are raised as `AppError` (lib/errors.ts), which the CLIs print.
 */
import { AppError } from "@switchyard/lib/errors.ts";

/** How a code's response body is written. */
export type ServiceErrorBody = "json" | "oauth_json" | "better_auth" | "text" | "cli";

/** One code of the table. */
export interface ServiceErrorEntry {
  /** HTTP status (for operator commands: the status an HTTP caller of the operation would get). */
  readonly status: number;
  /** The code on the wire, when it differs from the table key. */
  readonly wire?: string;
  /** The body's shape. */
  readonly body: ServiceErrorBody;
}

/** Every non-OAuth error code of the auth service. */
export const SERVICE_ERRORS = Object.freeze(
  {
    /** No route (or a Better Auth route outside the allowlist). */
    not_found: { status: 404, body: "json" },
    /** An unhandled error; the detail is only logged. */
    server_error: { status: 500, body: "json" },
    /** The edge function started without a valid configuration (reported to the platform log). */
    not_configured: { status: 503, wire: "server_error", body: "json" },
    /** Rate limit of the edge (auth/edge/limits.ts), with `Retry-After`. */
    too_many_requests: { status: 429, body: "oauth_json" },
    /** A browser request from an origin the service does not trust. */
    invalid_origin: { status: 403, wire: "INVALID_ORIGIN", body: "better_auth" },
    /** Local mode: a Host other than loopback (DNS rebinding guard). */
    forbidden_host: { status: 403, body: "text" },
    /** Operator command: bad arguments or input. */
    BAD_REQUEST: { status: 400, body: "cli" },
    /** Operator command: no such user, client or key. */
    NOT_FOUND: { status: 404, body: "cli" },
    /** `auth:keys`: the given AUTH_SECRET does not decrypt the current key. */
    SECRET_MISMATCH: { status: 400, body: "cli" },
    /** `auth:keys retire`: the key still signs, or is about to. */
    KEY_IN_USE: { status: 409, body: "cli" },
  } as const satisfies Record<string, ServiceErrorEntry>,
);

/** A code of {@link SERVICE_ERRORS}. */
export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;

/** Codes answered over HTTP (everything but the operator commands'). */
export type HttpServiceErrorCode = {
  [K in ServiceErrorCode]: (typeof SERVICE_ERRORS)[K]["body"] extends "cli" ? never : K;
}[ServiceErrorCode];

/** Codes of the operator commands. */
export type CommandErrorCode = Exclude<ServiceErrorCode, HttpServiceErrorCode>;

/** The response for `code` with a public `message`, never cached; `headers` are added (e.g. `Retry-After`). */
export function serviceErrorResponse(
  code: HttpServiceErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const entry: ServiceErrorEntry = SERVICE_ERRORS[code];
  const wire = entry.wire ?? code;
  const init = (contentType: string) => ({
    status: entry.status,
    headers: { "content-type": contentType, "cache-control": "no-store", ...headers },
  });
  switch (entry.body) {
    case "oauth_json":
      return new Response(
        JSON.stringify({ error: wire, error_description: message }),
        init("application/json"),
      );
    case "better_auth":
      return new Response(JSON.stringify({ message, code: wire }), init("application/json; charset=utf-8"));
    case "text":
      return new Response(message, init("text/plain; charset=utf-8"));
    default:
      return new Response(JSON.stringify({ error: wire, message }), init("application/json"));
  }
}

/** An operator command's failure with a code of the table (thrown; the CLI prints its message). */
export function commandError(code: CommandErrorCode, message: string): AppError {
  return new AppError(code, message, { status: SERVICE_ERRORS[code].status });
}
