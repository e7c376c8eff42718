/** `deno task oauth:register` and `deno task auth:secret` as a user runs them, against a fresh database. */
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { tempDir } from "@switchyard/lib/testing.ts";
import { task } from "./cli_task.ts";

Deno.test("oauth:register --json creates a PKCE client in a fresh database that survives its one-use user", async () => {
  await using dir = await tempDir();
  const url = `file:${dir.path}/auth.db`;
  const result = await task("oauth:register", [
    "--name",
    "My App",
    "--redirect-uri",
    "https://app.example.test/callback",
    "--post-logout-redirect-uri",
    "https://app.example.test/",
    "--enable-end-session",
    "--skip-consent",
    "--json",
  ], { AUTH_DATABASE_URL: url });
  assert.equal(result.code, 0, result.stderr);
  const printed = JSON.parse(result.stdout);
  assert.deepEqual(
    Object.keys(printed).sort(),
    ["client_id", "client_secret"],
    "stdout is the JSON object only",
  );
  const db = createClient({ url });
  try {
    await db.execute("PRAGMA foreign_keys = ON");
    const row = (await db.execute({
      sql: "SELECT * FROM oauth_client WHERE client_id = ?",
      args: [printed.client_id],
    })).rows[0];
    assert.ok(row, "the client exists after the temporary user was deleted");
    assert.equal(row.user_id, null);
    assert.equal(row.name, "My App");
    assert.equal(row.require_pkce, 1);
    assert.equal(row.skip_consent, 1);
    assert.equal(row.enable_end_session, 1);
    assert.deepEqual(JSON.parse(String(row.post_logout_redirect_uris)), ["https://app.example.test/"]);
    assert.notEqual(row.client_secret, printed.client_secret, "the secret is stored hashed");
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(printed.client_secret)),
    );
    const hashed = btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", "_").replace(
      /=+$/,
      "",
    );
    assert.equal(row.client_secret, hashed);
    for (const table of ["user", "session", "account"]) {
      const n = (await db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0].n;
      assert.equal(Number(n), 0, `the one-use ${table} row is gone`);
    }
  } finally {
    db.close();
  }
});

Deno.test("oauth:register --public prints no secret, and the human output shows the id", async () => {
  await using dir = await tempDir();
  const result = await task("oauth:register", [
    "--name",
    "CLI",
    "--redirect-uri",
    "http://127.0.0.1/callback",
    "--public",
  ], { AUTH_DATABASE_URL: `file:${dir.path}/auth.db` });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /client_id:\s+\w{32}/);
  assert.doesNotMatch(result.stdout, /client_secret/);
});

Deno.test("oauth:register refuses bad URLs and missing options with a clear error and writes nothing", async () => {
  await using dir = await tempDir();
  const url = `file:${dir.path}/auth.db`;
  const bad = await task("oauth:register", [
    "--name",
    "Bad",
    "--redirect-uri",
    "javascript:alert(1)",
    "--redirect-uri",
    "http://evil.example/cb",
    "--redirect-uri",
    "https://ok.example/cb#frag",
  ], { AUTH_DATABASE_URL: url });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /javascript:alert\(1\) has an unsupported scheme/);
  assert.match(bad.stderr, /http:\/\/evil\.example\/cb must use https/);
  assert.match(bad.stderr, /must not contain a fragment/);
  assert.equal(bad.stdout, "");
  const missing = await task("oauth:register", ["--name", "x"], { AUTH_DATABASE_URL: url });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /missing --redirect-uri/);
  await assert.rejects(Deno.stat(`${dir.path}/auth.db`), Deno.errors.NotFound, "no database was written");
  const remote = await task("oauth:register", [
    "--name",
    "x",
    "--redirect-uri",
    "https://a.example/cb",
    "--remote",
  ], {
    AUTH_DATABASE_URL: url,
  });
  assert.equal(remote.code, 1);
  assert.match(remote.stderr, /--remote needs AUTH_DATABASE_URL/);
});

Deno.test("auth:secret prints 32 random bytes in base64, different each time", async () => {
  const first = await task("auth:secret", []);
  const second = await task("auth:secret", []);
  assert.equal(first.code, 0);
  const secret = first.stdout.trim();
  assert.match(secret, /^[A-Za-z0-9+/]{43}=$/);
  assert.equal(Uint8Array.from(atob(secret), (c) => c.charCodeAt(0)).length, 32);
  assert.notEqual(secret, second.stdout.trim());
});
