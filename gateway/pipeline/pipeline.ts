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
import type { PriceTable } from "../pricing.ts";
import { type Provider, type ProviderCall, RawJson, type TraceIds } from "../providers/contract.ts";
import { topLevelValue } from "../providers/json_peek.ts";
import {
  authenticate,
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
import type { UpstreamAttempts } from "../upstream/attempts.ts";
import type { UsageLedger } from "../usage/ledger.ts";
import { RequestRecord, usageOfAnswer } from "./record.ts";
import { checkMaxTokens, providerCall, watchHangUp } from "./steps.ts";

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

/** Creates the pipeline. */
export function createRequestPipeline(deps: PipelineDeps): RequestPipeline {
  const { logger } = deps;

  /** Key, body, parse, route, checks, limits and spans: everything before the first upstream byte. */
  const admit = async (
    request: Request,
    record: RequestRecord,
    trace: TraceIds,
    ingress: Ingress | undefined,
  ): Promise<Admitted> => {
    // The body read (an async op) starts first and runs while the key is checked.
    const reading = readBodyText(request, deps.bodyTimeoutMs);
    reading.catch(ignore); // a refused key is reported first; its body error is not unhandled
    const policy = await authenticate(deps.keys, request.headers);
    const text = await reading;
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
    parsed?.fitMaxTokens(deps.maxTokensOf?.(body.model, target));
    checkMaxTokens(body, deps.maxTokensOf?.(body.model, target));
    deps.limits.checkModel(policy, body.model, target);
    record.admission = deps.limits.admitAtOnce(policy) ?? await deps.limits.admit(policy, {
      inputTokens: call.inputTokensEstimate,
      maxTokens: body.max_tokens,
      target,
    });
    record.spans = deps.tracer?.request({
      model: body.model,
      maxTokens: body.max_tokens,
      stream,
      keyId: policy.id,
      trace,
      prompt: () => ({ system: body.system, messages: body.messages }),
    });
    logger.info("messages", {
      request_id: record.requestId,
      trace_id: trace.traceId,
      thread_id: trace.threadId,
      key_id: policy.id,
      model: body.model,
      provider: provider.name,
      stream,
    });
    return { provider, call, stream };
  };

  const respond = async (
    request: Request,
    record: RequestRecord,
    trace: TraceIds,
    ingress: Ingress | undefined,
  ): Promise<Response> => {
    const admitted = await admit(request, record, trace, ingress);
    const { call, stream } = admitted;
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
    const stopWatching = watchHangUp(request, call.abort);
    try {
      return await (stream ? streamed(admitted, record, trace) : whole(admitted, record, trace));
    } finally {
      stopWatching();
    }
  };

  /** Runs the attempts (route, then fallbacks); the record keeps them; failure throws the last error. */
  const attempt = async <T>(
    { call, provider }: Admitted,
    record: RequestRecord,
    run: (provider: Provider, call: ProviderCall) => Promise<T>,
  ): Promise<T> => {
    const spans = record.spans;
    const result = await deps.attempts.run(
      call,
      provider,
      // A fallback to a provider that cannot run a server tool is refused, never sent without it.
      (p, c) => {
        if (p !== provider) refuseServerTools(c.request, p);
        return run(p, c);
      },
      spans && ((target, index) => spans.attempt(target, index)),
    );
    record.attempts = result.attempts;
    if (result.ok) {
      record.upstream = result.target;
      return result.value;
    }
    throw result.error;
  };

  const streamed = async (admitted: Admitted, record: RequestRecord, trace: TraceIds): Promise<Response> => {
    const { call } = admitted;
    const via = record.answer;
    const upstream = attempt(admitted, record, (p, c) => via ? via.streamMessage(p, c) : p.streamMessage(c));
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
    return new Response(events, {
      headers: traceResponseHeaders(trace, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
        "request-id": record.requestId,
        ...record.upstreamHeaders(),
        ...record.rateLimits,
        ...record.admission?.headers,
      }),
    });
  };

  const whole = async (admitted: Admitted, record: RequestRecord, trace: TraceIds): Promise<Response> => {
    const via = record.answer;
    const message = await attempt(
      admitted,
      record,
      (p, c) => via ? via.createMessage(p, c) : p.createMessage(c),
    );
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
    return new Response(text, {
      headers: traceResponseHeaders(trace, {
        "content-type": "application/json",
        "request-id": record.requestId,
        ...record.upstreamHeaders(),
        ...record.rateLimits,
        ...record.admission?.headers,
      }),
    });
  };

  /** Writes the access line (a warning when a stream's upstream failed) and the ledger row. */
  const finish = (record: RequestRecord, status: number, end?: StreamOutcome) => {
    const fields = record.accessFields(status, end);
    if (end?.outcome === "upstream_error") logger.warn("request", fields);
    else logger.info("request", fields);
    if (deps.ledger && record.ledger) {
      deps.ledger.record(record.ledgerRow(status, fields.duration_ms as number, deps.prices, end));
    }
  };

  const logStreamOnce = (record: RequestRecord) => {
    if (record.logged) return;
    record.logged = true;
    finish(record, 200, record.end);
  };

  return async (request, path, ingress) => {
    const record = new RequestRecord(requestIdOf(request.headers), path, ingress?.format);
    const trace = traceIdsOf(request.headers);
    let response: Response;
    try {
      response = await respond(request, record, trace, ingress);
    } catch (error) {
      record.failed(error);
      const headers = traceResponseHeaders(trace, { ...record.admission?.headers });
      response = (ingress?.renderError ?? renderError)(error, record.requestId, logger, headers);
    }
    // A stream's line waits for the stream's end (see `onStreamEnd`), so it can say how the stream ended.
    if (!record.streaming) finish(record, response.status);
    return response;
  };
}
