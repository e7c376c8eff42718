/**
 * Per-request pieces shared by the Hono routes and the lean messages route (messages_route.ts): request and
 * trace ids, the presented API key, authentication, the body size limit and error rendering. One
 * implementation, so both paths behave identically.
 */
import { concatBytes } from "@switchyard/lib/bytes.ts";
import { isAppError } from "@switchyard/lib/errors.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import { errorResponse, GatewayError } from "./errors.ts";
import { deadlineTickerFor } from "./upstream/ticker.ts";
import type { TraceIds } from "./providers/contract.ts";
import type { KeyPolicy } from "./limits/policy.ts";

/** Largest accepted request body (Anthropic's limit for Messages). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Request and trace ids are accepted from clients only if short and plain (no log forging). */
export const PLAIN_ID = /^[\w.:-]{1,128}$/;

/** Verifies presented API keys (see keys/verifier.ts). */
export interface KeyCheck {
  /** The key's policy when it is active, else null. */
  verify(key: string): Promise<KeyPolicy | null>;
  /**
   * The key's policy when it can be told without waiting (a fresh cached snapshot that knows the key), else
   * undefined (then `verify` decides); optional. Lets the hot path skip two async calls per request.
   */
  verifyNow?(key: string): KeyPolicy | undefined;
  /** Reloads the keys now (after the admin console changed one); optional. */
  refresh?(): Promise<void>;
}

/** The ASCII codes of each byte's two hex digits. */
const HEX_CODES = Array.from({ length: 256 }, (_, i) => {
  const digits = i.toString(16).padStart(2, "0");
  return [digits.charCodeAt(0), digits.charCodeAt(1)];
});
const randomPool = new Uint8Array(4096);
const hexPool = new Uint8Array(2 * randomPool.length);
const hexDecoder = new TextDecoder();
let randomHex = "";
let randomAt = 0;

/**
 * 128 random bits as 32 hex digits (the shape of a dashless UUID), cut from a string of random hex digits
 * made 256 ids at a time (one `getRandomValues` and one decode): a slice per id, where 16 string
 * concatenations per id made ≈ 0.5 KB of garbage.
 */
export function randomHex128(): string {
  if (randomAt + 32 > randomHex.length) {
    crypto.getRandomValues(randomPool);
    for (let i = 0; i < randomPool.length; i++) {
      const codes = HEX_CODES[randomPool[i]];
      hexPool[2 * i] = codes[0];
      hexPool[2 * i + 1] = codes[1];
    }
    randomHex = hexDecoder.decode(hexPool);
    randomAt = 0;
  }
  const id = randomHex.slice(randomAt, randomAt + 32);
  randomAt += 32;
  return id;
}

/** The client's `request-id` when acceptable, else a new `req_…` one. */
export function requestIdOf(headers: Headers): string {
  const incoming = headers.get("request-id");
  return incoming && PLAIN_ID.test(incoming) ? incoming : `req_${randomHex128()}`;
}

/** `Gw-Trace-Id` (generated when absent or malformed) and `Gw-Thread-Id` (when well-formed). */
export function traceIdsOf(headers: Headers): TraceIds {
  const incoming = headers.get("gw-trace-id");
  const trace: TraceIds = {
    traceId: incoming && PLAIN_ID.test(incoming) ? incoming : `trace_${randomHex128()}`,
  };
  const thread = headers.get("gw-thread-id");
  if (thread && PLAIN_ID.test(thread)) trace.threadId = thread;
  return trace;
}

/** The response headers that echo the tracing ids. */
export function traceResponseHeaders(trace: TraceIds, into: Record<string, string>): Record<string, string> {
  into["gw-trace-id"] = trace.traceId;
  if (trace.threadId) into["gw-thread-id"] = trace.threadId;
  return into;
}

const BEARER = /^bearer\s+/i;

/** The key from `X-API-Key`, else from `Authorization: Bearer`. */
export function presentedKey(headers: Headers): string | undefined {
  const header = headers.get("x-api-key");
  if (header) return header.trim();
  const auth = headers.get("authorization");
  if (!auth) return undefined;
  // One match for the test and the cut (OpenAI-format clients all send their key this way).
  const scheme = BEARER.exec(auth);
  return scheme ? auth.slice(scheme[0].length).trim() : undefined;
}

/**
 * The policy of the presented active key; throws 401 `authentication_error` otherwise (an expired key says
 * so), and 403 `permission_error` for an admin key on the model API (`admin` false) or a plain key on the
 * admin API (`admin` true).
 */
