import assert from "node:assert/strict";
import { isStorageUnavailable, storageUnavailableResponse } from "./storage_unavailable.ts";

/** The shape @libsql/client throws (LibsqlError: code plus "CODE: text" message). */
function libsqlError(code: string, text: string): Error {
  return Object.assign(new Error(`${code}: ${text}`), { name: "LibsqlError", code });
}

Deno.test("a full disk, an I/O error or a held lock is storage unavailable (issue 30, scenario 6)", () => {
  assert.ok(isStorageUnavailable(libsqlError("SQLITE_FULL", "database or disk is full")));
  assert.ok(isStorageUnavailable(libsqlError("SQLITE_IOERR_WRITE", "disk I/O error")));
  assert.ok(isStorageUnavailable(libsqlError("SQLITE_BUSY", "database is locked")));
  assert.ok(isStorageUnavailable(new Error("SQLITE_FULL: database or disk is full")));
  assert.ok(
    isStorageUnavailable(new Error("wrapped", { cause: libsqlError("SQLITE_READONLY", "readonly") })),
  );
});

Deno.test("constraint violations and programming errors are not storage unavailable", () => {
  assert.ok(!isStorageUnavailable(libsqlError("SQLITE_CONSTRAINT_UNIQUE", "UNIQUE constraint failed")));
  assert.ok(!isStorageUnavailable(new TypeError("x is undefined")));
  assert.ok(!isStorageUnavailable(new Error("SQLITE_FULLNESS is not a code")));
  assert.ok(!isStorageUnavailable(undefined));
});

Deno.test("storage unavailable answers a retryable 503 in the OAuth error shape", async () => {
  const response = storageUnavailableResponse();
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "1");
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.equal((await response.json()).error, "temporarily_unavailable");
});
