/**
 * RFC 8628 device authorization grant, answered by the service: Better Auth 1.6.23's device-authorization
 * plugin answers the token request with a browser session token (no refresh token, no OAuth token rows),
 * and its OAuth provider refuses the grant type, so the grant lives here beside the code and refresh grants.
 * State is kept in Better Auth's `verification` table (no migration): `device:<sha256(device_code)>` holds
 * the request as JSON, `device-user:<user_code>` points at it. Every transition is a compare-and-swap on the
 * stored value, so a device code is redeemed once even by parallel polls on several instances.
 */
import type { Client } from "@libsql/client";
import { authenticateClient, presentedCredentials, sha256Base64Url } from "../endpoints/client_auth.ts";
import { invalidClientResponse, oauthError } from "../oauth_error.ts";
import { randomToken } from "../grants/refresh_grant.ts";
import { issueTokens } from "./device_tokens.ts";
import { deviceClient, type DeviceDeps, type DeviceRequest } from "./device_client.ts";

/** The device authorization endpoint. */
export const DEVICE_AUTHORIZATION_PATH = "/api/auth/oauth2/device-authorization";
/** The page where people enter the user code. */
export const DEVICE_PAGE_PATH = "/device";
/** RFC 8628 §6.1: consonants only (no vowels, so no words; no digits, so no 0/O or 1/I confusion). */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
/** Lifetime of a device code. */
export const DEVICE_CODE_SECONDS = 600;
/** The polling interval first given to a device (RFC 8628 §3.2 default). */
export const POLL_INTERVAL_SECONDS = 5;

