/**
 * The request pipeline every model-calling route goes through, whatever its wire format: key check and body
 * (read while the key is checked, bounded in size and time), parse by the route's {@link Ingress}, routing,
 * `max_tokens` and model checks, the key's limits and budgets, spans, the upstream attempts (fallbacks,
 * retries, breakers), the answer or the stream, hang-up detection, and at the end the access line, the
 * ledger row and the admission's settlement (record.ts). Outside the Hono chain: the hot path of the
 * gateway, with each response built with all its headers at once.
 *
 * An ingress (gateway/ingress.ts) is a thin adapter: it parses its format into the canonical (Anthropic)
 * request and renders the canonical answer, stream and errors back into its format; without one the request
 * is a Messages API request (messages_route.ts).
 */
import { refuseServerTools } from "../messages/server_tools.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import { deferStream } from "../messages/deferred_stream.ts";
import type { StreamOutcome } from "../messages/stream_pipe.ts";
import { tapStreamText } from "../messages/stream_text_tap.ts";
import { parseJsonBody, validateMessagesRequest } from "../messages/validate.ts";
import type { Ingress } from "../ingress.ts";
import type { LimitEnforcer } from "../limits/enforcer.ts";
import type { KeyPolicy } from "../limits/policy.ts";
import type { Message, MessagesRequest } from "../messages/types.ts";
import type { PriceTable } from "../pricing.ts";
import { type Provider, type ProviderCall, RawJson, type TraceIds } from "../providers/contract.ts";
import { topLevelValue } from "../providers/json_peek.ts";
import {
  authenticate,
  authenticateNow,
  type KeyCheck,
  readBodyText,
  renderError,
  requestIdOf,
  traceIdsOf,
  traceResponseHeaders,
} from "../request_context.ts";
import type { ModelRouter } from "../routing.ts";
import { answerRateLimits } from "../upstream/rate_limits.ts";
import type { GatewayTracer } from "../tracing.ts";
import type { AttemptsResult, UpstreamAttempts } from "../upstream/attempts.ts";
import type { UsageLedger } from "../usage/ledger.ts";
import { RequestRecord, usageOfAnswer } from "./record.ts";
import { checkMaxTokens, type HangUpWatch, providerCall, watchHangUp } from "./steps.ts";
import { T_ANSWER, T_BODY, timelineMark } from "../bench_timeline.ts";

