/**
 * The gateway's Hono application: the Anthropic Messages API at `/v1/...` and `/compat/v1/...` (query
 * strings such as `?beta=true` ignored), API-key auth by `X-API-Key` or `Authorization: Bearer`, tracing
 * headers, and every failure rendered in the Anthropic error envelope with a `request-id` header.
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HEALTH_PATH, healthResponse } from "@switchyard/lib/health.ts";
import { requestId, type RequestIdVariables } from "@switchyard/lib/request_id.ts";
import { isAppError } from "@switchyard/lib/errors.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import type { GatewayConfig } from "./config.ts";
import { errorResponse, GatewayError, invalidRequest } from "./errors.ts";
import { estimateInputTokens } from "./messages/count_tokens.ts";
import { deferStream } from "./messages/deferred_stream.ts";
import { parseJsonBody, validateCountTokensRequest, validateMessagesRequest } from "./messages/validate.ts";
import type { MessagesRequest } from "./messages/types.ts";
import { buildCatalogue, type ModelInfo, pageOf } from "./models.ts";
import { type ProviderCall, RawJson, type TraceIds } from "./providers/contract.ts";
import { createProviders } from "./providers/registry.ts";
import { ModelRouter } from "./routing.ts";

/** Name reported by the health endpoint. */
export const GATEWAY_SERVICE_NAME = "gateway";

/** Largest accepted request body (Anthropic's limit for Messages). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Verifies presented API keys (see keys/verifier.ts). */
export interface KeyCheck {
  /** The key's id when it is active, else null. */
  verify(key: string): Promise<string | null>;
}

/** What the gateway needs from the world. */
export interface GatewayDeps {
  /** Structured logger. */
  logger: Logger;
  /** API key verification. */
  keys: KeyCheck;
  /** Fetch for upstream calls (defaults to the global one). */
  fetch?: typeof fetch;
}

type Variables = RequestIdVariables & { trace: TraceIds; keyId: string };
type Ctx = Context<{ Variables: Variables }>;

const TRACE_ID = /^[\w.:-]{1,128}$/;

function presentedKey(c: Ctx): string | undefined {
  const header = c.req.header("x-api-key");
  if (header) return header.trim();
  const auth = c.req.header("authorization");
  if (auth && /^bearer\s+/i.test(auth)) return auth.replace(/^bearer\s+/i, "").trim();
  return undefined;
}

/** Refuses bodies over the limit, by `content-length` or, for chunked bodies, while reading them. */
const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new GatewayError("request_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);
  },
});

async function readRequestBody(c: Ctx): Promise<{ body: Record<string, unknown>; text: string }> {
  const text = await c.req.text();
  return { body: parseJsonBody(text), text };
}

