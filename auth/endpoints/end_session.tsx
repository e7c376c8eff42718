/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) in the service's own layer; Better Auth
 * 1.6.23's endpoint requires `id_token_hint` and has no confirmation page.
 *
 * - `GET` (and `POST`, answered with a 303 to the same request as `GET`, so the SameSite=Lax session cookie
 *   is sent) at `{issuer}/oauth2/end-session` with `id_token_hint`, `client_id`, `post_logout_redirect_uri`,
 *   `state` (others, such as `ui_locales` and `logout_hint`, are ignored).
 * - A hint must be an ID token this issuer signed (expired ones are accepted, §2); `client_id` must be among
 *   its audiences. A `post_logout_redirect_uri` needs a client (`client_id` or the hint's audience) and must
 *   equal one of the client's registered post-logout URIs. A named client must exist, be enabled and be
 *   registered with end-session. Any failure shows an error page and never redirects.
 * - A valid hint whose `sid` is the browser's session (or with no browser session) ends that session at
 *   once. Otherwise a signed-in user gets a confirmation page (`Sign out` / `Cancel`); its forms post to
 *   `/end-session` a request signed with the service secret, bound to the session, valid 10 minutes, and the
 *   route accepts only the service's own origin (CSRF).
 * - After a sign-out the browser goes to the post-logout URI with `state`, or sees a "signed out" page.
 */
import type { Client } from "@libsql/client";
import { renderPage } from "../pages/layout.tsx";
import { ErrorPage } from "../pages/consent.tsx";
import { SignOutPage, SignOutResultPage } from "../pages/sign_out.tsx";
import { isForm } from "./shim_types.ts";
import { signLogoutRequest, verifyLogoutRequest } from "./logout_request.ts";
import { verifyIdTokenHint } from "./id_token_hint.ts";
import { queueSessionLogouts } from "../logout/fan_out.ts";

/** Path of the end-session endpoint (as advertised in discovery). */
export const END_SESSION_PATH = "/api/auth/oauth2/end-session";

/** How long a confirmation page's signed request stays valid. */
const CONFIRM_TTL_MS = 10 * 60 * 1000;

/** The browser's current session, as far as logout needs it. */
export interface CurrentSession {
  /** Session id (the ID token's `sid`). */
  id: string;
  /** Display name of the signed-in user. */
  userName: string;
}

/** What the logout routes need from the app. */
export interface EndSessionDeps {
  /** Raw libSQL client of the auth database. */
  client: Client;
  /** The issuer ID tokens carry. */
  issuer: string;
  /** Called after a session was ended here (starts its back-channel logouts). */
  logoutQueued?: () => void;
  /** The service secret (signs the confirmation request). */
  secret: string;
  /** The browser's session, if any. */
  currentSession(request: Request): Promise<CurrentSession | undefined>;
  /** Ends the browser's session(s); returns the Set-Cookie lines that clear the cookies. */
  signOut(request: Request): Promise<string[]>;
}

interface ClientRow {
  name: string;
  enableEndSession: boolean;
  postLogoutRedirectUris: string[];
}

type Outcome = { ok: true; client?: ClientRow; clientId?: string; redirect?: URL } | {
  ok: false;
  response: Response;
};

/** Builds the two logout handlers: the endpoint and the confirmation form's target. */
export function createEndSession(deps: EndSessionDeps) {
  const fail = (message: string, status = 400) =>
    renderPage(<ErrorPage title="Sign-out failed" message={message} />, status);

  /** Validates client and post-logout redirect URI; the redirect carries `state`. */
  const resolveClient = async (
    clientId: string | undefined,
    redirectUri: string | undefined,
    state: string | undefined,
  ): Promise<Outcome> => {
    if (redirectUri && !clientId) {
      return {
        ok: false,
        response: fail("client_id (or id_token_hint) is required with post_logout_redirect_uri."),
      };
    }
    if (!clientId) return { ok: true };
    const client = await clientRow(deps.client, clientId);
    if (!client) return { ok: false, response: fail("This application is not registered.") };
    if (!client.enableEndSession) {
      return { ok: false, response: fail("This application is not allowed to sign you out.") };
    }
    if (!redirectUri) return { ok: true, client, clientId };
    if (!client.postLogoutRedirectUris.includes(redirectUri)) {
      return {
        ok: false,
        response: fail("post_logout_redirect_uri is not registered for this application."),
      };
    }
    const redirect = new URL(redirectUri);
    if (state !== undefined) redirect.searchParams.set("state", state);
    return { ok: true, client, clientId, redirect };
  };

  const finish = (
    method: string,
    signedOut: boolean,
    cookies: string[],
    redirect: URL | undefined,
    client: ClientRow | undefined,
  ): Response => {
    const response = signedOut && redirect
      ? new Response(null, {
        status: method === "GET" ? 302 : 303,
        headers: { location: redirect.href, "cache-control": "no-store" },
      })
      : renderPage(
        <SignOutResultPage signedOut={signedOut} returnTo={redirect?.href} clientName={client?.name} />,
      );
    for (const cookie of cookies) response.headers.append("set-cookie", cookie);
    return response;
  };

  /** Ends a session of another browser (named by the hint), with its back-channel logouts. */
  const deleteSession = async (id: string) => {
    await deps.client.batch([
      queueSessionLogouts(id),
      { sql: "DELETE FROM session WHERE id = ?", args: [id] },
    ], "write");
    deps.logoutQueued?.();
  };

  /** `GET|POST {issuer}/oauth2/end-session`. */
  const endSession = async (request: Request): Promise<Response> => {
    if (request.method === "POST") {
      if (!isForm(request)) return fail("A logout request must be a form post.");
      const query = new URLSearchParams(await request.text()).toString();
      const location = `${END_SESSION_PATH}${query ? `?${query}` : ""}`;
      return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
    }
    const params = new URL(request.url).searchParams;
    const get = (name: string) => params.get(name) || undefined;
    const hintToken = get("id_token_hint");
    let hint: { audiences: string[]; sid?: string } | undefined;
    if (hintToken) {
      hint = await verifyIdTokenHint(hintToken, deps.client, deps.issuer);
      if (!hint) return fail("id_token_hint is not a valid ID token of this provider.");
    }
    let clientId = get("client_id");
    if (clientId && hint && !hint.audiences.includes(clientId)) {
      return fail("client_id does not match the id_token_hint.");
    }
    if (!clientId && hint) {
      if (hint.audiences.length !== 1) return fail("client_id is required with this id_token_hint.");
      clientId = hint.audiences[0];
    }
    const resolved = await resolveClient(
      clientId,
      get("post_logout_redirect_uri"),
      params.get("state") ?? undefined,
    );
    if (!resolved.ok) return resolved.response;
    const session = await deps.currentSession(request);
    if (!session) {
      // Nothing signed in here; a valid hint's session (from another browser) still ends.
      if (hint?.sid) await deleteSession(hint.sid);
      return finish("GET", true, [], resolved.redirect, resolved.client);
    }
    if (hint?.sid && hint.sid === session.id) {
      return finish("GET", true, await deps.signOut(request), resolved.redirect, resolved.client);
    }
    const logoutRequest = await signLogoutRequest(deps.secret, {
      clientId: resolved.clientId,
      redirect: get("post_logout_redirect_uri"),
      state: params.get("state") ?? undefined,
      hintSid: hint?.sid,
      session: session.id,
      exp: Date.now() + CONFIRM_TTL_MS,
    });
    return renderPage(
      <SignOutPage
        userName={session.userName}
        clientName={resolved.client?.name}
        logoutRequest={logoutRequest}
      />,
    );
  };

  /** `POST /end-session`: the confirmation page's `Sign out` / `Cancel`. */
  const confirm = async (request: Request): Promise<Response> => {
    const form = isForm(request) ? new URLSearchParams(await request.text()) : new URLSearchParams();
    const logout = await verifyLogoutRequest(deps.secret, form.get("logout_request") ?? "");
    if (!logout) return fail("This sign-out request is invalid or has expired. Please try again.");
    const resolved = await resolveClient(logout.clientId, logout.redirect, logout.state);
    if (!resolved.ok) return resolved.response;
    const session = await deps.currentSession(request);
    if (session && session.id !== logout.session) {
      return fail("This sign-out request belongs to another session.", 403);
    }
    if (form.get("decision") !== "sign_out") {
      return finish("POST", false, [], resolved.redirect, resolved.client);
    }
    const cookies = session ? await deps.signOut(request) : [];
    if (logout.hintSid) await deleteSession(logout.hintSid);
    return finish("POST", true, cookies, resolved.redirect, resolved.client);
  };

  return { endSession, confirm };
}

async function clientRow(client: Client, clientId: string): Promise<ClientRow | undefined> {
  const result = await client.execute({
    sql: "SELECT name, enable_end_session, post_logout_redirect_uris FROM oauth_client " +
      "WHERE client_id = ? AND COALESCE(disabled, 0) = 0",
    args: [clientId],
  });
  const row = result.rows[0];
  if (!row) return undefined;
  let uris: unknown = [];
  try {
    uris = JSON.parse(String(row.post_logout_redirect_uris ?? "[]"));
  } catch {
    uris = [];
  }
  return {
    name: row.name === null ? clientId : String(row.name),
    enableEndSession: Number(row.enable_end_session ?? 0) === 1,
    postLogoutRedirectUris: Array.isArray(uris) ? uris.filter((u) => typeof u === "string") : [],
  };
}