export async function authenticate(keys: KeyCheck, headers: Headers, admin = false): Promise<KeyPolicy> {
  const key = presentedKey(headers);
  if (!key) {
    throw new GatewayError(
      "authentication_error",
      "missing API key: send it as X-API-Key or Authorization: Bearer",
    );
  }
  const policy = await keys.verify(key);
  if (!policy) throw new GatewayError("authentication_error", "invalid API key");
  return admitted(policy, admin);
}

/** The checks of a known key's policy: expiry, and admin keys only on the admin API (and the reverse). */
function admitted(policy: KeyPolicy, admin: boolean): KeyPolicy {
  if (policy.expiresAt !== undefined && Date.now() >= policy.expiresAt) {
    throw new GatewayError(
      "authentication_error",
      `API key expired at ${new Date(policy.expiresAt).toISOString()}`,
    );
  }
  if (policy.admin !== admin) {
    throw new GatewayError(
      "permission_error",
      admin ? "this endpoint needs an admin key" : "an admin key cannot call the model API",
    );
  }
  return policy;
}

/**
 * {@link authenticate} without waiting, when the verifier can answer at once (`verifyNow`) and the key is
 * usable on the model API: its policy. Undefined otherwise — a refusal included, which `authenticate` then
 * reports — so the caller falls back to `authenticate`.
 */
export function authenticateNow(keys: KeyCheck, headers: Headers): KeyPolicy | undefined {
  if (!keys.verifyNow) return undefined;
  const key = presentedKey(headers);
  const policy = key ? keys.verifyNow(key) : undefined;
  if (!policy || policy.admin || (policy.expiresAt !== undefined && Date.now() >= policy.expiresAt)) {
    return undefined;
  }
  return policy;
}

/** The 413 error for a body over {@link MAX_BODY_BYTES}. */
export function bodyTooLarge(): GatewayError {
  return new GatewayError("request_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);
}

const decoder = new TextDecoder();

/** The 408 error for a body not received in time (Deno.serve has no body timeout of its own). */
export function bodyTooSlow(timeoutMs: number): GatewayError {
  return new GatewayError("timeout_error", `request body was not received within ${timeoutMs} ms`, {
    status: 408,
  });
}

/**
 * `promise`, or a rejection with `error()` once `ms` have passed (checked by the shared ticker, not a timer
 * per request; `onExpire` releases what the promise holds).
 */
function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  error: () => Error,
  onExpire: () => void,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const untick = deadlineTickerFor(Math.max(5, Math.min(1_000, Math.floor(ms / 4)))).add(() => {
      if (Date.now() - started < ms) return;
      untick();
      onExpire();
      reject(error());
    });
    promise.then((value) => {
      untick();
      resolve(value);
    }, (reason) => {
      untick();
      reject(reason);
    });
  });
}

/**
 * Reads the body as text within `timeoutMs` (a slow or stalled client gets 408 and its connection is
 * released), refusing more than {@link MAX_BODY_BYTES}: by `content-length` before reading, or while reading
 * a chunked body. The common case (a length) reads in one step without materialising the body as a
 * JavaScript stream.
 */
export function readBodyText(request: Request, timeoutMs: number): Promise<string> {
  const length = request.headers.get("content-length");
  if (length !== null && !request.headers.has("transfer-encoding")) {
    if (Number(length) > MAX_BODY_BYTES) return Promise.reject(bodyTooLarge());
    // Cancelling a body Deno.serve is reading makes it drop the connection once the 408 has been sent.
    return withDeadline(request.text(), timeoutMs, () => bodyTooSlow(timeoutMs), () => {});
  }
  if (!request.body) return Promise.resolve("");
  const reader = request.body.getReader();
  return withDeadline(readChunked(reader), timeoutMs, () => bodyTooSlow(timeoutMs), () => {
    reader.cancel().catch(() => {});
  });
}

async function readChunked(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_BODY_BYTES) {
      reader.cancel().catch(() => {});
      throw bodyTooLarge();
    }
    parts.push(value);
  }
  return decoder.decode(concatBytes(parts, size));
}

/**
 * Renders any thrown value as an Anthropic error response: GatewayErrors as they are (5xx logged), other
 * client-side AppErrors as 400, anything else as a logged 500 `api_error`.
 */
export function renderError(
  error: unknown,
  requestId: string,
  logger: Logger,
  extraHeaders?: Record<string, string>,
): Response {
  if (error instanceof GatewayError) {
    if (error.status >= 500) {
      logger.warn("gateway error", { request_id: requestId, error, detail: error.detail });
    }
    return errorResponse(error, requestId, extraHeaders);
  }
  if (isAppError(error) && error.status < 500) {
    return errorResponse(new GatewayError("invalid_request_error", error.message), requestId, extraHeaders);
  }
  logger.error("unhandled error", { request_id: requestId, error });
  return errorResponse(new GatewayError("api_error", "internal error"), requestId, extraHeaders);
}
