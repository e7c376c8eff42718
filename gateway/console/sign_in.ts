/**
 * The console's sign-in routes: `sign-in` starts an authorization request (PKCE, state, nonce kept
 * server-side under a short-lived browser cookie) and `callback` completes it, refusing a response that
 * does not belong to a sign-in begun in this browser and a refused or failed exchange; on success it opens a
 * session for whoever the OP signed in (an admin or not: app.ts decides what each may see) and returns to the
 * page asked for.
 */
import type { Logger } from "@switchyard/lib/log.ts";
import { cookieOf, safeReturnPath, setCookie } from "./http.ts";
import { MessagePage } from "./layout.tsx";
import { type RelyingParty, SignInError } from "./oidc.ts";
import { redirect } from "./pages.tsx";
import { type ConsoleSessionStore, LOGIN_TTL_MS, randomToken } from "./session_store.ts";
import { type ConsoleSettings, isAdmin } from "./settings.ts";

/** What the sign-in routes use. */
export interface SignInDeps {
  settings: ConsoleSettings;
  logger: Logger;
  rp: RelyingParty;
  sessions: ConsoleSessionStore;
  names: { session: string; login: string };
  html: (node: unknown, status?: number, extra?: Record<string, string | string[]>) => Response;
  message: (title: string, text: string, status: number, link?: { href: string; label: string }) => Response;
  /** The "sign in again" link of a failed sign-in. */
  again: { href: string; label: string };
}

/** The two handlers. */
export function signInRoutes(deps: SignInDeps): {
  signIn(url: URL): Promise<Response>;
  callback(request: Request, url: URL): Promise<Response>;
} {
  const { settings, rp, sessions, names, html, message, again } = deps;

  const signIn = async (url: URL) => {
    const returnTo = safeReturnPath(url.searchParams.get("return_to"));
    let request;
    try {
      request = await rp.authorization();
    } catch (error) {
      deps.logger.error("console: the auth service's discovery failed", { error });
      return message(
        "Auth service unreachable",
        `The auth service at ${settings.issuer} did not answer its discovery document; try again shortly.`,
        502,
        again,
      );
    }
    const browser = randomToken();
    await sessions.startLogin(browser, { ...request, returnTo });
    return redirect(request.url.href, {
      "set-cookie": setCookie(settings, names.login, browser, LOGIN_TTL_MS / 1000),
    });
  };

  const callback = async (request: Request, url: URL) => {
    const clearLogin = setCookie(settings, names.login, "", 0);
    const browser = cookieOf(request, names.login);
    const state = url.searchParams.get("state");
    const login = browser && state ? await sessions.takeLogin(browser, state) : undefined;
    if (!login || !state) {
      return html(
        MessagePage({
          title: "Sign-in not recognised",
          message:
            "This sign-in response does not belong to a sign-in started in this browser (or it was already used or is older than 10 minutes).",
          link: again,
        }),
        400,
        { "set-cookie": clearLogin },
      );
    }
    let user;
    try {
      user = await rp.complete(url, { state, verifier: login.verifier, nonce: login.nonce });
    } catch (error) {
      if (!(error instanceof SignInError)) throw error;
      deps.logger.warn("console: sign-in refused", { code: error.code });
      return html(MessagePage({ title: "Sign-in failed", message: error.message, link: again }), 400, {
        "set-cookie": clearLogin,
      });
    }
    // Anyone the OP signs in gets a session: admins the whole console, everyone else their own usage
    // (`user:<sub>`, what the gateway records for their OP tokens) on the Usage and Requests pages.
    const id = await sessions.create(user, settings.sessionMs);
    deps.logger.info("console: signed in", {
      sub: user.sub,
      admin: isAdmin(settings.admins, user.sub, user.email),
    });
    return redirect(login.returnTo, {
      "set-cookie": [
        clearLogin,
        setCookie(settings, names.session, id, Math.floor(settings.sessionMs / 1000)),
      ],
    });
  };

  return { signIn, callback };
}
