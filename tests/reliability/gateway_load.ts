/**
 * Gateway load for the reliability scenarios: a client that sends a Messages request (streaming or not),
 * reads the whole answer and classifies it — complete (a JSON message, or a stream that reached
 * `message_stop`), failed cleanly (refused, reset, a cut stream without `message_stop`, an `error` event,
 * a retryable 5xx envelope) or unclean (anything else: a 500, a broken envelope) — and the entry of the
 * gateway process.
 */

/** The gateway's edge entry, as `deno serve` runs it. */
export const GATEWAY_ENTRY = new URL("../../gateway/main.ts", import.meta.url).pathname;

/** How one request ended. */
export interface GatewayOutcome {
  /** `complete`, `clean` (failed and said so), `refused` (a 4xx the limits gave) or `unclean`. */
  kind: "complete" | "clean" | "refused" | "unclean";
  /** HTTP status (0: no answer). */
  status: number;
  /** The gateway's `request-id` header, when an answer arrived. */
  requestId?: string;
  /** Wall time of the whole request (ms). */
  ms: number;
  /** What went wrong, for unclean outcomes. */
  detail?: string;
}

/** One request to `url` with `key`; `timeoutMs` bounds the whole exchange (a hang counts as unclean). */
export async function sendMessages(
  url: string,
  key: string,
  model: string,
  stream: boolean,
  timeoutMs = 30_000,
): Promise<GatewayOutcome> {
  const started = performance.now();
  // A timer cleared at the end, not AbortSignal.timeout: that one lives (with its request) for timeoutMs.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await exchange(url, key, model, stream, controller.signal, started);
  } finally {
    clearTimeout(timer);
  }
}

async function exchange(
  url: string,
  key: string,
  model: string,
  stream: boolean,
  signal: AbortSignal,
  started: number,
): Promise<GatewayOutcome> {
  const ms = () => performance.now() - started;
  let response: Response;
  try {
    response = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ model, max_tokens: 64, stream, messages: [{ role: "user", content: "Hi" }] }),
      signal,
    });
  } catch (error) {
    if (signal.aborted) {
      return { kind: "unclean", status: 0, ms: ms(), detail: "no answer before the deadline" };
    }
    return { kind: "clean", status: 0, ms: ms(), detail: String(error) };
  }
  const requestId = response.headers.get("request-id") ?? undefined;
  let text: string;
  try {
    text = await response.text();
  } catch {
    if (signal.aborted) {
      return { kind: "unclean", status: response.status, requestId, ms: ms(), detail: "body hung" };
    }
    // A cut stream: the client sees no message_stop and knows the answer is incomplete.
    return { kind: "clean", status: response.status, requestId, ms: ms(), detail: "cut" };
  }
  const status = response.status;
  if (status === 200 && stream) {
    if (text.includes("event: message_stop")) return { kind: "complete", status, requestId, ms: ms() };
    if (text.includes("event: error")) {
      return { kind: "clean", status, requestId, ms: ms(), detail: "error event" };
    }
    return { kind: "clean", status, requestId, ms: ms(), detail: "stream ended early" };
  }
  let body: { type?: string; content?: unknown[]; error?: { type?: string; message?: string } } | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: "unclean", status, requestId, ms: ms(), detail: `not JSON: ${text.slice(0, 80)}` };
  }
  if (status === 200) {
    return Array.isArray(body?.content)
      ? { kind: "complete", status, requestId, ms: ms() }
      : { kind: "unclean", status, requestId, ms: ms(), detail: "200 without content" };
  }
  if (body?.type !== "error" || !body.error?.type) {
    return { kind: "unclean", status, requestId, ms: ms(), detail: "no error envelope" };
  }
  if (status === 402 || status === 429) return { kind: "refused", status, requestId, ms: ms() };
  // The gateway's table gives an upstream that answered nonsense `api_error` (500), naming the upstream.
  const upstreamFailed = status === 500 && /^upstream provider /.test(body.error.message ?? "");
  if (status === 503 || status === 529 || status === 502 || status === 504 || upstreamFailed) {
    return { kind: "clean", status, requestId, ms: ms(), detail: body.error.type };
  }
  return { kind: "unclean", status, requestId, ms: ms(), detail: `${status} ${body.error.type}` };
}
