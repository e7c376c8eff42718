/**
 * Local mode rules enforced in front of Better Auth: the loopback Host allow-list (DNS-rebinding defence),
 * the Origin check against the `x-svc-auth-dev-origin` header on every state-changing request, the
 * per-request choice of `__Secure-` cookies, and the cookie clean-up of sign-in and sign-out.
 */
import { serviceErrorResponse } from "../service_errors.ts";
import { COOKIE_PREFIX, DEV_ORIGIN_HEADER } from "../better_auth/mod.ts";
import { isLoopbackHostname } from "../config.ts";

/** Name of the session cookie without and with the secure prefix. */
export const SESSION_COOKIE = `${COOKIE_PREFIX}.session_token`;
/** The `__Secure-` session cookie name. */
export const SECURE_SESSION_COOKIE = `__Secure-${SESSION_COOKIE}`;

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** True when the request method changes state. */
export function isStateChanging(method: string): boolean {
  return UNSAFE_METHODS.has(method.toUpperCase());
}

/** Splits a Host header into name and port; IPv6 names keep their brackets. */
export function parseHost(host: string): { hostname: string; port?: string } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host.trim());
  if (!match) return { hostname: host };
  return { hostname: match[1].toLowerCase(), port: match[2] };
}

/** True when `host` is a loopback name, without a port or with the service's own port. */
export function isAllowedLocalHost(host: string | undefined, servicePort: string): boolean {
  if (!host) return false;
  const { hostname, port } = parseHost(host);
  return isLoopbackHostname(hostname) && (port === undefined || port === servicePort);
}

/** The plain-text 403 for a non-loopback Host, naming the host and the address to use. */
export function forbiddenHostResponse(host: string | undefined, baseUrl: string): Response {
  const shown = host ? JSON.stringify(host) : "(no Host header)";
  return serviceErrorResponse(
    "forbidden_host",
    `403 Forbidden: the local auth service answers only loopback hosts (localhost, 127.0.0.1, [::1]); ` +
      `host ${shown} is not one of them. Use ${baseUrl} instead.\n`,
  );
}

/** A 403 in Better Auth's error shape with the code `INVALID_ORIGIN`. */
export function invalidOriginResponse(message: string): Response {
  return serviceErrorResponse("invalid_origin", message);
}

/** The serialized origin of `value` when it is exactly an http(s) origin, else undefined. */
export function asOrigin(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return url.origin === value.replace(/\/$/, "") ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The service's own loopback origins (what a browser on the service itself sends as Origin). */
export function ownLoopbackOrigins(baseUrl: string): string[] {
  const base = new URL(baseUrl);
  const port = base.port ? `:${base.port}` : "";
  return ["localhost", "127.0.0.1", "[::1]"].map((h) => `${base.protocol}//${h}${port}`);
}

/** Whether a peer address is loopback (IPv4 127/8, IPv6 ::1, IPv4-mapped loopback). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase();
  return a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.");
}

/**
 * Checks the Origin of a state-changing local request. Accepted origins are the `x-svc-auth-dev-origin`
 * value when sent (by an app's dev proxy or server), else the service's own loopback origins. An absent
 * Origin is allowed only from a loopback peer. Returns the 403 response, or undefined when allowed.
 */
export function checkLocalOrigin(
  request: Request,
  baseUrl: string,
  peerAddress: string | undefined,
): Response | undefined {
  const rawDevOrigin = request.headers.get(DEV_ORIGIN_HEADER);
  const devOrigin = asOrigin(rawDevOrigin);
  if (rawDevOrigin !== null && !devOrigin) {
    return invalidOriginResponse(
      `Invalid origin: header ${DEV_ORIGIN_HEADER} must be an http(s) origin, got ${
        JSON.stringify(rawDevOrigin)
      }`,
    );
  }
  const accepted = devOrigin ? [devOrigin] : ownLoopbackOrigins(baseUrl);
  const origin = effectiveOrigin(request, new URL(request.url).origin);
  if (origin === null) {
    if (isLoopbackAddress(peerAddress)) return undefined;
    return invalidOriginResponse(
      `Invalid origin: a request without Origin must come from a loopback address; accepted origins: ${
        accepted.join(", ")
      }`,
    );
  }
  if (accepted.includes(origin)) return undefined;
  return invalidOriginResponse(
    `Invalid origin: ${JSON.stringify(origin)} is not accepted; accepted origins: ${accepted.join(", ")}` +
      (devOrigin ? ` (from ${DEV_ORIGIN_HEADER})` : ` (send ${DEV_ORIGIN_HEADER} from your dev proxy)`),
  );
}

/** Names of the cookies in a Cookie header. */
export function cookieNames(cookieHeader: string | null): string[] {
  if (!cookieHeader) return [];
  return cookieHeader.split(";").map((part) => part.split("=")[0].trim()).filter(Boolean);
}

/** Value of cookie `name` in a Cookie header. */
export function cookieValue(cookieHeader: string | null, name: string): string | undefined {
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * Whether this local request uses `__Secure-` cookies: the dev origin header's scheme decides when sent,
 * else the presence of a `__Secure-svc.*` cookie.
 */
export function wantsSecureCookies(request: Request): boolean {
  const devOrigin = asOrigin(request.headers.get(DEV_ORIGIN_HEADER));
  if (devOrigin) return devOrigin.startsWith("https:");
  return cookieNames(request.headers.get("cookie")).some((name) =>
    name.startsWith(`__Secure-${COOKIE_PREFIX}.`)
  );
}

/** A Set-Cookie value expiring `name` (Secure when the name demands it). */
export function expireCookie(name: string): string {
  const secure = name.startsWith("__Secure-") ? "; Secure" : "";
  return `${name}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure}`;
}

/** Names of the auth cookies set (with a non-empty value) by a response. */
export function setCookieNames(response: Response): string[] {
  return response.headers.getSetCookie().filter((line) => !/;\s*max-age=0/i.test(line))
    .map((line) => line.split("=")[0].trim());
}

/**
 * A loopback caller may omit Origin (checked by {@link checkLocalOrigin}); the service then trusts the one
 * origin of the request — the dev header's, else its own — and says so to Better Auth, whose own check
 * would otherwise refuse a cookie-bearing request without Origin.
 */
export function withTrustedOrigin(request: Request, baseUrl: string): Request {
  if (!isStateChanging(request.method) || request.headers.has("origin")) return request;
  const headers = new Headers(request.headers);
  headers.set("origin", asOrigin(request.headers.get(DEV_ORIGIN_HEADER)) ?? new URL(baseUrl).origin);
  return new Request(request, { headers });
}

/**
 * The Origin to judge a request by. Under `Referrer-Policy: no-referrer` (the auth pages used to send it) browsers
 * send `Origin: null` for the pages' own form posts; such a request counts as coming from `ownOrigin` only
 * when the browser-controlled `Sec-Fetch-Site` says it is same-origin. Anything else is kept as sent.
 */
export function effectiveOrigin(request: Request, ownOrigin: string): string | null {
  const origin = request.headers.get("origin");
  if (origin === "null" && request.headers.get("sec-fetch-site") === "same-origin") return ownOrigin;
  return origin;
}
