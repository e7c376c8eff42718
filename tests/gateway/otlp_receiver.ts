/**
 * A loopback OTLP/HTTP receiver for tests: accepts `POST /v1/traces` in the JSON encoding
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`, which Deno's exporter supports) and keeps every span with its
 * attributes flattened to plain values. Other signals (metrics, logs) are accepted and ignored.
 */
import { startServer } from "@switchyard/lib/serve.ts";

/** One received span. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  status?: { code?: number; message?: string };
}

/** A running receiver. */
export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Spans received so far. */
  spans: ReceivedSpan[];
  /** Raw request bodies of /v1/traces, for assertions over everything exported. */
  bodies: string[];
  /** Resolves once `predicate` holds of the spans (polls; throws after `timeoutMs`). */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}

function plain(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

interface ExportRequest {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      scope?: { name?: string };
      spans?: Array<{
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        kind?: number;
        attributes?: Array<{ key: string; value: AnyValue }>;
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}

/** Starts the receiver on 127.0.0.1, port 0. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = await startServer(async (request) => {
    const text = await request.text();
    if (new URL(request.url).pathname === "/v1/traces") {
      bodies.push(text);
      const body = JSON.parse(text) as ExportRequest;
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              name: span.name,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? "",
              kind: span.kind ?? 0,
              scope: scope.scope?.name ?? "",
              attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, plain(a.value)])),
              status: span.status,
            });
          }
        }
      }
    }
    return new Response("{}", { headers: { "content-type": "application/json" } });
  }, { port: 0 });
  return {
    url: server.url,
    spans,
    bodies,
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline) {
          throw new Error(`spans not received in time; got ${spans.map((s) => s.name).join(", ")}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return spans;
    },
    close: () => server.shutdown(),
  };
}
