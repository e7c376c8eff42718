import { DEFAULT_OVERLOADED_RETRY_S, DEFAULT_RATE_LIMIT_RETRY_S } from "./upstream/rate_limits.ts";
import assert from "node:assert/strict";
import { errorResponse, GatewayError, retryAfterFrom, upstreamHttpError } from "./errors.ts";

Deno.test("upstream failures are mapped onto Anthropic types without passing the body through", async () => {
  const cases: Array<[number, string, number]> = [
    [400, "invalid_request_error", 400],
    [401, "api_error", 502],
    [403, "permission_error", 403],
    [404, "not_found_error", 404],
    [413, "request_too_large", 413],
    [429, "rate_limit_error", 429],
    [500, "api_error", 500],
    [503, "overloaded_error", 529],
    [504, "timeout_error", 504],
  ];
  for (const [upstream, type, status] of cases) {
    const body = JSON.stringify({ error: { message: "upstream says no", secret_field: "sk-live-123" } });
    const error = await upstreamHttpError("openai", new Response(body, { status: upstream }), (t) => t);
    assert.equal(error.type, type, `upstream ${upstream}`);
    assert.equal(error.status, status, `upstream ${upstream}`);
    const rendered = await errorResponse(error, "req_1").text();
    assert.ok(!rendered.includes("sk-live-123"), "upstream bodies never reach the client");
    assert.deepEqual(Object.keys(JSON.parse(rendered)), ["type", "error", "request_id"]);
  }
});

Deno.test("retry-after comes from retry-after-ms, seconds or an HTTP date, defaulting per kind on 429 / 529", async () => {
  assert.equal(retryAfterFrom(new Headers({ "retry-after-ms": "1500" })), "2");
  assert.equal(retryAfterFrom(new Headers({ "retry-after": "7" })), "7");
  const date = new Date(Date.now() + 10_000).toUTCString();
  assert.ok(["9", "10", "11"].includes(retryAfterFrom(new Headers({ "retry-after": date }))!));
  const error = await upstreamHttpError("gemini", new Response("{}", { status: 429 }), (t) => t);
  assert.equal(
    error.retryAfter,
    undefined,
    "no stated delay: the gateway's own retries do not wait a default",
  );
  assert.equal(errorResponse(error).headers.get("retry-after"), String(DEFAULT_RATE_LIMIT_RETRY_S));
  const overloaded = await upstreamHttpError(
    "anthropic",
    Response.json({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, {
      status: 529,
      headers: { "anthropic-ratelimit-requests-remaining": "3" },
    }),
    (t) => t,
  );
  assert.equal(overloaded.type, "overloaded_error");
  assert.equal(errorResponse(overloaded).headers.get("retry-after"), String(DEFAULT_OVERLOADED_RETRY_S));
  assert.equal(overloaded.retryable, true);
  assert.deepEqual(overloaded.headers, { "anthropic-ratelimit-requests-remaining": "3" });
  const notLimited = await upstreamHttpError("openai", new Response("{}", { status: 400 }), (t) => t);
  assert.equal(notLimited.retryAfter, undefined);
  const response = errorResponse(
    new GatewayError("rate_limit_error", "slow down", { retryAfter: "3" }),
    "req_2",
  );
  assert.equal(response.headers.get("retry-after"), "3");
  assert.equal(response.headers.get("request-id"), "req_2");
});
