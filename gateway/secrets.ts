/**
 * Redaction of the gateway's own secrets (upstream credentials, the database token) from any upstream text
 * before it reaches a client or a log line. Upstreams quote credentials back — a 401 body echoing the key, a
 * proxy error page with the request headers — so every upstream error excerpt, stream error message and log
 * field passes through one redactor built from the configured values, plus a net for credential shapes the
 * gateway does not know (another tenant's key quoted by a shared proxy).
 */
import type { LogFields, Logger } from "@switchyard/lib/log.ts";

/** Replaces secrets in a text. */
export type Redactor = (text: string) => string;

/** What a redacted secret is replaced with. */
export const REDACTED = "[redacted]";

/** Secrets shorter than this are not searched for: they would mangle ordinary words. */
const MIN_SECRET_LENGTH = 8;

/**
 * Credential shapes redacted wherever they appear (OpenAI/Anthropic `sk-`, gateway `sy_`, Google `AIza` keys
 * and `ya29.` OAuth access tokens, which Vertex providers mint at run time and so cannot list up front).
 */
const CREDENTIAL_SHAPES =
  /\b(?:sk-[\w-]{16,}|sy_[\w-]{20,}|AIza[\w-]{30,}|ya29\.[\w.-]{16,})|\bBearer\s+[\w.~+/=-]{8,}/g;

/** The forms a secret can take inside upstream text: raw, JSON-escaped, percent-encoded. */
function formsOf(secret: string): string[] {
  const forms = new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]);
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Builds the redactor for `secrets` (unset and short values are skipped). */
export function createRedactor(secrets: Iterable<string | undefined>): Redactor {
  const forms: string[] = [];
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH) forms.push(...formsOf(secret));
  }
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
    // Cheap pre-check: the shape net runs only when something like a credential may be present.
    if (
      out.includes("sk-") || out.includes("sy_") || out.includes("AIza") || out.includes("Bearer") ||
      out.includes("ya29.")
    ) {
      out = out.replace(CREDENTIAL_SHAPES, REDACTED);
    }
    return out;
  };
}

/**
 * A short excerpt of upstream text that is safe to show: secrets redacted, control characters (log and
 * terminal forging) replaced, at most `max` characters.
 */
export function safeExcerpt(text: string, redact: Redactor, max = 300): string {
  // deno-lint-ignore no-control-regex
  const flat = redact(text).replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function redactValue(value: unknown, redact: Redactor, depth: number): unknown {
  if (typeof value === "string") return redact(value);
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) {
    const cause = value.cause === undefined ? undefined : redactValue(value.cause, redact, depth + 1);
    return { name: value.name, message: redact(value.message), ...(cause === undefined ? {} : { cause }) };
  }
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = redactValue((value as Record<string, unknown>)[key], redact, depth + 1);
  return out;
}

/**
 * A logger whose warn and error lines have every field (strings, error messages and causes, nested) passed
 * through `redact`: those are the lines that carry upstream text (a 5xx's detail, an error's cause). Info and
 * debug lines — the access log, two per request — hold only values the gateway built (ids, model and
 * provider names, statuses, error types) and are not walked, so the redaction costs nothing per request.
 */
export function redactingLogger(logger: Logger, redact: Redactor): Logger {
  const fields = (f?: LogFields) => f && (redactValue(f, redact, 0) as LogFields);
  return {
    debug: (m, f) => logger.debug(m, f),
    info: (m, f) => logger.info(m, f),
    warn: (m, f) => logger.warn(m, fields(f)),
    error: (m, f) => logger.error(m, fields(f)),
    child: (f) => redactingLogger(logger.child(fields(f) ?? {}), redact),
    enabled: (level) => logger.enabled?.(level) ?? true,
  };
}
