/**
 * A database that cannot take a write right now (disk full, I/O error, read-only file, lock held past the
 * busy timeout) is the service being unavailable, not a bug: the client gets a retryable 503 in the OAuth
 * error shape, and the transaction that failed left nothing behind (SQLite rolls it back whole).
 */
import { oauthError } from "../oauth_error.ts";

/** SQLite result codes (primary, so `SQLITE_IOERR_WRITE` matches `SQLITE_IOERR`) that mean "try again later". */
const UNAVAILABLE = [
  "SQLITE_FULL",
  "SQLITE_IOERR",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_READONLY",
  "SQLITE_CANTOPEN",
];

/** True when `error`, or an error it wraps, is a libSQL error whose code means storage is unavailable. */
export function isStorageUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== "object") return false;
    const code = (e as { code?: unknown }).code;
    const message = (e as { message?: unknown }).message;
    const text = typeof code === "string" ? code : typeof message === "string" ? message : "";
    if (UNAVAILABLE.some((c) => text === c || text.startsWith(`${c}_`) || text.startsWith(`${c}:`))) {
      return true;
    }
  }
  return false;
}

/** The 503 answered for {@link isStorageUnavailable} errors. */
export function storageUnavailableResponse(): Response {
  return oauthError(
    "temporarily_unavailable",
    "the service cannot store this request right now; retry shortly",
    { headers: { "retry-after": "1" } },
  );
}
