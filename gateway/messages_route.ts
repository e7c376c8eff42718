/**
 * `POST /v1/messages` and `POST /compat/v1/messages` as one lean handler, outside the Hono chain: the hot
 * path of the gateway. It does what the Hono middleware does for the other routes (request id, tracing
 * headers, key check, body limit, error envelope, access log) in straight-line code, and builds each
 * response with all its headers at once instead of mutating them afterwards.
 */
import type { Logger } from "@switchyard/lib/log.ts";
import { GatewayError, invalidRequest } from "./errors.ts";
import { estimateInputTokens } from "./messages/count_tokens.ts";
import { deferStream } from "./messages/deferred_stream.ts";
import type { StreamOutcome } from "./messages/stream_pipe.ts";
import { deadlineTickerFor } from "./upstream/ticker.ts";
import { type MessagesRequest, type Usage, usageOf } from "./messages/types.ts";
import type { Admission, LimitEnforcer } from "./limits/enforcer.ts";
import type { PriceTable } from "./pricing.ts";
import type { UsageLedger } from "./usage/ledger.ts";
import type { GatewayTracer, RequestSpans } from "./tracing.ts";
import { tapStreamText } from "./messages/stream_text_tap.ts";
import { topLevelValue } from "./providers/json_peek.ts";
import { parseJsonBody, validateMessagesRequest } from "./messages/validate.ts";
import { type Provider, type ProviderCall, RawJson, type TraceIds } from "./providers/contract.ts";
import type { Message } from "./messages/types.ts";
import {
  authenticate,
  type KeyCheck,
  readBodyText,
  renderError,
  requestIdOf,
  traceIdsOf,
  traceResponseHeaders,
} from "./request_context.ts";
import type { ModelRouter } from "./routing.ts";
import type { AttemptRecord, UpstreamAttempts } from "./upstream/attempts.ts";
import { parseTarget } from "./target.ts";

/** The paths this handler serves (query strings are ignored). */
export const MESSAGES_PATHS: ReadonlySet<string> = new Set(["/v1/messages", "/compat/v1/messages"]);

/** What the messages route needs. */
export interface MessagesRouteDeps {
  /** Model → provider. */
  router: ModelRouter;
  /** API key verification. */
  keys: KeyCheck;
  /** Structured logger (access log at info). */
  logger: Logger;
  /** Milliseconds of upstream silence before a `ping`. */
  pingIntervalMs: number;
  /** Longest a client may take to send its body. */
  bodyTimeoutMs: number;
  /** Runs each request through its route and fallbacks. */
  attempts: UpstreamAttempts;
  /** Per-key models, limits and budgets. */
  limits: LimitEnforcer;
  /** Prices, for the ledger's cost column. */
  prices: PriceTable;
  /** The usage ledger (one row per authenticated request), when enabled. */
  ledger?: UsageLedger;
  /** The most output tokens a model accepts (`provider/model` or the name asked for), when known. */
  maxTokensOf?: (requested: string, target: string) => number | undefined;
  /** OpenTelemetry spans, when OTEL_DENO is on (absent: no tracing work at all). */
  tracer?: GatewayTracer;
}

/** What the access line of one request needs. */
interface AccessLine {
  requestId: string;
  path: string;
  started: number;
  /** True once a stream response exists: its line is written when the stream ends. */
  streaming: boolean;
  logged: boolean;
  /** How the stream ended, once it has. */
  end?: StreamOutcome;
  /** Every upstream attempt. */
  attempts?: AttemptRecord[];
  /** The `provider/model` that answered. */
  upstream?: string;
  /** The `provider/model` routed to first. */
  target?: string;
  /** A limited key's admission (settled when the response ends). */
  admission?: Admission;
  /** The tokens the upstream reported. */
  usage?: Usage;
  /** Epoch ms when the request arrived (the ledger's time). */
  at: number;
  /** What the ledger needs once the key is known. */
  ledger?: { keyId: string; model: string; stream: boolean; traceId: string };
  /** Milliseconds until a stream's response was ready. */
  ttftMs?: number;
  /** The error type of a request that failed before its response. */
  errorType?: string;
  /** The request's spans, when tracing. */
  spans?: RequestSpans;
  /** The completion's content, kept only when content is traced. */
  completion?: unknown;
  /** A traced stream's text tap: `open` until the client's copy of the stream has ended. */
  tap?: { open: boolean; text: string[] };
  /** True once the response has ended (usage settled). */
  settled?: boolean;
}

