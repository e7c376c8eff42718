import assert from "node:assert/strict";
import { DATABASE_TARGETS, redactUrl, resolveTargetUrl } from "./database_targets.ts";

const AUTH = DATABASE_TARGETS.find((t) => t.name === "auth")!;

Deno.test("a local run uses the configured file: URL, or the target's default when none is set", () => {
  assert.deepEqual(resolveTargetUrl(AUTH, { AUTH_DATABASE_URL: "file:/tmp/a.db" }, false), {
    url: "file:/tmp/a.db",
  });
  assert.deepEqual(resolveTargetUrl(AUTH, {}, false), { url: AUTH.defaultUrl });
});

Deno.test("a local run refuses a remote URL without showing the auth token it carries", () => {
  const resolved = resolveTargetUrl(
    AUTH,
    { AUTH_DATABASE_URL: "libsql://db.example.test?authToken=s3cr3t-token" },
    false,
  );
  assert.ok("error" in resolved);
  assert.match(resolved.error, /AUTH_DATABASE_URL is remote .*pass --remote/);
  assert.doesNotMatch(resolved.error, /s3cr3t-token/);
  assert.match(resolved.error, /authToken=\[redacted\]/);
});

Deno.test("a remote run needs a configured libsql:// or https:// URL and refuses file: URLs", () => {
  assert.deepEqual(resolveTargetUrl(AUTH, { AUTH_DATABASE_URL: "libsql://db.example.test" }, true), {
    url: "libsql://db.example.test",
  });
  for (const env of [{}, { AUTH_DATABASE_URL: "file:/tmp/a.db" }, { AUTH_DATABASE_URL: "ftp://x" }]) {
    const resolved = resolveTargetUrl(AUTH, env, true);
    assert.ok("error" in resolved, JSON.stringify(env));
    assert.match(resolved.error, /--remote needs AUTH_DATABASE_URL/);
  }
});

Deno.test("redactUrl hides every authToken value and leaves other parameters alone", () => {
  assert.equal(
    redactUrl("libsql://h?authToken=a&tls=1&AUTHTOKEN=b"),
    "libsql://h?authToken=[redacted]&tls=1&AUTHTOKEN=[redacted]",
  );
});
