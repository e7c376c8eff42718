/**
 * The admin console at CONSOLE_PATH (`/admin`), routed by Hono: sign-in through the suite's auth service
 * (oidc.ts), server-side sessions (session_store.ts), a CSRF token checked on every POST, and the pages
 * (pages.tsx). Everything but the assets, the sign-in routes and the signed-out page needs a session
 * (middleware); a missing or expired one goes through sign-in and comes back to the page asked for. Anyone
 * the OP signs in gets a session: an admin (GATEWAY_ADMINS) the whole console, everyone else their own usage
 * and requests only (the filter forced to `user:<sub>`) and sign-out. Nothing here is reachable unless the
 * console is configured (settings.ts), and `${CONSOLE_PATH}/api/*` stays the admin-key API of app.ts.
 */
import { type Context, Hono } from "hono";
import type { Kysely } from "kysely";
import type { Logger } from "@switchyard/lib/log.ts";
import type { KeysDatabase } from "../keys/store.ts";
import type { UsageDatabase } from "../usage/ledger.ts";
import { CONSOLE_CSS, CONSOLE_JS } from "./assets.ts";
import {
  canonicalLoopbackUrl,
  cookieNames,
  cookieOf,
  sameToken,
  securityHeaders,
  setCookie,
} from "./http.ts";
import { type FrameUser, htmlResponse, MessagePage, PERSONAL_PAGES } from "./layout.tsx";
import { RelyingParty } from "./oidc.ts";
import { createPages, type PageDeps, redirect } from "./pages.tsx";
import { type ConsoleDatabase, type ConsoleSession, ConsoleSessionStore } from "./session_store.ts";
import { CONSOLE_PATH, type ConsoleSettings, isAdmin } from "./settings.ts";
import { signInRoutes } from "./sign_in.ts";

/** What the console needs. */
export interface ConsoleDeps extends Omit<PageDeps, "db" | "formTarget" | "now"> {
  settings: ConsoleSettings;
  db: () => Promise<Kysely<KeysDatabase & UsageDatabase & ConsoleDatabase>>;
  logger: Logger;
  /** Reaches the OP (tests may pass their own). */
  fetch?: typeof fetch;
  now?: () => number;
}

/** True for the paths the console answers (the admin-key API under `${CONSOLE_PATH}/api/` is not one). */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PATH ||
    (path.startsWith(`${CONSOLE_PATH}/`) && !path.startsWith(`${CONSOLE_PATH}/api/`));
}

const MAX_FORM_BYTES = 16 * 1024;

/** What the session middleware hands the routes. */
type ConsoleEnv = {
  Variables: {
    user: FrameUser;
    session: ConsoleSession;
    sessionId: string;
    form: FormData;
    /** The page's URL (for a person who is not an admin, with the usage filter forced to their own). */
    url: URL;
  };
};

/** The pages a person who is not an admin may open (GET), besides the redirect from the console's root. */
const PERSONAL_PATHS: ReadonlySet<string> = new Set([
  ...PERSONAL_PAGES,
  `${CONSOLE_PATH}/usage/export.csv`,
  `${CONSOLE_PATH}/usage/export.json`,
]);