/** The usage of a whole (non-streamed) answer. */
function usageOfAnswer(message: Message | RawJson): Usage | undefined {
  const usage = message instanceof RawJson ? topLevelValue(message.text, "usage") : message.usage;
  return usage && typeof usage === "object" ? usageOf(usage as Partial<Usage>) : undefined;
}

/** Settles the line's admission with what the upstream reported (nothing when it never answered). */
function settle(line: AccessLine): void {
  line.admission?.settle(line.usage, line.upstream ?? line.target ?? "");
  line.settled = true;
  if (line.spans) endSpans(line);
}

/** Ends the request's spans once it has settled and a traced stream's text has all been seen. */
function endSpans(line: AccessLine): void {
  if (!line.settled || line.tap?.open) return;
  const errorType = line.end?.outcome === "upstream_error"
    ? line.end.errorType ?? "api_error"
    : line.errorType;
  line.spans!.end({
    served: line.upstream,
    usage: line.usage,
    errorType,
    completion: () => line.tap ? [{ type: "text", text: line.tap.text.join("") }] : line.completion,
  });
}

/** `gw-upstream` (who answered; a stream: whose headers were accepted) and `gw-attempts`. */
function upstreamHeaders(line: AccessLine): Record<string, string> {
  const headers: Record<string, string> = {};
  if (line.upstream) headers["gw-upstream"] = line.upstream;
  if (line.attempts) headers["gw-attempts"] = String(line.attempts.length);
  return headers;
}

/** How soon after the request arrived a client that hung up is noticed (well under 100 ms). */
const HANG_UP_CHECK_MS = 20;

/**
 * Until the response exists, a client that hangs up aborts the upstream call (a started stream's body
 * cancel does it afterwards). `request.signal` is touched only once a request has been waiting for a tick
 * of a shared ticker (≤ 20 ms): Deno.serve then reports a disconnect that happened earlier at once, while
 * quick requests never materialise the signal, which costs ≈ 10 µs each (Deno.serve aborts it after every
 * completed response too). The listener goes as soon as the response exists, so that abort cannot reach a
 * connection being drained back to the pool.
 */
function watchHangUp(request: Request, abort: AbortController): () => void {
  const hangUp = () => abort.abort();
  let listening = false;
  const untick = deadlineTickerFor(HANG_UP_CHECK_MS).add(() => {
    untick();
    listening = true;
    request.signal.addEventListener("abort", hangUp, { once: true });
  });
  return () => {
    untick();
    if (listening) request.signal.removeEventListener("abort", hangUp);
  };
}

/** The `max_tokens` ceiling for a model whose limit is unknown (no model generates more). */
export const UNKNOWN_MODEL_MAX_TOKENS = 1_000_000;

/** Refuses a `max_tokens` above the model's limit before any upstream call, as Anthropic does. */
function checkMaxTokens(request: MessagesRequest, limit: number | undefined): void {
  const max = limit ?? UNKNOWN_MODEL_MAX_TOKENS;
  if (request.max_tokens > max) {
    throw invalidRequest(
      `max_tokens: ${request.max_tokens} > ${max}, which is the maximum allowed number of output tokens for ${
        limit === undefined ? "a model whose limit is not configured" : request.model
      }`,
    );
  }
}

/** Routes a validated request and builds its provider call. */
export function providerCall(
  router: ModelRouter,
  request: MessagesRequest,
  rawBody: string,
  trace: TraceIds,
  clientHeaders: Headers,
): { provider: Provider; call: ProviderCall } {
  const route = router.resolve(request.model);
  // `abort` ends the upstream call: the client went away (see the messages route) or a deadline passed.
  const call: ProviderCall = {
    request,
    rawBody,
    upstreamModel: route.upstreamModel,
    requestedModel: request.model,
    abort: new AbortController(),
    trace,
    clientHeaders,
    inputTokensEstimate: estimateInputTokens(request),
  };
  return { provider: route.provider, call };
}

