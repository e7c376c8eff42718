/**
 * The console's HTTP conventions in one place: security headers on every answer (CSP with scripts and
 * styles from the gateway itself only, no framing, `no-store`), cookie names and attributes (`__Host-` and
 * `Secure` on https, HttpOnly, SameSite), the CSRF comparison, and safe return paths.
 */
import { CONSOLE_PATH, type ConsoleSettings } from "./settings.ts";

/** Headers every console response carries; `formTarget` is the OP origin the sign-out form redirects to. */
export function securityHeaders(formTarget: string): Record<string, string> {
  return {
    "content-security-policy": [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      // Chromium applies form-action to the redirects after a submission: sign-out ends at the OP.
      `form-action 'self' ${formTarget}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
    "cache-control": "no-store",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
  };
}

/** Cookie names: the session and the sign-in-in-progress marker. */
export function cookieNames(settings: ConsoleSettings): { session: string; login: string } {
  // __Host- requires Secure and Path=/ and forbids Domain, so the cookie cannot be set by a sibling host.
  return settings.secure
    ? { session: "__Host-gw_console", login: "__Host-gw_console_login" }
    : { session: "gw_console", login: "gw_console_login" };
}

/** A Set-Cookie line; `maxAgeS` 0 clears the cookie. */
export function setCookie(settings: ConsoleSettings, name: string, value: string, maxAgeS: number): string {
  // Lax, not Strict: the callback arrives by a top-level redirect from the OP's origin and must carry the
  // sign-in cookie; no console route changes state on GET, and every POST also checks a CSRF token.
  const parts = [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeS}`];
  if (settings.secure) parts.push("Secure");
  return parts.join("; ");
}

/** The value of cookie `name` in a request. */
export function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Constant-time string comparison (CSRF tokens). */
export function sameToken(a: string, b: string): boolean {
  if (!a || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** A path inside the console to return to after sign-in; anything else becomes the console's home. */
export function safeReturnPath(raw: string | null | undefined): string {
  if (!raw || !raw.startsWith(CONSOLE_PATH) || raw.startsWith("//") || /[\\\s]/.test(raw)) {
    return `${CONSOLE_PATH}/keys`;
  }
  if (raw.startsWith(`${CONSOLE_PATH}/callback`) || raw.startsWith(`${CONSOLE_PATH}/sign-`)) {
    return `${CONSOLE_PATH}/keys`;
  }
  return raw;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Where a request that reached the console on another loopback name of its origin (`localhost` for a console
 * at `127.0.0.1`, or the reverse) should go instead: the same path on the configured origin. Sign-in needs
 * one origin (the redirect URI is registered on it and the cookies are host-only), so the console answers on
 * its own origin only and sends the other loopback names there. Undefined when no redirect is needed.
 */
export function canonicalLoopbackUrl(url: URL, origin: string): string | undefined {
  if (url.origin === origin) return undefined;
  const home = new URL(origin);
  if (!LOOPBACK_HOSTS.has(url.hostname) || !LOOPBACK_HOSTS.has(home.hostname)) return undefined;
  if (url.port !== home.port || url.protocol !== home.protocol) return undefined;
  return `${origin}${url.pathname}${url.search}`;
}