/** A user code: 8 letters of {@link USER_CODE_ALPHABET} (≈ 34.6 bits), shown as `XXXX-XXXX`. */
export function newUserCode(): string {
  let code = "";
  while (code.length < 8) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      // 240 is a multiple of 20: no modulo bias.
      if (byte < 240 && code.length < 8) code += USER_CODE_ALPHABET[byte % 20];
    }
  }
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** A typed user code as stored (`xxxx xxxx`, `XXXXXXXX` → `XXXX-XXXX`), or undefined when it cannot be one. */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, "");
  if (letters.length !== 8 || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

async function readRequest(client: Client, identifier: string) {
  const result = await client.execute({
    sql: "SELECT value FROM verification WHERE identifier = ? LIMIT 1",
    args: [identifier],
  });
  const raw = result.rows[0]?.value;
  return raw === undefined
    ? undefined
    : { raw: String(raw), request: JSON.parse(String(raw)) as DeviceRequest };
}

/** Replaces the stored request only if it is still `expected` (compare-and-swap); true when it was. */
async function swap(client: Client, identifier: string, expected: string, next: DeviceRequest) {
  const result = await client.execute({
    sql: "UPDATE verification SET value = ?, updated_at = ? WHERE identifier = ? AND value = ?",
    args: [JSON.stringify(next), Date.now(), identifier, expected],
  });
  return result.rowsAffected === 1;
}

/** `POST /api/auth/oauth2/device-authorization` for an authenticated client (RFC 8628 §3.1–3.2). */
export async function deviceAuthorization(
  form: URLSearchParams,
  clientId: string,
  deps: DeviceDeps,
): Promise<Response> {
  const known = await deviceClient(deps.client, clientId);
  if (!known?.device) {
    return oauthError("unauthorized_client", "the client may not use the device authorization grant");
  }
  const scopes = (form.get("scope") ?? "openid").split(" ").filter(Boolean);
  const notAllowed = known.scopes && scopes.find((s) => !known.scopes!.includes(s));
  if (notAllowed) return oauthError("invalid_scope", `the client may not request ${notAllowed}`);
  const now = (deps.now ?? Date.now)();
  const deviceCode = randomToken(43);
  let userCode = newUserCode();
  // A collision with a live code (≈ 1 in 10^10 per pair) draws again.
  for (let i = 0; i < 5 && await readRequest(deps.client, `device-user:${userCode}`); i++) {
    userCode = newUserCode();
  }
  const request: DeviceRequest = {
    clientId,
    scopes,
    userCode,
    status: "pending",
    interval: POLL_INTERVAL_SECONDS,
    expiresAt: now + DEVICE_CODE_SECONDS * 1000,
  };
  const hash = await sha256Base64Url(deviceCode);
  await deps.client.batch([
    { sql: "DELETE FROM verification WHERE identifier LIKE 'device%' AND expires_at < ?", args: [now] },
    {
      sql: "INSERT INTO verification (id, identifier, value, expires_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
      args: [
        crypto.randomUUID(),
        `device:${hash}`,
        JSON.stringify(request),
        request.expiresAt,
        crypto.randomUUID(),
        `device-user:${userCode}`,
        hash,
        request.expiresAt,
      ],
    },
  ], "write");
  return Response.json({
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: deps.verificationUri,
    verification_uri_complete: `${deps.verificationUri}?user_code=${userCode}`,
    expires_in: DEVICE_CODE_SECONDS,
    interval: POLL_INTERVAL_SECONDS,
  }, { headers: { "cache-control": "no-store", pragma: "no-cache" } });
}

/** The pending request of a user code, for the page (undefined: unknown, expired or already decided). */
export async function pendingByUserCode(
  client: Client,
  userCode: string,
  now = Date.now(),
): Promise<{ request: DeviceRequest; clientName: string } | undefined> {
  const pointer = await client.execute({
    sql: "SELECT value FROM verification WHERE identifier = ? LIMIT 1",
    args: [`device-user:${userCode}`],
  });
  const hash = pointer.rows[0]?.value;
  if (hash === undefined) return undefined;
  const found = await readRequest(client, `device:${String(hash)}`);
  if (!found || found.request.status !== "pending" || found.request.expiresAt <= now) return undefined;
  const known = await deviceClient(client, found.request.clientId);
  return known ? { request: found.request, clientName: known.name } : undefined;
}

/** Records the signed-in person's decision on a user code: the decided request, or undefined when it is no longer pending. */
export async function decideUserCode(
  client: Client,
  userCode: string,
  decision: { allow: boolean; userId: string; authTime: number },
  now = Date.now(),
): Promise<DeviceRequest | undefined> {
  const pointer = await client.execute({
    sql: "SELECT value FROM verification WHERE identifier = ? LIMIT 1",
    args: [`device-user:${userCode}`],
  });
  const hash = pointer.rows[0]?.value;
  if (hash === undefined) return undefined;
  const identifier = `device:${String(hash)}`;
  const found = await readRequest(client, identifier);
  if (!found || found.request.status !== "pending" || found.request.expiresAt <= now) return undefined;
  const next: DeviceRequest = decision.allow
    ? { ...found.request, status: "approved", userId: decision.userId, authTime: decision.authTime }
    : { ...found.request, status: "denied" };
  const swapped = await swap(client, identifier, found.raw, next);
  // The user code is spent either way: it cannot be entered twice.
  if (swapped) {
    await client.execute({
      sql: "DELETE FROM verification WHERE identifier = ?",
      args: [`device-user:${userCode}`],
    });
  }
  return swapped ? next : undefined;
}

/** The token request of the device grant (RFC 8628 §3.4–3.5) for an authenticated client. */
export async function deviceCodeGrant(
  form: URLSearchParams,
  clientId: string,
  deps: DeviceDeps,
): Promise<Response> {
  const deviceCode = form.get("device_code");
  if (!deviceCode) return oauthError("invalid_request", "device_code is required");
  const identifier = `device:${await sha256Base64Url(deviceCode)}`;
  const found = await readRequest(deps.client, identifier);
  if (!found) return oauthError("invalid_grant", "invalid or already used device code");
  const { request, raw } = found;
  if (request.clientId !== clientId) {
    return oauthError("invalid_grant", "the device code was issued to another client");
  }
  const now = (deps.now ?? Date.now)();
  if (request.expiresAt <= now) {
    await deps.client.execute({ sql: "DELETE FROM verification WHERE identifier = ?", args: [identifier] });
    return oauthError("expired_token", "the device code has expired; start again");
  }
  if (request.status === "denied") {
    await deps.client.execute({ sql: "DELETE FROM verification WHERE identifier = ?", args: [identifier] });
    return oauthError("access_denied", "the user denied the authorization request");
  }
  if (request.status === "pending") {
    // RFC 8628 §3.5: polling faster than the interval earns slow_down, and 5 s more for every later poll.
    const tooSoon = request.polledAt !== undefined && now - request.polledAt < request.interval * 1000;
    const next = { ...request, polledAt: now, interval: request.interval + (tooSoon ? 5 : 0) };
    await swap(deps.client, identifier, raw, next);
    return tooSoon
      ? oauthError("slow_down", `polling too fast; wait ${next.interval} s between requests`)
      : oauthError("authorization_pending", "the user has not yet completed the authorization");
  }
  // Approved: the first poll to delete the row redeems it.
  const taken = await deps.client.execute({
    sql: "DELETE FROM verification WHERE identifier = ? AND value = ?",
    args: [identifier, raw],
  });
  if (taken.rowsAffected !== 1) {
    return oauthError("invalid_grant", "invalid or already used device code");
  }
  return await issueTokens(deps, request);
}

/** Answers `POST /api/auth/oauth2/device-authorization`: a form, an authenticated (or public) client. */
export async function deviceAuthorizationEndpoint(request: Request, deps: DeviceDeps): Promise<Response> {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (!type.startsWith("application/x-www-form-urlencoded")) {
    return oauthError("invalid_request", "the request must be application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(await request.text());
  const repeated = ["client_id", "scope", "client_secret"].find((n) => form.getAll(n).length > 1);
  if (repeated) return oauthError("invalid_request", `${repeated} must not be repeated`);
  const creds = presentedCredentials(request.headers.get("authorization"), form);
  const auth = await authenticateClient(deps.client, creds);
  if (!auth.ok) return invalidClientResponse(auth.description, creds.basic);
  return await deviceAuthorization(form, auth.clientId, deps);
}
