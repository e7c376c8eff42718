/**
 * Upstream rate limits in Anthropic's terms, so that Claude Code (and the Anthropic SDKs) back off instead of
 * looping: every 429 / 529 the gateway answers carries `retry-after`, taken from the upstream when it says
 * (`retry-after-ms`, `retry-after`, Gemini's `RetryInfo.retryDelay`, OpenAI's `x-ratelimit-reset-*` of an
 * exhausted limit) or else a default backoff; and `anthropic-ratelimit-*` headers, passed through from an
 * Anthropic upstream or synthesised from OpenAI-style `x-ratelimit-*` headers (OpenAI, Groq, most
 * OpenAI-compatible servers).
 */

/** `retry-after` (seconds) of a 429 the upstream gave no hint for. */
export const DEFAULT_RATE_LIMIT_RETRY_S = 2;
/** `retry-after` (seconds) of a 529 / 503 the upstream gave no hint for. */
export const DEFAULT_OVERLOADED_RETRY_S = 5;
/** Longest `retry-after` the gateway repeats (a day-long quota reset is no use to a retrying client). */
export const MAX_RETRY_AFTER_S = 3600;

/** Milliseconds of an OpenAI-style duration (`1s`, `6m0s`, `59.5ms`, `1h2m3.5s`), or undefined. */
export function durationMs(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const pattern = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let matched = 0;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    const n = Number(m[1]);
    total += m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : m[2] === "m" ? n * 60_000 : n * 3_600_000;
    matched = pattern.lastIndex;
  }
  return matched === text.length && matched > 0 ? total : undefined;
}

/** Whole seconds (at least 1, at most {@link MAX_RETRY_AFTER_S}) of a delay in milliseconds. */
function seconds(ms: number): number {
  return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(ms / 1000)));
}

/** The delay the upstream's headers ask for, in milliseconds (`retry-after-ms`, then `retry-after`). */
function headerDelayMs(headers: Headers, now: number): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms.trim());
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Gemini's (Google APIs') `RetryInfo.retryDelay` (`"37s"`) in an error body, in milliseconds. */
function retryInfoMs(body: unknown): number | undefined {
  const details = (body as { error?: { details?: unknown } } | undefined)?.error?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!detail || typeof detail !== "object") continue;
    const type = (detail as Record<string, unknown>)["@type"];
    const delay = (detail as Record<string, unknown>).retryDelay;
    if (typeof type === "string" && type.endsWith("RetryInfo") && typeof delay === "string") {
      return durationMs(delay);
    }
  }
  return undefined;
}

/** The reset delay of an exhausted OpenAI-style limit (`x-ratelimit-remaining-*: 0`), in milliseconds. */
function exhaustedResetMs(headers: Headers): number | undefined {
  let longest: number | undefined;
  for (const kind of ["requests", "tokens"]) {
    if (headers.get(`x-ratelimit-remaining-${kind}`)?.trim() !== "0") continue;
    const reset = durationMs(headers.get(`x-ratelimit-reset-${kind}`));
    if (reset !== undefined) longest = Math.max(longest ?? 0, reset);
  }
  return longest;
}

/**
 * The `retry-after` (whole seconds, as a string) an upstream's 429 / 529 / 503 asks for: its `retry-after-ms`,
 * `retry-after`, Gemini `RetryInfo` or the reset of an exhausted `x-ratelimit-*` limit; undefined when it says
 * nothing ({@link retryAfterOf} adds the defaults).
 */
export function statedRetryAfter(
  headers: Headers,
  body?: unknown,
  now: number = Date.now(),
): string | undefined {
  const said = headerDelayMs(headers, now) ?? retryInfoMs(body) ?? exhaustedResetMs(headers);
  return said === undefined ? undefined : String(seconds(said));
}

/**
 * The `retry-after` (whole seconds, as a string) of an upstream 429 / 529 / 503: what the upstream says, else
 * the default of its kind. Undefined for any other kind of failure without a hint of its own.
 */
export function retryAfterOf(
  status: number,
  headers: Headers,
  body?: unknown,
  now: number = Date.now(),
): string | undefined {
  const said = headerDelayMs(headers, now) ?? retryInfoMs(body) ?? exhaustedResetMs(headers);
  if (said !== undefined) return String(seconds(said));
  return defaultRetryAfter(status === 429 ? "rate_limit_error" : status >= 500 ? "overloaded_error" : "");
}

/**
 * The `retry-after` a rate limit or overload of no stated delay is answered with (`rate_limit_error`:
 * {@link DEFAULT_RATE_LIMIT_RETRY_S}, `overloaded_error`: {@link DEFAULT_OVERLOADED_RETRY_S}); undefined for
 * other error types. Applied when the response is rendered, so that the gateway's own retries (attempts.ts)
 * still wait only what an upstream actually asked for.
 */
export function defaultRetryAfter(type: string): string | undefined {
  if (type === "rate_limit_error") return String(DEFAULT_RATE_LIMIT_RETRY_S);
  if (type === "overloaded_error") return String(DEFAULT_OVERLOADED_RETRY_S);
  return undefined;
}

/** Headers whose presence says an upstream reports its limits (checked one by one: no `Headers` built). */
const REPORTING = [
  "anthropic-ratelimit-requests-limit",
  "anthropic-ratelimit-tokens-limit",
  "anthropic-ratelimit-input-tokens-limit",
  "x-ratelimit-limit-requests",
  "x-ratelimit-limit-tokens",
];

/**
 * The `anthropic-ratelimit-*` headers of a successful upstream response, or undefined when it reports no
 * limits (the common case costs a few header look-ups).
 */
export function answerRateLimits(
  response: { headers: Headers; header?(name: string): string | null },
): Record<string, string> | undefined {
  const reports = REPORTING.some((name) =>
    (response.header ? response.header(name) : response.headers.get(name)) !== null
  );
  if (!reports) return undefined;
  const headers = rateLimitHeadersOf(response.headers);
  return Object.keys(headers).length > 0 ? headers : undefined;
}

/** Prefix of the headers Anthropic's API reports its limits in. */
const ANTHROPIC_PREFIX = "anthropic-ratelimit-";

/**
 * `anthropic-ratelimit-*` headers of an upstream response: an Anthropic upstream's own, or those synthesised
 * from OpenAI-style `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (the reset, a duration there,
 * becomes the RFC 3339 instant Anthropic uses). Empty when the upstream reports nothing.
 */
export function rateLimitHeadersOf(headers: Headers, now: number = Date.now()): Record<string, string> {
  const out: Record<string, string> = {};
  let anthropic = false;
  for (const [name, value] of headers) {
    if (name.startsWith(ANTHROPIC_PREFIX)) {
      out[name] = value;
      anthropic = true;
    }
  }
  if (anthropic) return out;
  for (const kind of ["requests", "tokens"]) {
    const limit = headers.get(`x-ratelimit-limit-${kind}`)?.trim();
    const remaining = headers.get(`x-ratelimit-remaining-${kind}`)?.trim();
    const reset = durationMs(headers.get(`x-ratelimit-reset-${kind}`));
    if (limit && /^\d+$/.test(limit)) out[`${ANTHROPIC_PREFIX}${kind}-limit`] = limit;
    if (remaining && /^\d+$/.test(remaining)) out[`${ANTHROPIC_PREFIX}${kind}-remaining`] = remaining;
    if (reset !== undefined) {
      out[`${ANTHROPIC_PREFIX}${kind}-reset`] = new Date(now + reset).toISOString().replace(/\.\d+Z$/, "Z");
    }
  }
  return out;
}
