/**
 * The admin console at `/admin`: sign-in through the suite's auth service (oidc.ts), server-side sessions
 * (session_store.ts), a CSRF token checked on every POST, and the pages (pages.tsx). Everything but the
 * assets, the sign-in routes and the signed-out page needs an admin session; a missing or expired one goes
 * through sign-in and comes back to the page asked for. Nothing here is reachable unless the console is
 * configured (settings.ts), and `/admin/api/*` stays the admin-key API of app.ts.
 */
import type { Kysely } from "kysely";
import type { Logger } from "@switchyard/lib/log.ts";
import type { KeysDatabase } from "../keys/store.ts";
import type { UsageDatabase } from "../usage/ledger.ts";
import { CONSOLE_CSS, CONSOLE_JS } from "./assets.ts";
import {
  canonicalLoopbackUrl,
  cookieNames,
  cookieOf,
  safeReturnPath,
  sameToken,
  securityHeaders,
  setCookie,
} from "./http.ts";
import { htmlResponse, MessagePage } from "./layout.tsx";
import type { FrameUser } from "./layout.tsx";
import { RelyingParty, SignInError } from "./oidc.ts";
import { createPages, type PageDeps, redirect } from "./pages.tsx";
import {
  type ConsoleDatabase,
  type ConsoleSession,
  ConsoleSessionStore,
  LOGIN_TTL_MS,
  randomToken,
} from "./session_store.ts";
import { type ConsoleSettings, isAdmin } from "./settings.ts";

/** What the console needs. */
export interface ConsoleDeps extends Omit<PageDeps, "db" | "formTarget" | "now"> {
  settings: ConsoleSettings;
  db: () => Promise<Kysely<KeysDatabase & UsageDatabase & ConsoleDatabase>>;
  logger: Logger;
  /** Reaches the OP (tests may pass their own). */
  fetch?: typeof fetch;
  now?: () => number;
}

/** True for the paths the console answers (the admin-key API under `/admin/api/` is not one). */
export function isConsolePath(path: string): boolean {
  return path === "/admin" || (path.startsWith("/admin/") && !path.startsWith("/admin/api/"));
}

const MAX_FORM_BYTES = 16 * 1024;

