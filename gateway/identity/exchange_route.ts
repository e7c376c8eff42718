/**
 * `POST /v1/identity/github-oidc`: a workflow sends `{"token": "<GitHub OIDC token>", "ttl_seconds": n?}` and
 * gets `{"credential", "principal", "expires_at", "token_type": "Bearer"}` — the credential to send as
 * `X-API-Key` or `Authorization: Bearer`. Refusals are Anthropic envelopes: 401 `authentication_error` for
 * a token that does not verify, 403 `permission_error` when no trust rule admits the repository, 503
 * `overloaded_error` when the issuer's keys cannot be read; the token is never echoed or logged.
 */
import { GatewayError, invalidRequest } from "../errors.ts";
import type { GithubOidcExchange } from "./github_oidc.ts";

/** The exchange path. */
export const GITHUB_OIDC_PATH = "/v1/identity/github-oidc";
/** Largest exchange body. */
const MAX_EXCHANGE_BODY = 64 * 1024;

/** Answers one exchange request. */
export async function exchangeGithubOidc(request: Request, exchange: GithubOidcExchange): Promise<Response> {
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > MAX_EXCHANGE_BODY) {
    throw new GatewayError("request_too_large", `the exchange body exceeds ${MAX_EXCHANGE_BODY} bytes`);
  }
  const text = await request.text();
  if (text.length > MAX_EXCHANGE_BODY) {
    throw new GatewayError("request_too_large", `the exchange body exceeds ${MAX_EXCHANGE_BODY} bytes`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidRequest('the body must be JSON: {"token": "<GitHub Actions OIDC token>"}');
  }
  const { token, ttl_seconds: ttl } = (body ?? {}) as Record<string, unknown>;
  if (typeof token !== "string" || !token) {
    throw invalidRequest("token: expected the GitHub Actions OIDC token as a string");
  }
  if (ttl !== undefined && (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < 60)) {
    throw invalidRequest("ttl_seconds: expected an integer of at least 60");
  }
  const result = await exchange.exchange(token, ttl as number | undefined);
  if ("code" in result) {
    if (result.code === "no_rule") throw new GatewayError("permission_error", result.message);
    if (result.code === "issuer_unreachable") {
      throw new GatewayError("overloaded_error", result.message, { status: 503, retryAfter: "1" });
    }
    throw new GatewayError("authentication_error", result.message);
  }
  return Response.json({
    credential: result.credential,
    token_type: "Bearer",
    principal: result.principal,
    expires_at: new Date(result.expiresAt).toISOString(),
    expires_in: Math.max(0, Math.floor((result.expiresAt - Date.now()) / 1000)),
  }, { headers: { "cache-control": "no-store" } });
}
