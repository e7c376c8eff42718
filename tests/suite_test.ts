import assert from "node:assert/strict";
import { startSuite } from "../main.ts";
import { tempDir } from "@switchyard/lib/testing.ts";
import { parseEnvFile, readLocalEnv } from "@switchyard/lib/env_file.ts";

Deno.test("the local suite starts from the committed local.env, answers both health checks and migrates", async () => {
  await using dir = await tempDir();
  const { auth, gateway } = await startSuite({
    ...await readLocalEnv(),
    AUTH_PORT: "0",
    GATEWAY_PORT: "0",
    AUTH_LOCAL_MODE: "true",
    AUTH_BASE_URL: "http://localhost:37960",
    AUTH_DATABASE_URL: `file:${dir.path}/auth.db`,
    GATEWAY_DATABASE_URL: `file:${dir.path}/gateway.db`,
  });
  try {
    for (const [server, name] of [[auth, "auth"], [gateway, "gateway"]] as const) {
      const response = await fetch(`${server.url}/api/health`);
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { status: "ok", service: name });
    }
    const stat = await Deno.stat(`${dir.path}/auth.db`);
    assert.ok(stat.isFile, "the auth database was created by the migration step");
  } finally {
    await Promise.all([auth.shutdown(), gateway.shutdown()]);
  }
});

Deno.test("the local suite serves the gateway behind the connection guard", async () => {
  await using dir = await tempDir();
  const { auth, gateway } = await startSuite({
    ...await readLocalEnv(),
    AUTH_PORT: "0",
    GATEWAY_PORT: "0",
    AUTH_LOCAL_MODE: "true",
    AUTH_BASE_URL: "http://localhost:37960",
    AUTH_DATABASE_URL: `file:${dir.path}/auth.db`,
    GATEWAY_DATABASE_URL: `file:${dir.path}/gateway.db`,
    GATEWAY_CLIENT_HEADER_TIMEOUT_MS: "200",
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: gateway.port });
  try {
    // A connection that never sends its request is closed after the header timeout (Deno.serve keeps it).
    const started = performance.now();
    const giveUp = setTimeout(() => conn.close(), 3_000);
    const read = await conn.read(new Uint8Array(16)).catch(() => "given up");
    clearTimeout(giveUp);
    assert.equal(read, null, "the gateway closed the connection");
    assert.ok(performance.now() - started < 2_000);
  } finally {
    try {
      conn.close();
    } catch {
      // already closed
    }
    await Promise.all([auth.shutdown(), gateway.shutdown()]);
  }
});

Deno.test("the local suite refuses to start with an invalid port or database URL, naming the keys", async () => {
  await assert.rejects(
    startSuite({ AUTH_PORT: "http", GATEWAY_DATABASE_URL: "mysql://x" }),
    (error: Error) => {
      assert.match(error.message, /AUTH_PORT: expected a port number/);
      assert.match(error.message, /GATEWAY_DATABASE_URL: expected a libSQL database URL/);
      return true;
    },
  );
});

Deno.test("env files parse KEY=VALUE lines and refuse anything else", () => {
  assert.deepEqual(parseEnvFile("# c\nA=1\nexport B='two words'\n\nC=\n"), { A: "1", B: "two words", C: "" });
  assert.throws(() => parseEnvFile("A=1\nnot a line\n"), /line 2 is not KEY=VALUE/);
});
