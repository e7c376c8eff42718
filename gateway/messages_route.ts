/**
 * `POST /v1/messages` and `POST /compat/v1/messages`: the request pipeline (pipeline/pipeline.ts) in the
 * Anthropic Messages format, its canonical one (no ingress: the body is validated as it is, a pass-through
 * provider may forward the client's bytes, answers, streams and errors go out as they come). With an
 * `ingress` (gateway/ingress.ts), the same pipeline serves another API format's paths (gateway/openai/).
 */
import type { Ingress } from "./ingress.ts";
import { createRequestPipeline, type PipelineDeps } from "./pipeline/pipeline.ts";

export { pathOf, providerCall } from "./pipeline/steps.ts";

/** The paths this handler serves (query strings are ignored). */
export const MESSAGES_PATHS: ReadonlySet<string> = new Set(["/v1/messages", "/compat/v1/messages"]);

/** What the messages route needs: the pipeline's dependencies. */
export type MessagesRouteDeps = PipelineDeps;

/**
 * Creates the handler of the two messages paths; with an `ingress`, the handler of that API format's paths
 * (the same pipeline, with the request, answer and errors in the format's own shape).
 */
export function createMessagesRoute(
  deps: MessagesRouteDeps,
  ingress?: Ingress,
): (request: Request, path: string) => Promise<Response> {
  const pipeline = createRequestPipeline(deps);
  return (request, path) => pipeline(request, path, ingress);
}
