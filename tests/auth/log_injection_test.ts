/**
 * Item 9: Better Auth's own log lines go through the service's JSON logger. A newline in a request value
 * (here `callbackURL`) must stay inside one JSON record; nothing is printed beside the JSON log.
 */
import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { startAuthService } from "./harness.ts";

const BASE = "https://auth.example.test";
const DEPLOYED = {
  AUTH_LOCAL_MODE: "false",
  AUTH_BASE_URL: BASE,
  AUTH_COOKIE_DOMAIN: ".example.test",
  AUTH_SECRET: "0123456789abcdef0123456789abcdef0123456789ab",
  SOCIAL_CLIENT_ID: "gh-client-id",
  SOCIAL_CLIENT_SECRET: "gh-client-secret",
  AUTH_GITHUB_ALLOW_ANY: "true",
  AUTH_CLIENT_IP: "socket",
  LOG_LEVEL: "debug",
};

Deno.test("a newline in callbackURL cannot forge a log line; Better Auth logs as JSON records", async () => {
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", sink: (line) => lines.push(line) });
  const printed: string[] = [];
  const saved = { log: console.log, error: console.error, warn: console.warn, info: console.info };
  console.log =
    console.error =
    console.warn =
    console.info =
      (...args: unknown[]) => printed.push(args.map(String).join(" "));
  try {
    await using svc = await startAuthService(DEPLOYED, "127.0.0.1", logger);
    const forged = '\n{"level":"error","msg":"forged","forged":true}\n';
    for (const callbackURL of [`https://evil.test/${forged}`, `/sign-in${forged}`]) {
      const response = await svc.handle(
        new Request(`${BASE}/api/auth/sign-in/social`, {
          method: "POST",
          headers: { origin: BASE, "content-type": "application/json" },
          body: JSON.stringify({ provider: "github", callbackURL }),
        }),
      );
      assert.ok(response.status < 500, `no server error: ${response.status}`);
      await response.body?.cancel();
    }
  } finally {
    Object.assign(console, saved);
  }
  assert.deepEqual(
    printed.filter((l) => !l.startsWith("Deno.serve:")),
    [],
    "nothing printed beside the JSON log",
  );
  assert.ok(
    lines.some((l) => l.includes("better-auth")),
    `Better Auth's lines reach the logger: ${lines.length}`,
  );
  for (const line of lines) {
    assert.ok(!line.includes("\n"), "one record per line");
    const record = JSON.parse(line);
    assert.notEqual(record.forged, true, "no forged record");
  }
});
