/** Local mode's session-cookie clean-up around Better Auth's sign-in and sign-out answers. */
import type { Client } from "@libsql/client";
import { COOKIE_PREFIX } from "../better_auth/mod.ts";
import { queueLogouts } from "../logout/fan_out.ts";
import {
  cookieNames,
  cookieValue,
  expireCookie,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  setCookieNames,
} from "./mode.ts";

/** Session cookie variants (plain and `__Secure-`) that a local sign-out or http sign-in clears. */
const SESSION_COOKIE_SUFFIXES = ["session_token", "session_data", "dont_remember"];

/**
 * Local mode's cookie rules on an `/api/auth/*` answer: a sign-out ends the session of every session cookie
 * sent (plain and `__Secure-`) and expires both sets; an http sign-in expires a stale `__Secure-` set.
 * `cookieHeader` is the request's Cookie header as it arrived.
 */
export async function finishLocalCookies(
  client: Client,
  request: Request,
  cookieHeader: string | null,
  response: Response,
): Promise<Response> {
  const signOut = request.method === "POST" && new URL(request.url).pathname === "/api/auth/sign-out";
  // Nothing to do on an answer that is not a sign-out and sets no session cookie (token, userinfo, …).
  if (!signOut && !setCookieNames(response).includes(SESSION_COOKIE)) return response;
  const out = new Response(response.body, response);
  const already = new Set(out.headers.getSetCookie().map((line) => line.split("=")[0].trim()));
  const expireVariant = (secureVariant: boolean) => {
    for (const suffix of SESSION_COOKIE_SUFFIXES) {
      const name = `${secureVariant ? "__Secure-" : ""}${COOKIE_PREFIX}.${suffix}`;
      if (!already.has(name)) out.headers.append("set-cookie", expireCookie(name));
    }
  };
  if (signOut) {
    for (const name of [SESSION_COOKIE, SECURE_SESSION_COOKIE]) {
      const value = cookieValue(cookieHeader, name);
      if (!value) continue;
      const token = value.split(".")[0];
      // The session's back-channel logouts are queued with its deletion (auth/logout/fan_out.ts).
      await client.batch([
        queueLogouts("session_id IN (SELECT id FROM session WHERE token = ?)", [token], "sign_out"),
        { sql: "DELETE FROM session WHERE token = ?", args: [token] },
      ], "write");
      expireVariant(name === SECURE_SESSION_COOKIE);
    }
  } else if (
    setCookieNames(out).includes(SESSION_COOKIE) &&
    cookieNames(cookieHeader).includes(SECURE_SESSION_COOKIE)
  ) {
    expireVariant(true);
  }
  return out;
}
