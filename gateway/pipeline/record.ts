/**
 * What the gateway learns about one request as it goes through the pipeline (pipeline.ts): who asked, where
 * it was routed, the attempts, the key's admission, the usage, how a stream ended, the spans. Everything
 * that is written about a request when it ends reads from here: the `gw-upstream`/`gw-attempts` headers, the
 * access line, the ledger row, the spans' end, the admission's settlement. Format-neutral: an ingress of
 * another wire format fills and reads the same record.
 */
import { GatewayError } from "../errors.ts";
import type { IngressAnswer, IngressFormat } from "../ingress.ts";
import type { Admission } from "../limits/enforcer.ts";
import type { StreamOutcome } from "../messages/stream_pipe.ts";
import { type Message, type Usage, usageOf } from "../messages/types.ts";
import type { PriceTable } from "../pricing.ts";
import { RawJson } from "../providers/contract.ts";
import { topLevelValue } from "../providers/json_peek.ts";
import { parseTarget } from "../target.ts";
import type { RequestSpans } from "../tracing.ts";
import type { AttemptRecord } from "../upstream/attempts.ts";
import type { TokenCharge } from "../upstream/deployments.ts";
import type { UsageRow } from "../usage/ledger.ts";

/** What the ledger needs once the key is known. */
export interface LedgerFacts {
  keyId: string;
  /** The model name the client asked for. */
  model: string;
  stream: boolean;
  traceId: string;
}

/** The usage of a whole (non-streamed) answer. */
export function usageOfAnswer(message: Message | RawJson): Usage | undefined {
  const usage = message instanceof RawJson ? topLevelValue(message.text, "usage") : message.usage;
  return usage && typeof usage === "object" ? usageOf(usage as Partial<Usage>) : undefined;
}

/** One request's record, from its arrival to its access line. */
export class RequestRecord {
  /** The `request-id` answered. */
  readonly requestId: string;
  /** The path it came on. */
  readonly path: string;
  /** The API format it came in, when not the Messages API. */
  readonly format?: IngressFormat;
  /** How the answer reaches a client of another API format (absent: the Messages API). */
  answer?: IngressAnswer;
  /** `performance.now()` at arrival (durations). */
  readonly started: number = performance.now();
  /** Epoch ms at arrival (the ledger's time). */
  readonly at: number = Date.now();
  /** True once a stream response exists: its line is written when the stream ends. */
  streaming = false;
  /** True once the access line is written. */
  logged = false;
  /** True once the response has ended (usage settled). */
  settled = false;
  /** How the stream ended, once it has. */
  end?: StreamOutcome;
  /** Every upstream attempt. */
  attempts?: AttemptRecord[];
  /** The `provider/model` that answered. */
  upstream?: string;
  /** The `provider/model` routed to first. */
  target?: string;
  /** The answering upstream's rate limits as `anthropic-ratelimit-*` (upstream/rate_limits.ts). */
  rateLimits?: Record<string, string>;
  /** The answering deployment's `tpm` count (corrected when the response ends). */
  charge?: TokenCharge;
  /** A key's admission (settled when the response ends). */
  admission?: Admission;
  /** The tokens the upstream reported. */
  usage?: Usage;
  /** What the ledger needs, once the key is known. */
  ledger?: LedgerFacts;
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

  constructor(requestId: string, path: string, format?: IngressFormat) {
    this.requestId = requestId;
    this.path = path;
    this.format = format;
  }

  /** True when someone needs the answer's usage (a key with limits, the ledger, tracing). */
  needsUsage(ledgerOn: boolean): boolean {
    return !!(this.admission?.charges || (ledgerOn && this.ledger) || this.spans || this.charge);
  }

  /** Settles the admission with what the upstream reported (nothing when it never answered). */
  settle(): void {
    this.admission?.settle(this.usage, this.upstream ?? this.target ?? "");
    if (this.charge) {
      this.charge.settle(this.usage);
      this.charge = undefined; // once, however many ways the end is reported
    }
    this.settled = true;
    if (this.spans) this.endSpans();
  }

  /** Ends the spans once the request has settled and a traced stream's text has all been seen. */
  endSpans(): void {
    if (!this.settled || this.tap?.open) return;
    const errorType = this.end?.outcome === "upstream_error"
      ? this.end.errorType ?? "api_error"
      : this.errorType;
    this.spans!.end({
      served: this.upstream,
      usage: this.usage,
      errorType,
      completion: () => this.tap ? [{ type: "text", text: this.tap.text.join("") }] : this.completion,
    });
  }

  /** The request failed before a response existed (or before its stream reached the client). */
  failed(error: unknown): void {
    this.streaming = false;
    this.errorType = error instanceof GatewayError ? error.type : "api_error";
    this.tap = undefined;
    this.settle();
  }

  /** Adds `gw-upstream` (who answered; a stream: whose headers were accepted) and `gw-attempts` to `headers`. */
  addUpstreamHeaders(headers: Record<string, string>): void {
    if (this.upstream) headers["gw-upstream"] = this.upstream;
    if (this.attempts) headers["gw-attempts"] = String(this.attempts.length);
  }

  /** Milliseconds since arrival, to the hundredth (the access line's and the ledger's latency). */
  durationMs(): number {
    return Math.round((performance.now() - this.started) * 100) / 100;
  }

  /** The access line's fields; a stream's carries its outcome. */
  accessFields(status: number, end?: StreamOutcome): Record<string, unknown> {
    const fields: Record<string, unknown> = {
      request_id: this.requestId,
      method: "POST",
      route: this.path,
      path: this.path,
      status,
      duration_ms: this.durationMs(),
    };
    if (this.upstream) fields.upstream = this.upstream;
    if (this.format) fields.ingress = this.format;
    // Every attempt is recorded when there was more than the one that answered.
    if (this.attempts && (this.attempts.length > 1 || !this.upstream)) fields.attempts = this.attempts;
    if (end) {
      fields.outcome = end.outcome;
      if (end.errorType) fields.error_type = end.errorType;
    }
    return fields;
  }

  /** The ledger's row (only once the key is known: `ledger` is set). */
  ledgerRow(status: number, latencyMs: number, prices: PriceTable, end?: StreamOutcome): UsageRow {
    const facts = this.ledger!;
    const served = this.upstream ?? this.target;
    const usage = this.usage;
    const cost = usage && served ? prices.cost(served, usage) : { usd: 0, priced: true };
    const named = served ? parseTarget(served) : undefined;
    return {
      at: this.at,
      key_id: facts.keyId,
      model: facts.model,
      provider: named?.provider ?? null,
      served_model: named?.model ?? null,
      attempts: this.attempts?.length ?? 0,
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      cache_read_tokens: usage?.cache_read_input_tokens ?? 0,
      cache_write_tokens: usage?.cache_creation_input_tokens ?? 0,
      cost_usd: cost.usd,
      status: end?.outcome === "upstream_error" ? 500 : status,
      error_type: end?.errorType ?? this.errorType ?? null,
      latency_ms: latencyMs,
      ttft_ms: this.ttftMs === undefined ? null : Math.round(this.ttftMs * 100) / 100,
      stream: facts.stream ? 1 : 0,
      trace_id: facts.traceId,
      request_id: this.requestId,
      warning: cost.priced ? null : `no price for ${served}; cost counted as 0`,
      ingress: this.format ?? "anthropic",
    };
  }
}
