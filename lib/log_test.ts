import assert from "node:assert/strict";
import { createLogger, type LogLevel, redact } from "./log.ts";

Deno.test("logger writes JSON lines with base fields and honours the level", () => {
  const lines: [string, LogLevel][] = [];
  const logger = createLogger({
    level: "info",
    sink: (line, level) => lines.push([line, level]),
    now: () => new Date(0),
    base: { service: "t" },
  });
  logger.debug("hidden");
  logger.child({ request_id: "r1" }).warn("shown", { status: 500 });
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0][0]), {
    time: "1970-01-01T00:00:00.000Z",
    level: "warn",
    msg: "shown",
    service: "t",
    request_id: "r1",
    status: 500,
  });
});

Deno.test("redact hides secrets by key and by value shape", () => {
  const out = redact({
    headers: { authorization: "Bearer abc", "x-api-key": "k", accept: "json" },
    nested: [{ client_secret: "s" }, "Bearer xyz"],
    AUTH_SECRET: "abc",
    plain: "fine",
  });
  assert.deepEqual(out, {
    headers: { authorization: "[redacted]", "x-api-key": "[redacted]", accept: "json" },
    nested: [{ client_secret: "[redacted]" }, "[redacted]"],
    AUTH_SECRET: "[redacted]",
    plain: "fine",
  });
});