/** Builds the console's fetch handler. */
export function createConsole(deps: ConsoleDeps): (request: Request) => Promise<Response> {
  const { settings } = deps;
  const now = deps.now ?? Date.now;
  const rp = new RelyingParty(settings, deps.fetch);
  const sessions = new ConsoleSessionStore(deps.db, now);
  const names = cookieNames(settings);
  const formTarget = new URL(settings.issuer).origin;
  const pages = createPages({ ...deps, formTarget, now });
  const html = (node: unknown, status = 200, extra: Record<string, string | string[]> = {}) =>
    htmlResponse(node, formTarget, status, extra);
  const message = (title: string, text: string, status: number, link?: { href: string; label: string }) =>
    html(MessagePage({ title, message: text, link }), status);
  const again = { href: "/admin/sign-in", label: "Sign in again" };

  const asset = (body: string, type: string) =>
    new Response(body, {
      headers: { ...securityHeaders(formTarget), "content-type": type, "cache-control": "no-cache" },
    });

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
    if (!isAdmin(settings.admins, user.sub, user.email)) {
      deps.logger.warn("console: a signed-in user who is not an admin was refused", { sub: user.sub });
      return html(
        MessagePage({
          title: "Not an admin",
          message: `You are signed in as ${
            user.email ?? user.sub
          }, who is not an administrator of this gateway. An operator can add your user id or email to GATEWAY_ADMINS.`,
        }),
        403,
        { "set-cookie": clearLogin },
      );
    }
    const id = await sessions.create(user, settings.sessionMs);
    deps.logger.info("console: admin signed in", { sub: user.sub });
    return redirect(login.returnTo, {
      "set-cookie": [
        clearLogin,
        setCookie(settings, names.session, id, Math.floor(settings.sessionMs / 1000)),
      ],
    });
  };

  const signOut = async (session: ConsoleSession, id: string) => {
    await sessions.delete(id);
    const clear = setCookie(settings, names.session, "", 0);
    const target = await rp.endSessionUrl(session.idToken).catch(() => undefined);
    return redirect(target?.href ?? "/admin/signed-out", { "set-cookie": clear });
  };

  /** Routes that need an admin session. */
  const route = async (request: Request, url: URL, user: FrameUser, session: ConsoleSession, id: string) => {
    const path = url.pathname.replace(/\/+$/, "");
    const method = request.method;
    let form: FormData | undefined;
    if (method === "POST") {
      const size = Number(request.headers.get("content-length") ?? "0");
      if (size > MAX_FORM_BYTES) return message("Form too large", "The form is larger than 16 KiB.", 413);
      try {
        form = await request.formData();
      } catch {
        return message("Bad form", "The request body is not a form.", 400);
      }
      const origin = request.headers.get("origin");
      const token = form.get("_csrf");
      if (
        (origin && origin !== settings.origin) || typeof token !== "string" || !sameToken(token, session.csrf)
      ) {
        deps.logger.warn("console: a form without a valid CSRF token was refused", { path });
        return message(
          "Forbidden",
          "This form has expired or did not come from the console; reload the page and try again.",
          403,
        );
      }
      if (path === "/admin/sign-out") return signOut(session, id);
      if (path === "/admin/keys") return pages.createKey(user, form);
    }
    const keyMatch = /^\/admin\/keys\/(key_[A-Za-z0-9]{1,40})(\/revoke)?$/.exec(path);
    if (method === "GET") {
      if (path === "/admin" || path === "") return redirect("/admin/keys");
      if (path === "/admin/keys") return pages.keys(user, url);
      if (path === "/admin/usage") return pages.usage(user, url);
      if (path === "/admin/usage/export.csv") return pages.usageExport(user, url, "csv");
      if (path === "/admin/usage/export.json") return pages.usageExport(user, url, "json");
      if (path === "/admin/requests") return pages.requests(user, url);
      if (path === "/admin/providers") return pages.providers(user);
      if (keyMatch) {
        return keyMatch[2] ? pages.confirmRevoke(user, keyMatch[1]) : pages.editKey(user, keyMatch[1]);
      }
    }
    if (method === "POST" && keyMatch && form) {
      return keyMatch[2] ? pages.revokeKey(user, keyMatch[1]) : pages.updateKey(user, keyMatch[1], form);
    }
    if (method !== "GET" && method !== "POST") {
      return message("Method not allowed", `${method} is not used by the console.`, 405);
    }
    return message("Not found", `There is no console page at ${path}.`, 404, {
      href: "/admin/keys",
      label: "Keys",
    });
  };

  return async (request) => {
    const url = new URL(request.url);
    const path = url.pathname;
    const canonical = canonicalLoopbackUrl(url, settings.origin);
    // Before any cookie is read or set: a sign-in begun on `localhost` must end on the registered origin.
    if (canonical) return redirect(canonical);
    try {
      if (request.method === "GET") {
        if (path === "/admin/assets/console.css") return asset(CONSOLE_CSS, "text/css; charset=utf-8");
        if (path === "/admin/assets/console.js") return asset(CONSOLE_JS, "text/javascript; charset=utf-8");
        if (path === "/admin/sign-in") return await signIn(url);
        if (path === "/admin/callback") return await callback(request, url);
        if (path === "/admin/signed-out") {
          return message(
            "Signed out",
            "You are signed out of the gateway console and the auth service.",
            200,
            {
              href: "/admin/sign-in",
              label: "Sign in",
            },
          );
        }
      }
      const id = cookieOf(request, names.session);
      const session = id ? await sessions.get(id) : undefined;
      if (!session || !id) {
        if (path === "/admin/sign-out") {
          return redirect("/admin/signed-out", { "set-cookie": setCookie(settings, names.session, "", 0) });
        }
        // An expired or missing session signs in again and returns to the page (for a POST, its own page).
        return redirect(
          `/admin/sign-in?return_to=${
            encodeURIComponent(path + (request.method === "GET" ? url.search : ""))
          }`,
        );
      }
      const user: FrameUser = { label: session.name ?? session.email ?? session.userId, csrf: session.csrf };
      return await route(request, url, user, session, id);
    } catch (error) {
      deps.logger.error("console: request failed", { path, error });
      return message(
        "Something went wrong",
        "The console could not complete this request; it was logged.",
        500,
      );
    }
  };
}
