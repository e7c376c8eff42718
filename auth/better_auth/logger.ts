/**
 * Better Auth's own log lines, routed into the service's JSON-lines logger. Left alone, the library writes
 * coloured free text to the console beside the JSON log, where a newline in a request value (a
 * `callbackURL`, say) forges a log line; as fields of a JSON record every character is escaped, and values
 * pass the logger's secret redaction.
 */
import type { Logger } from "@switchyard/lib/log.ts";

/** Better Auth's logger option over `logger`. */
export function betterAuthLogger(logger: Logger) {
  return {
    // Not "debug": at debug, 1.6.23 also prints every API error through its own global console logger.
    level: "info" as const,
    log(level: "debug" | "info" | "success" | "warn" | "error", message: string, ...args: unknown[]) {
      const fields = { source: "better-auth", ...(args.length ? { args: args.map(describeArgument) } : {}) };
      const text = `better-auth: ${message}`;
      if (level === "error") logger.error(text, fields);
      else if (level === "warn") logger.warn(text, fields);
      else if (level === "debug") logger.debug(text, fields);
      else logger.info(text, fields);
    },
  };
}

/** Errors as name and message only (a stack trace names files, not what went wrong for the operator). */
function describeArgument(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

/**
 * Better Auth's `onAPIError.onError`: every error of an endpoint is logged here instead of by the library
 * (which prints API errors with its console logger); refusals of bad input are debug lines, server errors
 * are errors (name and message only).
 */
export function betterAuthErrorLogger(logger: Logger) {
  return (error: unknown) => {
    const status = typeof error === "object" && error !== null && "status" in error
      ? String(error.status)
      : "";
    const fields = { source: "better-auth", status, error: describeArgument(error) };
    if (status === "INTERNAL_SERVER_ERROR" || !status) logger.error("better-auth: endpoint error", fields);
    else logger.debug("better-auth: request refused", fields);
  };
}
