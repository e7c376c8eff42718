import { deepStrictEqual as assertEquals } from "node:assert/strict";
import {
  DEFAULT_OVERLOADED_RETRY_S,
  DEFAULT_RATE_LIMIT_RETRY_S,
  durationMs,
  rateLimitHeadersOf,
  retryAfterOf,
} from "./rate_limits.ts";

Deno.test("durationMs reads OpenAI-style durations and refuses garbage", () => {
  assertEquals(durationMs("1s"), 1000);
  assertEquals(durationMs("6m0s"), 360_000);
  assertEquals(durationMs("59.5ms"), 59.5);
  assertEquals(durationMs("1h2m3.5s"), 3_723_500);
  assertEquals(durationMs("7"), 7000);
  assertEquals(durationMs("soon"), undefined);
  assertEquals(durationMs("1s garbage"), undefined);
  assertEquals(durationMs(""), undefined);
});

Deno.test("retryAfterOf: the upstream's hint first, else a default per kind, never below 1 s", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  assertEquals(retryAfterOf(429, new Headers({ "retry-after": "7" })), "7");
  assertEquals(retryAfterOf(429, new Headers({ "retry-after-ms": "1500" })), "2");
  assertEquals(retryAfterOf(429, new Headers({ "retry-after": "0" })), "1");
  assertEquals(
    retryAfterOf(429, new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:09 GMT" }), undefined, now),
    "9",
  );
  const gemini = {
    error: {
      code: 429,
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" }],
    },
  };
  assertEquals(retryAfterOf(429, new Headers(), gemini), "37");
  const exhausted = new Headers({
    "x-ratelimit-remaining-requests": "12",
    "x-ratelimit-reset-requests": "1s",
    "x-ratelimit-remaining-tokens": "0",
    "x-ratelimit-reset-tokens": "6m0s",
  });
  assertEquals(retryAfterOf(429, exhausted), "360");
  assertEquals(retryAfterOf(429, new Headers()), String(DEFAULT_RATE_LIMIT_RETRY_S));
  assertEquals(retryAfterOf(529, new Headers()), String(DEFAULT_OVERLOADED_RETRY_S));
  assertEquals(retryAfterOf(429, new Headers({ "retry-after": "999999" })), "3600");
  assertEquals(retryAfterOf(400, new Headers()), undefined);
});

Deno.test("rateLimitHeadersOf passes Anthropic's through and synthesises them from x-ratelimit-*", () => {
  const anthropic = new Headers({
    "anthropic-ratelimit-requests-limit": "50",
    "anthropic-ratelimit-requests-remaining": "0",
    "x-ratelimit-limit-requests": "999",
    "content-type": "application/json",
  });
  assertEquals(rateLimitHeadersOf(anthropic), {
    "anthropic-ratelimit-requests-limit": "50",
    "anthropic-ratelimit-requests-remaining": "0",
  });
  const now = Date.parse("2026-01-01T00:00:00Z");
  const openai = new Headers({
    "x-ratelimit-limit-requests": "500",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "12s",
    "x-ratelimit-limit-tokens": "30000",
    "x-ratelimit-remaining-tokens": "29000",
    "x-ratelimit-reset-tokens": "2m0s",
  });
  assertEquals(rateLimitHeadersOf(openai, now), {
    "anthropic-ratelimit-requests-limit": "500",
    "anthropic-ratelimit-requests-remaining": "0",
    "anthropic-ratelimit-requests-reset": "2026-01-01T00:00:12Z",
    "anthropic-ratelimit-tokens-limit": "30000",
    "anthropic-ratelimit-tokens-remaining": "29000",
    "anthropic-ratelimit-tokens-reset": "2026-01-01T00:02:00Z",
  });
  assertEquals(rateLimitHeadersOf(new Headers({ "x-ratelimit-limit-requests": "lots" })), {});
});