/** The path of an absolute request URL, without query or fragment (cheaper than `new URL`). */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}

/** Creates the handler of the two messages paths. */
export function createMessagesRoute(
  deps: MessagesRouteDeps,
): (request: Request, path: string) => Promise<Response> {
  const { router, keys, logger, pingIntervalMs, attempts } = deps;

  const respond = async (request: Request, line: AccessLine, trace: TraceIds): Promise<Response> => {
    const requestId = line.requestId;
    const headers = request.headers;
    // The body read (an async op) starts first and runs while the key is checked.
    const reading = readBodyText(request, deps.bodyTimeoutMs);
    reading.catch(() => {}); // a refused key is reported first; its body error is not unhandled
    const policy = await authenticate(keys, headers);
    const keyId = policy.id;
    const text = await reading;
    const body = validateMessagesRequest(parseJsonBody(text));
    const { provider, call } = providerCall(router, body, text, trace, headers);
    const target = `${provider.name}/${call.upstreamModel}`;
    line.target = target;
    line.ledger = { keyId, model: body.model, stream: body.stream === true, traceId: trace.traceId };
    checkMaxTokens(body, deps.maxTokensOf?.(body.model, target));
    deps.limits.checkModel(policy, body.model, target);
    line.admission = await deps.limits.admit(policy, {
      inputTokens: call.inputTokensEstimate,
      maxTokens: body.max_tokens,
      target,
    });
    const stream = body.stream === true;
    line.spans = deps.tracer?.request({
      model: body.model,
      maxTokens: body.max_tokens,
      stream,
      keyId,
      trace,
      prompt: () => ({ system: body.system, messages: body.messages }),
    });
    logger.info("messages", {
      request_id: requestId,
      trace_id: trace.traceId,
      thread_id: trace.threadId,
      key_id: keyId,
      model: body.model,
      provider: provider.name,
      stream,
    });
    // A traced stream's spans wait for its text, which the client's copy carries (see `answer`).
    if (stream && line.spans?.content) line.tap = { open: true, text: [] };
    if (stream) {
      // The pipe may finish reading a quick upstream before the response is even built (a stream pulls
      // once on creation): the outcome then waits for `streaming`.
      call.onStreamEnd = (end) => {
        line.end ??= end;
        line.usage ??= end.usage;
        settle(line);
        if (line.streaming) logStreamOnce(line);
      };
    }
    const stopWatching = watchHangUp(request, call.abort);
    try {
      return await answer(provider, call, stream, line, trace);
    } finally {
      stopWatching();
    }
  };

  /** Runs the attempts (route, then fallbacks); the line keeps their record; failure throws the last error. */
  const attempt = async <T>(
    call: ProviderCall,
    provider: Provider,
    line: AccessLine,
    run: (provider: Provider, call: ProviderCall) => Promise<T>,
  ): Promise<T> => {
    const spans = line.spans;
    const result = await attempts.run(
      call,
      provider,
      run,
      spans && ((target, index) => spans.attempt(target, index)),
    );
    line.attempts = result.attempts;
    if (result.ok) {
      line.upstream = result.target;
      return result.value;
    }
    throw result.error;
  };

  const answer = async (
    provider: Provider,
    call: ProviderCall,
    stream: boolean,
    line: AccessLine,
    trace: TraceIds,
  ): Promise<Response> => {
    const requestId = line.requestId;
    if (stream) {
      const upstream = attempt(call, provider, line, (p, c) => p.streamMessage(c));
      let events = await deferStream(upstream, pingIntervalMs, call.abort, call.onStreamEnd);
      line.ttftMs = performance.now() - line.started;
      line.streaming = true;
      if (line.end) logStreamOnce(line);
      const tap = line.tap;
      if (tap) {
        events = tapStreamText(events, tap.text, () => {
          tap.open = false;
          endSpans(line);
        });
      }
      return new Response(events, {
        headers: traceResponseHeaders(trace, {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache",
          "x-accel-buffering": "no",
          "request-id": requestId,
          ...upstreamHeaders(line),
          ...line.admission?.headers,
        }),
      });
    }
    const message = await attempt(call, provider, line, (p, c) => p.createMessage(c));
    // Usage is read from the answer only for those who need it (a limited key, the ledger, tracing).
    if (line.admission?.charges || (line.ledger && deps.ledger) || line.spans) {
      line.usage = usageOfAnswer(message);
    }
    if (line.spans?.content) {
      line.completion = message instanceof RawJson ? topLevelValue(message.text, "content") : message.content;
    }
    settle(line);
    return new Response(message instanceof RawJson ? message.text : JSON.stringify(message), {
      headers: traceResponseHeaders(trace, {
        "content-type": "application/json",
        "request-id": requestId,
        ...upstreamHeaders(line),
        ...line.admission?.headers,
      }),
    });
  };

  /** Writes the access line; a stream's carries its outcome and is a warning when the upstream failed. */
  const logRequest = (line: AccessLine, status: number, end?: StreamOutcome) => {
    const fields: Record<string, unknown> = {
      request_id: line.requestId,
      method: "POST",
      route: line.path,
      path: line.path,
      status,
      duration_ms: Math.round((performance.now() - line.started) * 100) / 100,
    };
    if (line.upstream) fields.upstream = line.upstream;
    // Every attempt is recorded when there was more than the one that answered.
    if (line.attempts && (line.attempts.length > 1 || !line.upstream)) fields.attempts = line.attempts;
    if (end) {
      fields.outcome = end.outcome;
      if (end.errorType) fields.error_type = end.errorType;
    }
    if (end?.outcome === "upstream_error") logger.warn("request", fields);
    else logger.info("request", fields);
    if (deps.ledger && line.ledger) record(deps.ledger, line, status, fields.duration_ms as number, end);
  };

  const record = (
    ledger: UsageLedger,
    line: AccessLine,
    status: number,
    latencyMs: number,
    end?: StreamOutcome,
  ) => {
    const served = line.upstream ?? line.target;
    const usage = line.usage;
    const cost = usage && served ? deps.prices.cost(served, usage) : { usd: 0, priced: true };
    const named = served ? parseTarget(served) : undefined;
    ledger.record({
      at: line.at,
      key_id: line.ledger!.keyId,
      model: line.ledger!.model,
      provider: named?.provider ?? null,
      served_model: named?.model ?? null,
      attempts: line.attempts?.length ?? 0,
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      cache_read_tokens: usage?.cache_read_input_tokens ?? 0,
      cache_write_tokens: usage?.cache_creation_input_tokens ?? 0,
      cost_usd: cost.usd,
      status: end?.outcome === "upstream_error" ? 500 : status,
      error_type: end?.errorType ?? line.errorType ?? null,
      latency_ms: latencyMs,
      ttft_ms: line.ttftMs === undefined ? null : Math.round(line.ttftMs * 100) / 100,
      stream: line.ledger!.stream ? 1 : 0,
      trace_id: line.ledger!.traceId,
      request_id: line.requestId,
      warning: cost.priced ? null : `no price for ${served}; cost counted as 0`,
    });
  };

  const logStreamOnce = (line: AccessLine) => {
    if (line.logged) return;
    line.logged = true;
    logRequest(line, 200, line.end);
  };

  return async (request, path) => {
    const line: AccessLine = {
      requestId: requestIdOf(request.headers),
      path,
      started: performance.now(),
      at: Date.now(),
      streaming: false,
      logged: false,
    };
    const trace = traceIdsOf(request.headers);
    let response: Response;
    try {
      response = await respond(request, line, trace);
    } catch (error) {
      line.streaming = false;
      line.errorType = error instanceof GatewayError ? error.type : "api_error";
      line.tap = undefined; // no stream reached the client
      settle(line);
      response = renderError(
        error,
        line.requestId,
        logger,
        traceResponseHeaders(trace, { ...line.admission?.headers }),
      );
    }
    // A stream's line waits for the stream's end (see `onStreamEnd`), so it can say how the stream ended.
    if (!line.streaming) logRequest(line, response.status);
    return response;
  };
}