/** What the pipeline needs. */
export interface PipelineDeps {
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

/** The pipeline's handler: one request on `path`, in the format of `ingress` (none: the Messages API). */
export type RequestPipeline = (request: Request, path: string, ingress?: Ingress) => Promise<Response>;

/** A request admitted to the upstream: its call, provider and mode. */
interface Admitted {
  provider: Provider;
  call: ProviderCall;
  stream: boolean;
}

/** Swallows a rejection that is reported elsewhere. */
const ignore = () => {};

/**
 * One whole (non-streamed) attempt of the Messages API: the provider's own call. A fallback to a provider
 * that cannot run a server tool is refused, never sent without it (a no-op for the route's own provider,
 * which `providerCall` checked already, and for providers that run server tools). Static: no closure per
 * request.
 */
const createDirect = (p: Provider, c: ProviderCall): Promise<Message | RawJson> => {
  refuseServerTools(c.request, p);
  return p.createMessage(c);
};

/** Creates the pipeline. */
export function createRequestPipeline(deps: PipelineDeps): RequestPipeline {
  const { logger } = deps;
  // Fixed for the process: when the access log is off, its lines' fields are never built.
  const accessLog = logger.enabled?.("info") ?? true;

  /**
   * Parse, route, checks, limits and spans once the key and body are known: everything before the first
   * upstream byte but the waits (the caller awaits a limited key's admission).
   */
  const route = (
    request: Request,
    record: RequestRecord,
    trace: TraceIds,
    ingress: Ingress | undefined,
    policy: KeyPolicy,
    text: string,
  ): Admitted & { body: MessagesRequest } => {
    const parsed = ingress?.parse(text);
    const body = parsed?.request ?? validateMessagesRequest(parseJsonBody(text));
    // Another format's text is no Messages body: pass-through providers serialize `body` instead.
    const { provider, call } = providerCall(
      deps.router,
      body,
      parsed ? undefined : text,
      trace,
      request.headers,
    );
    const target = `${provider.name}/${call.upstreamModel}`;
    const stream = body.stream === true;
    record.target = target;
    record.answer = parsed?.answer;
    if (deps.ledger) record.ledger = { keyId: policy.id, model: body.model, stream, traceId: trace.traceId };
    const maxTokens = deps.maxTokensOf?.(body.model, target);
    parsed?.fitMaxTokens(maxTokens);
    checkMaxTokens(body, maxTokens);
    deps.limits.checkModel(policy, body.model, target);
    return { provider, call, stream, body };
  };

  /** The spans of an admitted request, when tracing. */
  const startSpans = (record: RequestRecord, trace: TraceIds, policy: KeyPolicy, body: MessagesRequest) => {
    record.spans = deps.tracer?.request({
      model: body.model,
      maxTokens: body.max_tokens,
      stream: body.stream === true,
      keyId: policy.id,
      trace,
      prompt: body,
    });
  };

  /** What the attempts' outcome leaves in the record; failure throws the last error. */
  const attempted = <T>(record: RequestRecord, result: AttemptsResult<T>): T => {
    record.attempts = result.attempts;
    if (result.ok) {
      record.upstream = result.target;
      record.charge = result.charge;
      return result.value;
    }
    throw result.error;
  };

  const streamed = async (admitted: Admitted, record: RequestRecord, trace: TraceIds): Promise<Response> => {
    const { call, provider } = admitted;
    const via = record.answer;
    const upstream = deps.attempts.run(call, provider, (p, c) => {
      if (p !== provider) refuseServerTools(c.request, p);
      return via ? via.streamMessage(p, c) : p.streamMessage(c);
    }, record.spans).then((result) => attempted(record, result));
    let events = await deferStream(upstream, deps.pingIntervalMs, call.abort, call.onStreamEnd);
    record.ttftMs = performance.now() - record.started;
    record.streaming = true;
    if (record.end) logStreamOnce(record);
    const tap = record.tap;
    if (tap) {
      events = tapStreamText(events, tap.text, () => {
        tap.open = false;
        record.endSpans();
      });
    }
    if (via) events = via.stream(events);
    const headers: Record<string, string> = {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "request-id": record.requestId,
    };
    return new Response(events, { headers: responseHeaders(headers, record, trace) });
  };

  /** The whole answer's response (usage read for those who need it, spans' completion, settlement). */
  const answered = (message: Message | RawJson, record: RequestRecord, trace: TraceIds): Response => {
    const via = record.answer;
    const rendered = via?.json(message);
    // Usage is read from the answer only for those who need it (a limited key, the ledger, tracing).
    if (rendered) record.usage = rendered.usage;
    else if (record.needsUsage(deps.ledger !== undefined)) record.usage = usageOfAnswer(message);
    if (record.spans?.content) {
      record.completion = message instanceof RawJson
        ? topLevelValue(message.text, "content")
        : message.content;
    }
    record.settle();
    const text = rendered?.text ?? (message instanceof RawJson ? message.text : JSON.stringify(message));
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "request-id": record.requestId,
    };
    return new Response(text, { headers: responseHeaders(headers, record, trace) });
  };

  /** Writes the access line (a warning when a stream's upstream failed) and the ledger row. */
  const finish = (record: RequestRecord, status: number, end?: StreamOutcome) => {
    const streamFailed = end?.outcome === "upstream_error";
    let durationMs: number | undefined;
    if (accessLog || streamFailed) {
      const fields = record.accessFields(status, end);
      durationMs = fields.duration_ms as number;
      if (streamFailed) logger.warn("request", fields);
      else logger.info("request", fields);
    }
    if (deps.ledger && record.ledger) {
      durationMs ??= record.durationMs();
      deps.ledger.record(record.ledgerRow(status, durationMs, deps.prices, end));
    }
  };

  const logStreamOnce = (record: RequestRecord) => {
    if (record.logged) return;
    record.logged = true;
    finish(record, 200, record.end);
  };

