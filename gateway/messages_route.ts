/**
 * `POST /v1/messages` and `POST /compat/v1/messages`: the Anthropic ingress of the request pipeline
 * (pipeline/pipeline.ts). Anthropic is the pipeline's canonical format, so this adapter only validates the
 * body, lets a pass-through provider forward the client's bytes, and writes answers, streams and errors as
 * they come.
 */
import { parseJsonBody, validateMessagesRequest } from "./messages/validate.ts";
import { RawJson } from "./providers/contract.ts";
import { renderError } from "./request_context.ts";
import { createRequestPipeline, type Ingress, type PipelineDeps } from "./pipeline/pipeline.ts";

/** The paths this handler serves (query strings are ignored). */
export const MESSAGES_PATHS: ReadonlySet<string> = new Set(["/v1/messages", "/compat/v1/messages"]);

/** What the messages route needs: the pipeline's dependencies. */
export type MessagesRouteDeps = PipelineDeps;

/** The Anthropic Messages format: the canonical one, so nothing is translated. */
export const ANTHROPIC_INGRESS: Ingress = {
  parse: (text) => validateMessagesRequest(parseJsonBody(text)),
  forwardsBody: true,
  message: (answer) => answer instanceof RawJson ? answer.text : JSON.stringify(answer),
  stream: (events) => events,
  error: renderError,
};

/** Creates the handler of the two messages paths. */
export function createMessagesRoute(
  deps: MessagesRouteDeps,
): (request: Request, path: string) => Promise<Response> {
  const pipeline = createRequestPipeline(deps);
  return (request, path) => pipeline(request, path, ANTHROPIC_INGRESS);
}
