import assert from "node:assert/strict";
import { canonicalLoopbackUrl } from "./http.ts";

Deno.test("a console request on another loopback name of its origin is sent to the configured origin", () => {
  const origin = "http://127.0.0.1:37961";
  assert.equal(
    canonicalLoopbackUrl(new URL("http://localhost:37961/admin/keys?x=1"), origin),
    "http://127.0.0.1:37961/admin/keys?x=1",
  );
  assert.equal(
    canonicalLoopbackUrl(new URL("http://[::1]:37961/admin"), origin),
    "http://127.0.0.1:37961/admin",
  );
  assert.equal(canonicalLoopbackUrl(new URL("http://127.0.0.1:37961/admin"), origin), undefined);
  // Another port, or a public console, is never redirected (deployed origins are never loopback).
  assert.equal(canonicalLoopbackUrl(new URL("http://localhost:9999/admin"), origin), undefined);
  assert.equal(
    canonicalLoopbackUrl(new URL("http://localhost/admin"), "https://gateway.example.com"),
    undefined,
  );
});