  /**
   * One request, in one async function for the common case (a whole answer): the key, the body, the checks,
   * the attempts and the response, with no async layer per step (each cost a promise and a suspended frame
   * per request). Streams go on in `streamed`.
   */
  return async (request, path, ingress) => {
    const headers = request.headers;
    const record = new RequestRecord(requestIdOf(headers), path, ingress?.format);
    const trace = traceIdsOf(headers);
    let response: Response;
    let watch: HangUpWatch | undefined;
    try {
      // The body read (an async op) starts first and runs while the key is checked.
      const reading = readBodyText(request, deps.bodyTimeoutMs);
      let policy = authenticateNow(deps.keys, headers);
      if (policy === undefined) {
        reading.catch(ignore); // a refused key is reported first; its body error is not unhandled
        policy = await authenticate(deps.keys, headers);
      }
      const text = await reading;
      timelineMark?.(T_BODY);
      const admitted = route(request, record, trace, ingress, policy, text);
      const { call, stream, body } = admitted;
      // A key without limits, or limits counted in-process, is admitted without a promise.
      if (policy.limits) {
        const asked = {
          inputTokens: call.inputTokensEstimate,
          maxTokens: body.max_tokens,
          target: record.target!,
        };
        record.admission = deps.limits.admitAtOnce(policy, asked) ?? await deps.limits.admit(policy, asked);
      } else record.admission = deps.limits.admitAtOnce(policy);
      if (deps.tracer) startSpans(record, trace, policy, body);
      if (accessLog) {
        logger.info("messages", {
          request_id: record.requestId,
          trace_id: trace.traceId,
          thread_id: trace.threadId,
          key_id: policy.id,
          model: body.model,
          provider: admitted.provider.name,
          stream,
        });
      }
      // A traced stream's spans wait for its text, which the client's copy carries (see `streamed`).
      if (stream && record.spans?.content) record.tap = { open: true, text: [] };
      if (stream) {
        // The pipe may finish reading a quick upstream before the response is even built (a stream pulls
        // once on creation): the outcome then waits for `streaming`.
        call.onStreamEnd = (end) => {
          record.end ??= end;
          record.usage ??= end.usage;
          record.settle();
          if (record.streaming) logStreamOnce(record);
        };
      }
      // The answering upstream's limits reach the client as anthropic-ratelimit-* (a limited key's own win).
      call.onUpstreamResponse = (response) => record.rateLimits = answerRateLimits(response);
      watch = watchHangUp(request, call.abort);
      if (stream) response = await streamed(admitted, record, trace);
      else {
        const via = record.answer;
        const first = admitted.provider;
        const result = await deps.attempts.run(
          call,
          first,
          via
            ? (p, c) => {
              if (p !== first) refuseServerTools(c.request, p);
              return via.createMessage(p, c);
            }
            : createDirect,
          record.spans,
        );
        timelineMark?.(T_ANSWER);
        response = answered(attempted(record, result), record, trace);
      }
    } catch (error) {
      record.failed(error);
      const headers = traceResponseHeaders(trace, { ...record.admission?.headers });
      response = (ingress?.renderError ?? renderError)(error, record.requestId, logger, headers);
    } finally {
      watch?.stop();
    }
    // A stream's line waits for the stream's end (see `onStreamEnd`), so it can say how the stream ended.
    if (!record.streaming) finish(record, response.status);
    return response;
  };
}

/**
 * A response's headers: `base`, then `gw-upstream`/`gw-attempts`, the answering upstream's rate limits, a
 * limited key's own and the trace ids, added to the one object (no spread copies).
 */
function responseHeaders(
  base: Record<string, string>,
  record: RequestRecord,
  trace: TraceIds,
): Record<string, string> {
  record.addUpstreamHeaders(base);
  const rateLimits = record.rateLimits;
  if (rateLimits) { for (const name in rateLimits) base[name] = rateLimits[name]; }
  const admission = record.admission?.headers;
  if (admission) { for (const name in admission) base[name] = admission[name]; }
  return traceResponseHeaders(trace, base);
}
