/**
 * The signed logout request of the sign-out confirmation page: `base64url(json).base64url(hmac)`, HMAC-SHA256
 * with the service secret (domain-separated from other uses), bound to one browser session, with an expiry.
 */

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

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function hmac(secret: string, data: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(`switchyard end-session\n${secret}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(data))));
}

/** Serialises and signs a logout request (`base64url(json).base64url(hmac)`). */
export async function signLogoutRequest(secret: string, request: LogoutRequest): Promise<string> {
  const body = base64url(new TextEncoder().encode(JSON.stringify(request)));
  return `${body}.${await hmac(secret, body)}`;
}

/** The logout request in `token` when its signature is valid and it has not expired. */
export async function verifyLogoutRequest(secret: string, token: string): Promise<LogoutRequest | undefined> {
  const [body, mac, extra] = token.split(".");
  if (!body || !mac || extra !== undefined) return undefined;
  const expected = await hmac(secret, body);
  if (expected.length !== mac.length) return undefined;
  let diff = 0;
  for (let i = 0; i < mac.length; i++) diff |= expected.charCodeAt(i) ^ mac.charCodeAt(i);
  if (diff !== 0) return undefined;
  try {
    const request = JSON.parse(new TextDecoder().decode(fromBase64url(body))) as LogoutRequest;
    if (typeof request.session !== "string" || typeof request.exp !== "number") return undefined;
    return request.exp > Date.now() ? request : undefined;
  } catch {
    return undefined;
  }
}
