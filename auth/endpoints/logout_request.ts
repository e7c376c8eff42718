/**
 * The signed logout request of the sign-out confirmation page: `base64url(json).base64url(hmac)`, HMAC-SHA256
 * with the service secret (domain-separated from other uses), bound to one browser session, with an expiry.
 */
import { base64urlDecode, base64urlEncode, hmacSha256, timingSafeEqual } from "@switchyard/lib/crypto.ts";

/** The logout request carried by the confirmation page, signed and bound to one session. */
export interface LogoutRequest {
  /** The client that asked, if any. */
  clientId?: string;
  /** The validated post-logout redirect URI (without `state`). */
  redirect?: string;
  /** The RP's `state`. */
  state?: string;
  /** The `sid` of a valid id_token_hint for another session, ended too on confirmation. */
  hintSid?: string;
  /** The browser session the confirmation is for. */
  session: string;
  /** Expiry, epoch ms. */
  exp: number;
}

const DOMAIN = "switchyard end-session\n";

function mac(secret: string, data: string): string {
  return base64urlEncode(hmacSha256(`${DOMAIN}${secret}`, data));
}

// Both entry points stay promise-returning (the signature of the Web Crypto version they replaced), so their
// callers need no change.

/** Serialises and signs a logout request (`base64url(json).base64url(hmac)`). */
export function signLogoutRequest(secret: string, request: LogoutRequest): Promise<string> {
  const body = base64urlEncode(JSON.stringify(request));
  return Promise.resolve(`${body}.${mac(secret, body)}`);
}

/** The logout request in `token` when its signature is valid and it has not expired. */
export function verifyLogoutRequest(secret: string, token: string): Promise<LogoutRequest | undefined> {
  return Promise.resolve(verify(secret, token));
}

function verify(secret: string, token: string): LogoutRequest | undefined {
  const [body, tag, extra] = token.split(".");
  if (!body || !tag || extra !== undefined) return undefined;
  if (!timingSafeEqual(mac(secret, body), tag)) return undefined;
  const json = base64urlDecode(body);
  if (!json) return undefined;
  try {
    const request = JSON.parse(new TextDecoder().decode(json)) as LogoutRequest;
    if (typeof request.session !== "string" || typeof request.exp !== "number") return undefined;
    return request.exp > Date.now() ? request : undefined;
  } catch {
    return undefined;
  }
}
