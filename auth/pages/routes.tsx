/**
 * The service's own HTML pages: `/sign-in` with its provider form posts, and `/consent`. Each form post calls
 * the matching Better Auth endpoint as JSON on the browser's behalf and answers the browser with a 303.
 */
import type { Client } from "@libsql/client";
import type { Env, Hono } from "hono";
import { renderPage } from "./layout.tsx";
import { SignInPage } from "./sign_in.tsx";
import { ConsentPage, ErrorPage } from "./consent.tsx";
import { LOCAL_DEVELOPER_SIGN_IN_PATH } from "../local/developer.ts";
import { verifiedOAuthQuery } from "./signed_query.ts";
import { signInErrorMessage } from "../membership/denials.ts";

/** What the page routes need from the auth app. */
export interface PageRouteDeps {
  /** Local mode: the local-developer sign-in replaces GitHub. */
  local: boolean;
  /** The secret Better Auth signs the pages' OAuth query with. */
  secret: string;
  /** The auth database client (consent looks up the client's name). */
  client: Client;
  /** The signed-in session of a request, or null. */
  sessionOf(request: Request): Promise<{ user: { name: string } } | null>;
  /** Calls `/api/auth<path>` as JSON on behalf of a page form, with the browser's credentials. */
  callAuth(request: Request, path: string, body: unknown): Promise<Response>;
}

/** Adds `GET /sign-in`, `POST /sign-in/github` (or `/sign-in/local-developer`), `GET` and `POST /consent`. */
export function registerPageRoutes<E extends Env>(app: Hono<E>, deps: PageRouteDeps): void {
  app.get("/sign-in", async (c) => {
    const url = new URL(c.req.url);
    // Only a query Better Auth signed travels on with the sign-in; anything else is a plain sign-in.
    const signed = url.searchParams.has("sig")
      ? await verifiedOAuthQuery(url.search, deps.secret)
      : undefined;
    const oauthQuery = signed ? url.search.slice(1) : "";
    const session = await deps.sessionOf(c.req.raw);
    // A refused sign-in lands here with a code; the page says why in its own words (never the URL's text).
    const error = url.searchParams.get("error");
    return renderPage(
      <SignInPage
        localMode={deps.local}
        oauthQuery={oauthQuery}
        signedInAs={session?.user.name}
        error={error ? signInErrorMessage(error) : undefined}
      />,
      error ? 403 : 200,
    );
  });

  if (deps.local) {
    app.post("/sign-in/local-developer", async (c) => {
      const form = await c.req.parseBody();
      const oauthQuery = typeof form.oauth_query === "string" ? form.oauth_query : "";
      const response = await deps.callAuth(
        c.req.raw,
        LOCAL_DEVELOPER_SIGN_IN_PATH,
        oauthQuery ? { oauth_query: oauthQuery } : {},
      );
      return redirectFromAuth(response, "/sign-in", "Sign-in failed");
    });
  } else {
    app.post("/sign-in/github", async (c) => {
      const form = await c.req.parseBody();
      const oauthQuery = typeof form.oauth_query === "string" ? form.oauth_query : "";
      const response = await deps.callAuth(c.req.raw, "/sign-in/social", {
        provider: "github",
        callbackURL: "/sign-in",
        errorCallbackURL: "/sign-in",
        ...(oauthQuery ? { oauth_query: oauthQuery } : {}),
      });
      return redirectFromAuth(response, "/sign-in", "Sign-in failed");
    });
  }

  app.get("/consent", async (c) => {
    const url = new URL(c.req.url);
    const session = await deps.sessionOf(c.req.raw);
    if (!session) return c.redirect(`/sign-in${url.search}`, 302);
    const signed = await verifiedOAuthQuery(url.search, deps.secret);
    if (!signed) {
      return renderPage(
        <ErrorPage
          title="Invalid or expired request"
          message="This consent request was not issued by this service or has expired. Start again from the application."
        />,
        400,
      );
    }
    const clientId = signed.get("client_id") ?? "";
    const row = await deps.client.execute({
      sql: "SELECT name FROM oauth_client WHERE client_id = ?",
      args: [clientId],
    });
    if (!row.rows[0]) {
      return renderPage(
        <ErrorPage title="Unknown application" message="This application is not registered." />,
        400,
      );
    }
    const scopes = (signed.get("scope") ?? "").split(" ").filter(Boolean);
    const name = row.rows[0].name === null ? clientId : String(row.rows[0].name);
    return renderPage(<ConsentPage clientName={name} scopes={scopes} oauthQuery={url.search.slice(1)} />);
  });

  app.post("/consent", async (c) => {
    const form = await c.req.parseBody();
    const oauthQuery = typeof form.oauth_query === "string" ? form.oauth_query : "";
    const response = await deps.callAuth(c.req.raw, "/oauth2/consent", {
      accept: form.decision === "allow",
      oauth_query: oauthQuery,
    });
    return redirectFromAuth(response, "/sign-in", "Consent failed");
  });
}

/** Turns an auth endpoint's JSON `{url}` answer into a 303 for the browser, keeping its cookies. */
async function redirectFromAuth(response: Response, fallback: string, title: string): Promise<Response> {
  let body: Record<string, unknown> = {};
  try {
    body = await response.clone().json();
  } catch {
    body = {};
  }
  if (!response.ok) {
    const message = String(body.message ?? body.error_description ?? body.error ?? "The request failed.");
    const page = renderPage(<ErrorPage title={title} message={message} />, response.status);
    for (const cookie of response.headers.getSetCookie()) page.headers.append("set-cookie", cookie);
    return page;
  }
  const location = typeof body.url === "string" ? body.url : fallback;
  const out = new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
  for (const cookie of response.headers.getSetCookie()) out.headers.append("set-cookie", cookie);
  return out;
}
