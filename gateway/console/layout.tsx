/** The console's page frame: skip link, navigation, the signed-in admin with the sign-out form. */
import type { Child } from "hono/jsx";
import { securityHeaders } from "./http.ts";
import { CONSOLE_PATH } from "./settings.ts";

/** The pages in the navigation, in order. */
export const NAV = [
  { path: `${CONSOLE_PATH}/keys`, label: "Keys" },
  { path: `${CONSOLE_PATH}/usage`, label: "Usage" },
  { path: `${CONSOLE_PATH}/requests`, label: "Requests" },
  { path: `${CONSOLE_PATH}/providers`, label: "Providers" },
] as const;

/** The pages a signed-in person who is not an admin sees (their own usage and requests). */
export const PERSONAL_PAGES: ReadonlySet<string> = new Set([
  `${CONSOLE_PATH}/usage`,
  `${CONSOLE_PATH}/requests`,
]);

/** Who is signed in, as the frame shows it. */
export interface FrameUser {
  /** Display name or email or id. */
  label: string;
  /** The session's CSRF token (for the sign-out form). */
  csrf: string;
  /** Signed in without being an admin: only their own Usage and Requests (no Keys, no Providers). */
  personal?: boolean;
}

/** Wraps a page: `user` absent for the pages seen before sign-in (errors, signed out). */
export function Frame(props: { title: string; current?: string; user?: FrameUser; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Switchyard gateway`}</title>
        <link rel="stylesheet" href={`${CONSOLE_PATH}/assets/console.css`} />
        <script src={`${CONSOLE_PATH}/assets/console.js`} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <span class="brand">Switchyard gateway</span>
          {props.user && (
            <nav aria-label="Console">
              <ul>
                {NAV.filter((item) => !props.user?.personal || PERSONAL_PAGES.has(item.path)).map((item) => (
                  <li>
                    <a href={item.path} aria-current={props.current === item.path ? "page" : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          {props.user && (
            <div class="who">
              <span>{props.user.label}</span>
              <form method="post" action={`${CONSOLE_PATH}/sign-out`}>
                <input type="hidden" name="_csrf" value={props.user.csrf} />
                <button type="submit" class="secondary">Sign out</button>
              </form>
            </div>
          )}
        </header>
        <main id="main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** An HTML response with the console's security headers. */
export function htmlResponse(
  node: unknown,
  formTarget: string,
  status = 200,
  extra: Record<string, string | string[]> = {},
): Response {
  const headers = new Headers(securityHeaders(formTarget));
  headers.set("content-type", "text/html; charset=utf-8");
  for (const [name, value] of Object.entries(extra)) {
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Response("<!doctype html>" + String(node), { status, headers });
}

/** A plain message page (403, 400, signed out) with an optional link. */
export function MessagePage(
  props: { title: string; message: string; link?: { href: string; label: string } },
) {
  return (
    <Frame title={props.title}>
      <div class="card">
        <p>{props.message}</p>
        {props.link && (
          <p>
            <a href={props.link.href}>{props.link.label}</a>
          </p>
        )}
      </div>
    </Frame>
  );
}
