/** The shared page frame and security headers of the auth pages (no scripts, no client framework). */
import type { Child } from "hono/jsx";

/**
 * Headers every auth page carries: no framing, no caching, and `Referrer-Policy: same-origin` — the pages'
 * URLs carry the signed OAuth query, which no other origin may see in a Referer, while the service's own
 * form posts keep a real `Origin` (under `no-referrer` Chromium sends `Origin: null`, and the origin checks
 * refused every deployed sign-in).
 */
const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/html; charset=utf-8",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
};

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f6f8;color:#1b1f24}
main{max-width:28rem;margin:0 auto;padding:2rem 1rem}
.card{background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:1.5rem}
h1{font-size:1.4rem;margin:0 0 1rem}
p{margin:0 0 1rem}
ul{padding-left:1.25rem;margin:0 0 1.25rem}
form{margin:0 0 .75rem}
button{display:block;width:100%;min-height:48px;font:inherit;font-weight:600;border-radius:8px;padding:.75rem 1rem;cursor:pointer;border:2px solid #1b1f24;background:#1b1f24;color:#fff}
button.secondary{background:#fff;color:#1b1f24}
button:focus-visible{outline:3px solid #0969da;outline-offset:2px}
.error{color:#a40e26}
.row{display:flex;gap:.75rem;flex-wrap:wrap}.row form{flex:1 1 10rem}
`;

/** Wraps page content in an accessible, phone-readable document. */
export function Layout(props: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{props.title}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>
          <div class="card">{props.children}</div>
        </main>
      </body>
    </html>
  );
}

/** Renders a page with the security headers. */
export function renderPage(node: unknown, status = 200): Response {
  return new Response("<!doctype html>" + String(node), { status, headers: PAGE_SECURITY_HEADERS });
}
