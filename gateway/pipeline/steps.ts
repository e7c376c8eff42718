/**
 * The pipeline's single steps that need none of its state: routing a validated request into a provider
 * call, the `max_tokens` ceiling, hang-up detection, and the path of a request URL.
 */
import { refuseServerTools } from "../messages/server_tools.ts";
import { invalidRequest } from "../errors.ts";
import { estimateInputTokens } from "../messages/count_tokens.ts";
import type { MessagesRequest } from "../messages/types.ts";
import type { Provider, ProviderCall, TraceIds } from "../providers/contract.ts";
import type { ModelRouter } from "../routing.ts";
import { deadlineTickerFor, type TickerSlot } from "../upstream/ticker.ts";

/** How soon after the request arrived a client that hung up is noticed: within 1–2 periods (well under 100 ms). */
const HANG_UP_CHECK_MS = 20;

/** Listener options of the hang-up watch (one object for every request). */
const ONCE = { once: true } as const;

/**
 * Until the response exists, a client that hangs up aborts the upstream call (a started stream's body
 * cancel does it afterwards). `request.signal` is touched only once a request has been waiting for two ticks
 * of a shared ticker (20–40 ms): Deno.serve then reports a disconnect that happened earlier at once, while
 * quick requests never materialise the signal, which costs ≈ 10 µs each (Deno.serve aborts it after every
 * completed response too). The listener goes as soon as the response exists (`stop`), so that abort cannot
 * reach a connection being drained back to the pool. One object and one closure per request: the watch is
 * its own abort listener.
 */
export class HangUpWatch {
  #request: Request;
  #abort: AbortController;
  #ticks = 0;
  #listening = false;
  #tick = () => this.#onTick();
  #slot: TickerSlot;

  /** Starts watching `request` for the call aborted through `abort`. */
  constructor(request: Request, abort: AbortController) {
    this.#request = request;
    this.#abort = abort;
    this.#slot = deadlineTickerFor(HANG_UP_CHECK_MS).insert(this.#tick);
  }

  #onTick(): void {
    // The first tick can come at once (the shared ticker's phase): under c=32 load a quarter of requests,
    // finished in a few ms, still paid for the signal. The second tick means it has waited a whole period.
    if (++this.#ticks < 2) return;
    deadlineTickerFor(HANG_UP_CHECK_MS).remove(this.#slot);
    this.#listening = true;
    this.#request.signal.addEventListener("abort", this, ONCE);
  }

  /** The client hung up: abort the upstream call. */
  handleEvent(): void {
    this.#abort.abort();
  }

  /** Stops watching (the response exists). */
  stop(): void {
    deadlineTickerFor(HANG_UP_CHECK_MS).remove(this.#slot);
    if (this.#listening) this.#request.signal.removeEventListener("abort", this);
  }
}

/** Watches `request` for a hang-up until the response exists; see {@link HangUpWatch}. */
export function watchHangUp(request: Request, abort: AbortController): HangUpWatch {
  return new HangUpWatch(request, abort);
}

/** The `max_tokens` ceiling for a model whose limit is unknown (no model generates more). */
export const UNKNOWN_MODEL_MAX_TOKENS = 1_000_000;

/** Refuses a `max_tokens` above the model's limit before any upstream call, as Anthropic does. */
export function checkMaxTokens(request: MessagesRequest, limit: number | undefined): void {
  const max = limit ?? UNKNOWN_MODEL_MAX_TOKENS;
  if (request.max_tokens > max) {
    throw invalidRequest(
      `max_tokens: ${request.max_tokens} > ${max}, which is the maximum allowed number of output tokens for ${
        limit === undefined ? "a model whose limit is not configured" : request.model
      }`,
    );
  }
}

/** Routes a validated request and builds its provider call (`rawBody`: the client's canonical bytes). */
export function providerCall(
  router: ModelRouter,
  request: MessagesRequest,
  rawBody: string | undefined,
  trace: TraceIds,
  clientHeaders: Headers,
): { provider: Provider; call: ProviderCall } {
  const route = router.resolve(request.model);
  refuseServerTools(request, route.provider);
  // `abort` ends the upstream call: the client went away (see watchHangUp) or a deadline passed.
  const call: ProviderCall = {
    request,
    rawBody,
    upstreamModel: route.upstreamModel,
    requestedModel: request.model,
    abort: new AbortController(),
    trace,
    clientHeaders,
    inputTokensEstimate: estimateInputTokens(request),
  };
  return { provider: route.provider, call };
}

/** The path of an absolute request URL, without query or fragment (cheaper than `new URL`). */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}