/** A key id in a console path. */
const KEY_ID = ":id{key_[A-Za-z0-9]{1,40}}";

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
  const again = { href: `${CONSOLE_PATH}/sign-in`, label: "Sign in again" };
  const asset = (body: string, type: string) =>
    new Response(body, {
      headers: { ...securityHeaders(formTarget), "content-type": type, "cache-control": "no-cache" },
    });
  const { signIn, callback } = signInRoutes({
    settings,
    logger: deps.logger,
    rp,
    sessions,
    names,
    html,
    message,
    again,
  });

  const app = new Hono<ConsoleEnv>({ strict: false }).basePath(CONSOLE_PATH);
  // Before any cookie is read: a sign-in begun on `localhost` must end on the registered origin.
  app.use(async (c, next) => {
    const canonical = canonicalLoopbackUrl(new URL(c.req.url), settings.origin);
    if (canonical) return redirect(canonical);
    await next();
  });
  app.get("/assets/console.css", () => asset(CONSOLE_CSS, "text/css; charset=utf-8"));
  app.get("/assets/console.js", () => asset(CONSOLE_JS, "text/javascript; charset=utf-8"));
  app.get("/sign-in", (c) => signIn(new URL(c.req.url)));
  app.get("/callback", (c) => callback(c.req.raw, new URL(c.req.url)));
  app.get(
    "/signed-out",
    () =>
      message("Signed out", "You are signed out of the gateway console and the auth service.", 200, {
        href: `${CONSOLE_PATH}/sign-in`,
        label: "Sign in",
      }),
  );

  // Every other route needs a session (then the personal gate below, then a POST's form check).
  app.use(async (c, next) => {
    const request = c.req.raw;
    const id = cookieOf(request, names.session);
    const session = id ? await sessions.get(id) : undefined;
    if (!session || !id) {
      if (trimmed(c) === `${CONSOLE_PATH}/sign-out`) {
        return redirect(`${CONSOLE_PATH}/signed-out`, {
          "set-cookie": setCookie(settings, names.session, "", 0),
        });
      }
      // An expired or missing session signs in again and returns to the page (for a POST, its own page).
      const url = new URL(c.req.url);
      const back = url.pathname + (request.method === "GET" ? url.search : "");
      return redirect(`${CONSOLE_PATH}/sign-in?return_to=${encodeURIComponent(back)}`);
    }
    c.set("session", session);
    c.set("sessionId", id);
    c.set("url", new URL(c.req.url));
    const personal = !isAdmin(settings.admins, session.userId, session.email ?? undefined);
    c.set("user", {
      label: session.name ?? session.email ?? session.userId,
      csrf: session.csrf,
      ...(personal ? { personal } : {}),
    });
    await next();
  });
  // A person who is not an admin: their own usage and requests (`user:<sub>`, what the gateway records for
  // their OP tokens, whatever the query says) and sign-out; every other page is for admins.
  app.use(async (c, next) => {
    if (!c.var.user.personal) return await next();
    const path = trimmed(c);
    const method = c.req.method;
    if (method === "POST" && path === `${CONSOLE_PATH}/sign-out`) return await next();
    if (method === "GET" || method === "HEAD") {
      if (path === CONSOLE_PATH) return redirect(`${CONSOLE_PATH}/usage`);
      if (PERSONAL_PATHS.has(path)) {
        c.var.url.searchParams.set("key", `user:${c.var.session.userId}`);
        return await next();
      }
    }
    const who = c.var.session.email ?? c.var.session.userId;
    return message(
      "Administrators only",
      `You are signed in as ${who}; this page is for administrators of this gateway. Your own usage is on the Usage and Requests pages.`,
      403,
      { href: `${CONSOLE_PATH}/usage`, label: "Your usage" },
    );
  });
  // A POST also needs a form of at most 16 KiB with the session's CSRF token.
  app.use(async (c, next) => {
    if (c.req.method === "POST") {
      const refused = await checkedForm(c, c.var.session);
      if (refused) return refused;
    }
    await next();
  });

  /** Reads and checks a POST's form (size, shape, origin and CSRF token); a response when refused. */
  const checkedForm = async (c: Context<ConsoleEnv>, session: ConsoleSession) => {
    const request = c.req.raw;
    const size = Number(request.headers.get("content-length") ?? "0");
    if (size > MAX_FORM_BYTES) return message("Form too large", "The form is larger than 16 KiB.", 413);
    let form: FormData;
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
      deps.logger.warn("console: a form without a valid CSRF token was refused", { path: trimmed(c) });
      return message(
        "Forbidden",
        "This form has expired or did not come from the console; reload the page and try again.",
        403,
      );
    }
    c.set("form", form);
    return undefined;
  };

  const signOut = async (session: ConsoleSession, id: string) => {
    await sessions.delete(id);
    const clear = setCookie(settings, names.session, "", 0);
    const target = await rp.endSessionUrl(session.idToken).catch(() => undefined);
    return redirect(target?.href ?? `${CONSOLE_PATH}/signed-out`, { "set-cookie": clear });
  };

  app.get("/", () => redirect(`${CONSOLE_PATH}/keys`));
  app.get("/keys", (c) => pages.keys(c.var.user, c.var.url));
  app.get("/usage", (c) => pages.usage(c.var.user, c.var.url));
  app.get("/usage/export.csv", (c) => pages.usageExport(c.var.user, c.var.url, "csv"));
  app.get("/usage/export.json", (c) => pages.usageExport(c.var.user, c.var.url, "json"));
  app.get("/requests", (c) => pages.requests(c.var.user, c.var.url));
  app.get("/providers", (c) => pages.providers(c.var.user));
  app.get(`/keys/${KEY_ID}`, (c) => pages.editKey(c.var.user, c.req.param("id")));
  app.get(`/keys/${KEY_ID}/revoke`, (c) => pages.confirmRevoke(c.var.user, c.req.param("id")));
  app.post("/sign-out", (c) => signOut(c.var.session, c.var.sessionId));
  app.post("/keys", (c) => pages.createKey(c.var.user, c.var.form));
  app.post(`/keys/${KEY_ID}`, (c) => pages.updateKey(c.var.user, c.req.param("id"), c.var.form));
  app.post(`/keys/${KEY_ID}/revoke`, (c) => pages.revokeKey(c.var.user, c.req.param("id")));
  app.notFound((c) => {
    const method = c.req.method;
    if (method !== "GET" && method !== "POST") {
      return message("Method not allowed", `${method} is not used by the console.`, 405);
    }
    return message("Not found", `There is no console page at ${trimmed(c)}.`, 404, {
      href: `${CONSOLE_PATH}/keys`,
      label: "Keys",
    });
  });
  app.onError((error, c) => {
    deps.logger.error("console: request failed", { path: new URL(c.req.url).pathname, error });
    return message(
      "Something went wrong",
      "The console could not complete this request; it was logged.",
      500,
    );
  });
  return async (request) => await app.fetch(request);
}

/** The request's path without trailing slashes (how the console names a page). */
function trimmed(c: Context<ConsoleEnv>): string {
  return new URL(c.req.url).pathname.replace(/\/+$/, "");
}