/** Builds the gateway application. */
export function createGatewayApp(config: GatewayConfig, deps: GatewayDeps): Hono<{ Variables: Variables }> {
  const logger = deps.logger;
  const providers = createProviders(config.providers, {
    fetch: deps.fetch ?? globalThis.fetch,
    pingIntervalMs: config.GATEWAY_PING_INTERVAL_MS,
  });
  const router = new ModelRouter(providers, config.file.aliases ?? {});
  const catalogue: ModelInfo[] = buildCatalogue(config.providers, config.file, (m) => router.routes(m));

  const callFor = (c: Ctx, request: MessagesRequest, rawBody: string) => {
    const route = router.resolve(request.model);
    // Streams abort the upstream when the client cancels the body (stream_pipe.ts). The request's own
    // signal is deliberately not touched: Deno.serve aborts it after every successful response too, and
    // creating that AbortError on each request was the gateway's largest CPU cost in profiles.
    const abort = new AbortController();
    const call: ProviderCall = {
      request,
      rawBody,
      upstreamModel: route.upstreamModel,
      requestedModel: request.model,
      abort,
      trace: c.get("trace"),
      clientHeaders: c.req.raw.headers,
      inputTokensEstimate: estimateInputTokens(request),
    };
    return { provider: route.provider, call };
  };

  const api = new Hono<{ Variables: Variables }>();
  api.use(async (c, next) => {
    const incoming = c.req.header("gw-trace-id");
    const thread = c.req.header("gw-thread-id");
    const trace: TraceIds = {
      traceId: incoming && TRACE_ID.test(incoming)
        ? incoming
        : `trace_${crypto.randomUUID().replaceAll("-", "")}`,
    };
    if (thread && TRACE_ID.test(thread)) trace.threadId = thread;
    c.set("trace", trace);
    await next();
    c.res.headers.set("gw-trace-id", trace.traceId);
    if (trace.threadId) c.res.headers.set("gw-thread-id", trace.threadId);
  });
  api.use(async (c, next) => {
    const key = presentedKey(c);
    if (!key) {
      throw new GatewayError(
        "authentication_error",
        "missing API key: send it as X-API-Key or Authorization: Bearer",
      );
    }
    const id = await deps.keys.verify(key);
    if (!id) throw new GatewayError("authentication_error", "invalid API key");
    c.set("keyId", id);
    await next();
  });

  api.post("/v1/messages", limitBody, async (c) => {
    const { body, text } = await readRequestBody(c);
    const request = validateMessagesRequest(body);
    const { provider, call } = callFor(c, request, text);
    logger.info("messages", {
      request_id: c.get("requestId"),
      trace_id: call.trace.traceId,
      thread_id: call.trace.threadId,
      key_id: c.get("keyId"),
      model: request.model,
      provider: provider.name,
      stream: request.stream === true,
    });
    if (request.stream === true) {
      const body = await deferStream(
        provider.streamMessage(call),
        config.GATEWAY_PING_INTERVAL_MS,
        call.abort,
      );
      return new Response(body, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache",
          "x-accel-buffering": "no",
        },
      });
    }
    const message = await provider.createMessage(call);
    if (message instanceof RawJson) return c.body(message.text, 200, { "content-type": "application/json" });
    return c.json(message);
  });

  api.post("/v1/messages/count_tokens", limitBody, async (c) => {
    const { body, text } = await readRequestBody(c);
    const request = validateCountTokensRequest(body);
    const { provider, call } = callFor(c, request, text);
    return c.json({ input_tokens: await provider.countTokens(call) });
  });

  api.get("/v1/models", (c) => c.json(pageOf(catalogue, new URL(c.req.url).searchParams)));

  api.get("/v1/models/:id{.+}", (c) => {
    let id = c.req.param("id");
    try {
      id = decodeURIComponent(id);
    } catch {
      throw invalidRequest("model id is not valid percent-encoding");
    }
    const found = catalogue.find((m) => m.id === id);
    if (found) return c.json(found);
    if (router.routes(id)) return c.json(buildCatalogue([], { models: [{ id }] }, () => true)[0]);
    throw new GatewayError("not_found_error", `model ${JSON.stringify(id)} was not found`);
  });

  const app = new Hono<{ Variables: Variables }>();
  app.use(requestId({ header: "request-id", logger }));
  app.get(HEALTH_PATH, () => healthResponse(GATEWAY_SERVICE_NAME));
  app.route("/", api);
  app.route("/compat", api);
  app.notFound((c) =>
    errorResponse(
      new GatewayError("not_found_error", `no route for ${c.req.method} ${c.req.path}`),
      c.get("requestId"),
    )
  );
  app.onError((error, c) => {
    const id = c.get("requestId");
    if (error instanceof GatewayError) {
      if (error.status >= 500) logger.warn("gateway error", { request_id: id, error, detail: error.detail });
      return errorResponse(error, id);
    }
    if (isAppError(error) && error.status < 500) {
      return errorResponse(new GatewayError("invalid_request_error", error.message), id);
    }
    logger.error("unhandled error", { request_id: id, error });
    return errorResponse(new GatewayError("api_error", "internal error"), id);
  });
  return app;
}
