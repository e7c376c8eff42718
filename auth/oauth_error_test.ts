import assert from "node:assert/strict";
import {
  bearerChallenge,
  invalidClientResponse,
  OAUTH_ERRORS,
  OAuthError,
  oauthError,
} from "./oauth_error.ts";
import { SERVICE_ERRORS, serviceErrorResponse } from "./service_errors.ts";

Deno.test("an OAuth error is answered as no-store JSON with the table's status and the RFC body", async () => {
  const response = oauthError("invalid_grant", "authorization code expired");
  assert.equal(response.status, 400);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.equal(response.headers.get("pragma"), "no-cache");
  assert.equal(response.headers.get("www-authenticate"), null);
  assert.equal(
    await response.text(),
    '{"error":"invalid_grant","error_description":"authorization code expired"}',
  );
});

Deno.test("every code of the table has a 4xx or 5xx status and a defining text", () => {
  for (const [code, entry] of Object.entries(OAUTH_ERRORS)) {
    assert.ok(entry.status >= 400 && entry.status < 600, code);
    assert.ok(entry.defined.length > 0, code);
  }
  assert.equal(OAUTH_ERRORS.invalid_client.status, 401);
  assert.equal(OAUTH_ERRORS.invalid_token.status, 401);
  assert.equal(OAUTH_ERRORS.insufficient_scope.status, 403);
  for (const code of ["authorization_pending", "slow_down", "expired_token", "access_denied"] as const) {
    assert.equal(OAUTH_ERRORS[code].status, 400, `${code} (RFC 8628 §3.5)`);
  }
});

Deno.test("invalid_client is a 401 that challenges with Basic only when the client used Basic", async () => {
  const basic = invalidClientResponse("client authentication failed", true);
  assert.equal(basic.status, 401);
  assert.equal(basic.headers.get("www-authenticate"), 'Basic realm="oauth", charset="UTF-8"');
  assert.deepEqual(await basic.json(), {
    error: "invalid_client",
    error_description: "client authentication failed",
  });
  const form = invalidClientResponse("client authentication failed", false);
  assert.equal(form.status, 401);
  assert.equal(form.headers.get("www-authenticate"), null);
  await form.body?.cancel();
});

Deno.test("a bearer challenge without a token has no body; with a refused token it names the error", async () => {
  const bare = bearerChallenge("userinfo");
  assert.equal(bare.status, 401);
  assert.equal(bare.headers.get("www-authenticate"), 'Bearer realm="userinfo"');
  assert.equal(bare.body, null);
  const scope = bearerChallenge("userinfo", { code: "insufficient_scope", description: "no openid" });
  assert.equal(scope.status, 403);
  assert.equal(scope.headers.get("www-authenticate"), 'Bearer realm="userinfo", error="insufficient_scope"');
  assert.equal(scope.headers.get("cache-control"), "no-store");
  assert.deepEqual(await scope.json(), { error: "insufficient_scope", error_description: "no openid" });
});

Deno.test("an authorization error redirects with error, description, state and iss, never cached", () => {
  const error = new OAuthError("login_required", "max_age requires a new login");
  const withState = new URL(
    error.toRedirect("https://rp.example/cb?x=1", "s1", "https://op.example/api/auth").headers.get(
      "location",
    )!,
  );
  assert.equal(withState.origin + withState.pathname, "https://rp.example/cb");
  assert.equal(withState.searchParams.get("x"), "1");
  assert.equal(withState.searchParams.get("error"), "login_required");
  assert.equal(withState.searchParams.get("error_description"), "max_age requires a new login");
  assert.equal(withState.searchParams.get("state"), "s1");
  assert.equal(withState.searchParams.get("iss"), "https://op.example/api/auth");
  const response = error.toRedirect("https://rp.example/cb", null, "https://op.example/api/auth");
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.equal(new URL(response.headers.get("location")!).searchParams.has("state"), false);
  const page = error.toErrorPage("https://op.example/api/auth/error");
  assert.equal(
    page.headers.get("location"),
    "https://op.example/api/auth/error?error=login_required&error_description=max_age+requires+a+new+login",
  );
});

Deno.test("service errors render in the shape their table entry names", async () => {
  const notFound = serviceErrorResponse("not_found", "no route for GET /x");
  assert.equal(notFound.status, 404);
  assert.equal(notFound.headers.get("cache-control"), "no-store");
  assert.equal(await notFound.text(), '{"error":"not_found","message":"no route for GET /x"}');
  const unconfigured = serviceErrorResponse("not_configured", "see its log");
  assert.equal(unconfigured.status, 503);
  assert.deepEqual(await unconfigured.json(), { error: "server_error", message: "see its log" });
  const limited = serviceErrorResponse("too_many_requests", "too many requests", { "retry-after": "7" });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "7");
  assert.deepEqual(await limited.json(), {
    error: "too_many_requests",
    error_description: "too many requests",
  });
  const origin = serviceErrorResponse("invalid_origin", "Invalid origin");
  assert.equal(origin.status, 403);
  assert.deepEqual(await origin.json(), { message: "Invalid origin", code: "INVALID_ORIGIN" });
  const host = serviceErrorResponse("forbidden_host", "403 Forbidden\n");
  assert.equal(host.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(await host.text(), "403 Forbidden\n");
  assert.equal(SERVICE_ERRORS.KEY_IN_USE.status, 409);
});

Deno.test("no module of auth/ writes an error body of its own beside the two error modules", async () => {
  const own =
    /JSON\.stringify\(\s*\{\s*(error|message)\s*:|c\.json\(\s*\{\s*error\s*:|Response\.json\(\s*\{\s*error\s*:/;
  const offenders: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (/\.tsx?$/.test(entry.name) && !/_test\.tsx?$/.test(entry.name)) {
        if (own.test(await Deno.readTextFile(url))) offenders.push(url.pathname);
      }
    }
  };
  await walk(new URL("./", import.meta.url));
  assert.deepEqual(
    offenders.filter((path) => !/\/auth\/(oauth_error|service_errors)\.ts$/.test(path)),
    [],
    "error bodies are written by auth/oauth_error.ts or auth/service_errors.ts",
  );
});
