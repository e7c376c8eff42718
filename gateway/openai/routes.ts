/**
 * The OpenAI-format endpoints: `POST /openai/v1/chat/completions` and `POST /openai/v1/responses` (also
 * without the `/openai` prefix), served by the messages route's pipeline with the OpenAI ingresses, and
 * `GET /openai/v1/models` listing, in OpenAI's shape, the models the presented key may use. Keys are read
 * from `Authorization: Bearer` or `X-API-Key`, as on the Messages API.
 */
import type { Logger } from "@switchyard/lib/log.ts";
import { GatewayError } from "../errors.ts";
import { createMessagesRoute, type MessagesRouteDeps, pathOf } from "../messages_route.ts";
import type { ModelInfo } from "../models.ts";
import { authenticate, requestIdOf, traceIdsOf, traceResponseHeaders } from "../request_context.ts";
import { renderOpenAiError } from "./errors.ts";
import { chatIngress, type OpenAiIngressDeps, responsesIngress } from "./ingress.ts";
import type { KeyPolicy } from "../limits/policy.ts";

/** The Chat Completions paths. */
export const CHAT_PATHS: ReadonlySet<string> = new Set([
  "/openai/v1/chat/completions",
  "/v1/chat/completions",
]);
/** The Responses paths. */
export const RESPONSES_PATHS: ReadonlySet<string> = new Set(["/openai/v1/responses", "/v1/responses"]);
/** The models list path. */
export const OPENAI_MODELS_PATH = "/openai/v1/models";

/** Seconds since the epoch of an ISO date (the catalogue's `created_at`). */
function epochOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** The catalogue's models `policy` may use, in OpenAI's list shape. */
function modelList(
  catalogue: readonly ModelInfo[],
  policy: KeyPolicy,
  targetOf: (id: string) => string | undefined,
): Record<string, unknown> {
  const allowed = policy.models;
  const ids = catalogue.map((m) => m.id).filter((id) => {
    if (!allowed) return true;
    const target = targetOf(id);
    return allowed.includes(id) || (target !== undefined && allowed.includes(target));
  });
  // A key restricted to models the catalogue does not list still sees them.
  for (const id of allowed ?? []) if (!ids.includes(id) && targetOf(id) !== undefined) ids.push(id);
  const created = new Map(catalogue.map((m) => [m.id, epochOf(m.created_at)]));
  return {
    object: "list",
    data: ids.map((id) => ({
      id,
      object: "model",
      created: created.get(id) ?? 0,
      owned_by: targetOf(id)?.split("/")[0] ?? "switchyard",
    })),
  };
}

async function listModels(
  request: Request,
  deps: MessagesRouteDeps,
  catalogue: readonly ModelInfo[],
  logger: Logger,
): Promise<Response> {
  const requestId = requestIdOf(request.headers);
  const trace = traceIdsOf(request.headers);
  try {
    const policy = await authenticate(deps.keys, request.headers);
    const targetOf = (id: string) => {
      try {
        const route = deps.router.resolve(id);
        return `${route.provider.name}/${route.upstreamModel}`;
      } catch {
        return undefined;
      }
    };
    return new Response(JSON.stringify(modelList(catalogue, policy, targetOf)), {
      headers: traceResponseHeaders(trace, { "content-type": "application/json", "request-id": requestId }),
    });
  } catch (error) {
    return renderOpenAiError(error, requestId, logger, traceResponseHeaders(trace, {}));
  }
}

/** `GET /openai/v1/models/{id}`: one model the key may use, in OpenAI's shape; 404 otherwise. */
async function oneModel(request: Request, rawId: string, deps: MessagesRouteDeps): Promise<Response> {
  const requestId = requestIdOf(request.headers);
  const trace = traceIdsOf(request.headers);
  try {
    const policy = await authenticate(deps.keys, request.headers);
    let id: string;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      throw new GatewayError("invalid_request_error", "model id is not valid percent-encoding");
    }
    let target: string | undefined;
    try {
      const route = deps.router.resolve(id);
      target = `${route.provider.name}/${route.upstreamModel}`;
    } catch {
      target = undefined;
    }
    const allowed = !policy.models || policy.models.includes(id) ||
      (target && policy.models.includes(target));
    if (!target || !allowed) {
      throw new GatewayError("not_found_error", `model ${JSON.stringify(id)} was not found`);
    }
    const body = { id, object: "model", created: 0, owned_by: target.split("/")[0] };
    return new Response(JSON.stringify(body), {
      headers: traceResponseHeaders(trace, { "content-type": "application/json", "request-id": requestId }),
    });
  } catch (error) {
    return renderOpenAiError(error, requestId, deps.logger, traceResponseHeaders(trace, {}));
  }
}

/**
 * The handler of the OpenAI-format paths: a response for one of them (a wrong method is a 405 in OpenAI's
 * shape), undefined for any other path.
 */
export function createOpenAiRoutes(
  deps: MessagesRouteDeps,
  ingressDeps: OpenAiIngressDeps,
  catalogue: readonly ModelInfo[],
): (request: Request) => Promise<Response> | undefined {
  const chat = createMessagesRoute(deps, chatIngress(ingressDeps));
  const responses = createMessagesRoute(deps, responsesIngress(ingressDeps));
  return (request) => {
    const path = pathOf(request.url);
    const method = request.method;
    if (CHAT_PATHS.has(path)) {
      return method === "POST" ? chat(request, path) : notAllowed(request, deps.logger);
    }
    if (RESPONSES_PATHS.has(path)) {
      return method === "POST" ? responses(request, path) : notAllowed(request, deps.logger);
    }
    if (method !== "GET" || !path.startsWith(OPENAI_MODELS_PATH)) return undefined;
    if (path === OPENAI_MODELS_PATH) return listModels(request, deps, catalogue, deps.logger);
    if (path[OPENAI_MODELS_PATH.length] === "/") {
      return oneModel(request, path.slice(OPENAI_MODELS_PATH.length + 1), deps);
    }
    return undefined;
  };
}

function notAllowed(request: Request, logger: Logger): Promise<Response> {
  const error = new GatewayError(
    "invalid_request_error",
    `method ${request.method} is not allowed here; use POST`,
    {
      status: 405,
    },
  );
  return Promise.resolve(renderOpenAiError(error, requestIdOf(request.headers), logger, { allow: "POST" }));
}
