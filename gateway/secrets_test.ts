import assert from "node:assert/strict";
import { createLogger } from "@switchyard/lib/log.ts";
import { createRedactor, redactingLogger, safeExcerpt } from "./secrets.ts";

Deno.test("the redactor removes configured secrets raw, JSON-escaped and percent-encoded", () => {
  const redact = createRedactor(['k3y"with/odd+chars', undefined, "short"]);
  assert.equal(redact('a k3y"with/odd+chars b'), "a [redacted] b");
  assert.equal(redact(JSON.stringify({ k: 'k3y"with/odd+chars' })), '{"k":"[redacted]"}');
  assert.equal(redact(`?key=${encodeURIComponent('k3y"with/odd+chars')}`), "?key=[redacted]");
  assert.equal(redact("a short word"), "a short word", "secrets under 8 characters are not searched for");
});

Deno.test("the redactor also removes credential shapes it was not told about", () => {
  const redact = createRedactor([]);
  assert.equal(redact("key sk-ant-api03-abcdefghijklmnop0123 used"), "key [redacted] used");
  assert.equal(redact("Authorization: Bearer abc.def-ghi_jkl"), "Authorization: [redacted]");
  assert.equal(redact("AIza" + "x".repeat(35)), "[redacted]");
  assert.equal(redact('{"token":"ya29.a0AfB_byC-minted.at.run-time"}'), '{"token":"[redacted]"}');
});

Deno.test("a safe excerpt is redacted, single-line and bounded", () => {
  const redact = createRedactor(["secret-value-123"]);
  assert.equal(safeExcerpt("a\nb\r\n\u0000secret-value-123", redact), "a b [redacted]");
  assert.equal(safeExcerpt("x".repeat(400), redact, 10), "xxxxxxxxxx…");
});

Deno.test("the redacting logger cleans nested fields and error messages", () => {
  const lines: string[] = [];
  const logger = redactingLogger(
    createLogger({ sink: (line) => lines.push(line) }),
    createRedactor(["secret-value-123"]),
  );
  logger.warn("x", {
    detail: "got secret-value-123",
    error: new Error("boom secret-value-123"),
    nested: [{ a: "secret-value-123" }],
  });
  logger.child({ tag: "secret-value-123" }).info("y");
  assert.equal(lines.length, 2);
  for (const line of lines) assert.ok(!line.includes("secret-value-123"), line);
});
