/**
 * Errors that are values: a stable machine-readable code, an HTTP status, a public message that is safe to
 * show to a caller, and an optional private detail that only reaches logs (never a response).
 */

/** Stable error codes shared by the services. Services may add their own codes as strings. */
export type ErrorCode =
  | "CONFIG_INVALID"
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "UPSTREAM_ERROR"
  | "INTERNAL"
  | "MIGRATION_INVALID"
  | (string & Record<never, never>);

/** Options for {@link AppError}. */
export interface AppErrorOptions {
  /** HTTP status the error maps to when it reaches a response. Defaults to 500. */
  status?: number;
  /** Private detail for logs; never rendered to a client. */
  detail?: string;
  /** The underlying error, kept for logs. */
  cause?: unknown;
}

/** An expected failure (bad input, bad config, refused request) with a stable code. */
export class AppError extends Error {
  /** Stable code, safe to match on. */
  readonly code: ErrorCode;
  /** HTTP status for responses. */
  readonly status: number;
  /** Private detail for logs only. */
  readonly detail?: string;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = options.status ?? 500;
    this.detail = options.detail;
  }
}

/** True when `value` is an {@link AppError} (also across module copies, by shape). */
export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError ||
    (value instanceof Error && value.name === "AppError" && typeof (value as AppError).code === "string");
}
