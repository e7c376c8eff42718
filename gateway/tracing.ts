/**
 * OpenTelemetry spans of the messages route, exported by Deno's built-in OTLP exporter (`OTEL_DENO=true`;
 * Deno registers its providers with `@opentelemetry/api`, so these spans nest under Deno.serve's own server
 * span). One `messages {model}` span per request and, under it, one `chat {model}` client span per upstream
 * attempt, with the GenAI semantic conventions (`gen_ai.request.model`, `gen_ai.response.model`,
 * `gen_ai.usage.*`, `gen_ai.provider.name`) and `gw.trace_id` linking them to the `Gw-Trace-Id` of the logs
 * and the ledger. Prompt and completion text are recorded only with `GATEWAY_TRACE_CONTENT=true`.
 * With OTel off the route holds no tracer at all, so tracing costs it one `undefined` check per request.
 */
import {
  type Attributes,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { Usage } from "./messages/types.ts";
import type { TraceIds } from "./providers/contract.ts";
import { parseTarget } from "./target.ts";

/** Instrumentation scope name of the gateway's spans. */
export const TRACER_NAME = "switchyard-gateway";

/** What one request tells its spans when it starts. */
export interface RequestStart {
  /** The model the client asked for. */
  model: string;
  /** `max_tokens` of the request. */
  maxTokens: number;
  /** A streamed request. */
  stream: boolean;
  /** The key's id (not a secret: the hash's label). */
  keyId: string;
  /** `Gw-Trace-Id` and `Gw-Thread-Id`. */
  trace: TraceIds;
  /** The prompt (the request's system and messages: no copy), serialized only when content is traced. */
  prompt: { readonly system?: unknown; readonly messages: unknown };
}

/** How one request ended. */
export interface RequestEnd {
  /** `provider/model` that answered, if any. */
  served?: string;
  /** Tokens the upstream reported. */
  usage?: Usage;
  /** Anthropic error type of a failed request. */
  errorType?: string;
  /** The completion's content blocks (only read when content is traced). */
  completion?: () => unknown;
}

/** The span of one upstream attempt. */
export interface AttemptSpan {
  /** Ends the attempt as failed. */
  fail(errorType: string): void;
}

/** The spans of one request. */
export interface RequestSpans {
  /** Opens the span of attempt `index` (1-based) to `target` (`provider/model`). */
  attempt(target: string, index: number): AttemptSpan;
  /** Ends the answering attempt's span and the request's; later calls do nothing. */
  end(result: RequestEnd): void;
  /** Whether prompt and completion text are recorded (callers then keep the completion). */
  readonly content: boolean;
}

/** Creates the spans of each request. */
export interface GatewayTracer {
  /** Starts the request span (under the active context: Deno.serve's span). */
  request(start: RequestStart): RequestSpans;
}

function splitTarget(target: string): [string, string] {
  const parsed = parseTarget(target);
  return parsed ? [parsed.provider, parsed.model] : ["", target];
}

/**
 * The attributes an answer adds to a span (who served, the usage), in `into`, in the order the spans have
 * always carried them. Filled into the one object the span's `setAttributes` then reads (each attribute
 * object costs an entries array and native calls by three: no copies, no separate calls per attribute).
 */
function addAnswered(into: Attributes, result: RequestEnd, served: [string, string] | undefined): Attributes {
  if (served) {
    into["gen_ai.provider.name"] = served[0];
    into["gen_ai.response.model"] = served[1];
  }
  const usage = result.usage;
  if (usage) {
    into["gen_ai.usage.input_tokens"] = usage.input_tokens + usage.cache_read_input_tokens +
      usage.cache_creation_input_tokens;
    into["gen_ai.usage.output_tokens"] = usage.output_tokens;
    into["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read_input_tokens;
    into["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_creation_input_tokens;
  }
  return into;
}

/**
 * Ends `span` with `attributes` (set in one call), failed with `errorType` when given: `error.type` last and
 * an ERROR status whose message is the type.
 */
function endWith(span: Span, attributes: Attributes, errorType: string | undefined): void {
  if (errorType) attributes["error.type"] = errorType;
  span.setAttributes(attributes);
  if (errorType) span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  span.end();
}

/** One upstream attempt's span; `fail` ends it (once the request's `end` has not already). */
class Attempt implements AttemptSpan {
  readonly span: Span;
  #owner: Spans;

  constructor(span: Span, owner: Spans) {
    this.span = span;
    this.#owner = owner;
  }

  fail(errorType: string): void {
    this.#owner.closed(this);
    endWith(this.span, {}, errorType);
  }
}

/** One request's spans (see the module comment). */
class Spans implements RequestSpans {
  readonly content: boolean;
  #tracer: Tracer;
  #request: Span;
  #model: string;
  #maxTokens: number;
  #traceId: string;
  #open: Attempt | undefined;
  #attempts = 0;
  #ended = false;
  /** The prompt's attributes, serialized once (content traced only). */
  #prompt: Attributes | undefined;

  constructor(tracer: Tracer, start: RequestStart, content: boolean) {
    this.content = content;
    this.#tracer = tracer;
    this.#model = start.model;
    this.#maxTokens = start.maxTokens;
    this.#traceId = start.trace.traceId;
    const attributes: Attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": start.model,
      "gen_ai.request.max_tokens": start.maxTokens,
      "gw.stream": start.stream,
      "gw.key_id": start.keyId,
      "gw.trace_id": start.trace.traceId,
    };
    if (start.trace.threadId) attributes["gw.thread_id"] = start.trace.threadId;
    // A signed-in person or a CI repository (gateway/identity/): the principal, never its token.
    if (start.keyId.includes(":")) attributes["gw.principal"] = start.keyId;
    if (content) {
      // The GenAI conventions put the prompt on each inference (attempt) span: serialized once here.
      const prompt = start.prompt;
      this.#prompt = { "gen_ai.input.messages": JSON.stringify(prompt.messages) };
      if (prompt.system !== undefined) {
        this.#prompt["gen_ai.system_instructions"] = JSON.stringify(prompt.system);
      }
    }
    this.#request = tracer.startSpan(`messages ${start.model}`, { kind: SpanKind.INTERNAL, attributes });
  }

  attempt(target: string, index: number): AttemptSpan {
    this.#attempts = Math.max(this.#attempts, index);
    const [provider, model] = splitTarget(target);
    const attributes: Attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": provider,
      "gen_ai.request.model": model,
      "gen_ai.request.max_tokens": this.#maxTokens,
      "gw.attempt": index,
      "gw.trace_id": this.#traceId,
    };
    if (this.#prompt) Object.assign(attributes, this.#prompt);
    const span = this.#tracer.startSpan(
      `chat ${model}`,
      { kind: SpanKind.CLIENT, attributes },
      // The parent is all a span's start reads of its context: no look-up of the active one per attempt.
      trace.setSpan(ROOT_CONTEXT, this.#request),
    );
    return this.#open = new Attempt(span, this);
  }

  /** `attempt` has ended on its own (failed): the request's end leaves it alone. */
  closed(attempt: Attempt): void {
    if (this.#open === attempt) this.#open = undefined;
  }

  end(result: RequestEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    const served = result.served ? splitTarget(result.served) : undefined;
    const open = this.#open;
    this.#open = undefined;
    if (open) {
      const attributes = addAnswered({}, result, served);
      const completion = this.content ? result.completion?.() : undefined;
      if (completion !== undefined) {
        attributes["gen_ai.output.messages"] = JSON.stringify([{ role: "assistant", content: completion }]);
      }
      endWith(open.span, attributes, result.errorType);
    }
    const attributes = addAnswered({}, result, served);
    attributes["gw.attempts"] = this.#attempts;
    endWith(this.#request, attributes, result.errorType);
  }
}

/** The tracer of the messages route; `content` records prompt and completion text. */
export function createGatewayTracer(options: { content: boolean }): GatewayTracer {
  // One tracer for the process: `trace.getTracer` made a tracer (a native object) per span.
  let tracer: Tracer | undefined;
  return { request: (start) => new Spans(tracer ??= trace.getTracer(TRACER_NAME), start, options.content) };
}
