/**
 * Host rules of `deno task preview` (spec, Errors A): the suite runs as it deploys, and the auth service
 * answers the health endpoint (and built/static files, of which the auth service has none: its pages are
 * server-rendered) for any Host, while pages and auth routes keep local mode's loopback allow-list and its
 * plain-text 403 naming the host and the address to use. `deno task dev` does not use this: there every
 * non-loopback Host is refused, health included (auth/main.ts, auth/edge/guards.ts).
 */
import { healthResponse, isHealthRequest } from "@switchyard/lib/health.ts";
import type { FetchHandler } from "@switchyard/lib/serve.ts";
import { AUTH_SERVICE_NAME } from "../app.tsx";

/** Wraps the auth service's fetch handler with the preview's host rules. */
export function withPreviewHostRules(authFetch: FetchHandler): FetchHandler {
  return (request, info) => {
    if (isHealthRequest(request)) return healthResponse(AUTH_SERVICE_NAME);
    return authFetch(request, info);
  };
}
