/**
 * OpenTelemetry spans of the messages route, exported by Deno's built-in OTLP exporter (`OTEL_DENO=true`;
 * Deno registers its providers with `@opentelemetry/api`, so these spans nest under Deno.serve's own server
 * span). One `messages {model}` span per request and, under it, one `chat {model}` client span per upstream
 * attempt, with the GenAI semantic conventions (`gen_ai.request.model`, `gen_ai.response.model`,
 * `gen_ai.usage.*`, `gen_ai.provider.name`) and `gw.trace_id` linking them to the `Gw-Trace-Id` of the logs
 * and the ledger. Prompt and completion text are recorded only with `GATEWAY_TRACE_CONTENT=true`.
 * With OTel off the route holds no tracer at all, so tracing costs it one `undefined` check per request.
 */
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
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
  /** The prompt (system and messages), serialized only when content is traced. */
  prompt: () => { system?: unknown; messages: unknown };
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

function usageAttributes(usage: Usage): Attributes {
  return {
    "gen_ai.usage.input_tokens": usage.input_tokens + usage.cache_read_input_tokens +
      usage.cache_creation_input_tokens,
    "gen_ai.usage.output_tokens": usage.output_tokens,
    "gen_ai.usage.cache_read.input_tokens": usage.cache_read_input_tokens,
    "gen_ai.usage.cache_creation.input_tokens": usage.cache_creation_input_tokens,
  };
}

function endFailed(span: Span, errorType: string): void {
  span.setAttribute("error.type", errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  span.end();
}

/** One request's spans (see the module comment). */
class Spans implements RequestSpans {
  readonly content: boolean;
  #request: Span;
  #start: RequestStart;
  #open: { span: Span; target: string } | undefined;
  #attempts = 0;
  #ended = false;
  #prompt: Attributes = {};

  constructor(start: RequestStart, content: boolean) {
    this.content = content;
    this.#start = start;
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
      const prompt = start.prompt();
      this.#prompt["gen_ai.input.messages"] = JSON.stringify(prompt.messages);
      if (prompt.system !== undefined) {
        this.#prompt["gen_ai.system_instructions"] = JSON.stringify(prompt.system);
      }
    }
    this.#request = trace.getTracer(TRACER_NAME).startSpan(`messages ${start.model}`, {
      kind: SpanKind.INTERNAL,
      attributes,
    });
  }

  attempt(target: string, index: number): AttemptSpan {
    this.#attempts = Math.max(this.#attempts, index);
    const [provider, model] = splitTarget(target);
    const span = trace.getTracer(TRACER_NAME).startSpan(
      `chat ${model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": provider,
          "gen_ai.request.model": model,
          "gen_ai.request.max_tokens": this.#start.maxTokens,
          "gw.attempt": index,
          "gw.trace_id": this.#start.trace.traceId,
          ...this.#prompt,
        },
      },
      trace.setSpan(context.active(), this.#request),
    );
    const open = { span, target };
    this.#open = open;
    return {
      fail: (errorType) => {
        if (this.#open === open) this.#open = undefined;
        endFailed(span, errorType);
      },
    };
  }

  end(result: RequestEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    const request = this.#request;
    const answered: Attributes = {};
    if (result.served) {
      const [provider, model] = splitTarget(result.served);
      answered["gen_ai.provider.name"] = provider;
      answered["gen_ai.response.model"] = model;
    }
    if (result.usage) Object.assign(answered, usageAttributes(result.usage));
    const open = this.#open;
    this.#open = undefined;
    if (open) {
      open.span.setAttributes(answered);
      const completion = this.content ? result.completion?.() : undefined;
      if (completion !== undefined) {
        open.span.setAttribute(
          "gen_ai.output.messages",
          JSON.stringify([{ role: "assistant", content: completion }]),
        );
      }
      if (result.errorType) endFailed(open.span, result.errorType);
      else open.span.end();
    }
    request.setAttributes({ ...answered, "gw.attempts": this.#attempts });
    if (result.errorType) endFailed(request, result.errorType);
    else request.end();
  }
}

/** The tracer of the messages route; `content` records prompt and completion text. */
export function createGatewayTracer(options: { content: boolean }): GatewayTracer {
  return { request: (start) => new Spans(start, options.content) };
}
