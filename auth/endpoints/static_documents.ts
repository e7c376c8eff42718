/**
 * The discovery documents and the JWKS, served from memory. They are the same bytes for every caller: the
 * discovery metadata for the life of the process (it follows from the configuration), the JWKS for one
 * second at a time (a key added by rotation in another process is published within a second). Each has an
 * ETag; a matching `If-None-Match` gets a 304. Served before the rest of the middleware (local mode's Host
 * allow-list still applies), and not rate-limited: a cached answer costs less than counting it. Once a copy
 * is loaded, {@link StaticDocuments.cached} answers synchronously from the raw request, before the app's
 * router runs at all (auth/app.tsx): these are the service's most frequent and cheapest requests.
 */
import { sha256Base64url } from "@switchyard/lib/crypto.ts";

/** The paths served from memory, with how long one copy is kept (ms). */
const DOCUMENTS: ReadonlyMap<string, { ttlMs: number; cacheControl: string }> = new Map([
  ["/api/auth/.well-known/openid-configuration", { ttlMs: Infinity, cacheControl: "public, max-age=3600" }],
  ["/api/auth/.well-known/oauth-authorization-server", {
    ttlMs: Infinity,
    cacheControl: "public, max-age=3600",
  }],
  ["/.well-known/oauth-authorization-server/api/auth", {
    ttlMs: Infinity,
    cacheControl: "public, max-age=3600",
  }],
  ["/api/auth/jwks", { ttlMs: 1000, cacheControl: "public, max-age=300" }],
]);

interface Copy {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  /** The headers of a 200 or 304 (content type, cache control, ETag, CORS). */
  headers: Record<string, string>;
  loadedAt: number;
}

/** The documents' server: `(request)` loads what it must; `cached(request)` answers only from memory. */
export interface StaticDocuments {
  /** The answer for `request` when it asks for one of the documents, else undefined. */
  (request: Request): Promise<Response | undefined>;
  /** The answer when the document is already in memory and fresh, else undefined (no work beyond a lookup). */
  cached(request: Request): Response | undefined;
}

/** The path of a request URL (as `new URL(url).pathname`: Request URLs are already serialized). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** The document's answer to `request` from `copy` (304 on a matching If-None-Match). */
function answer(request: Request, copy: Copy): Response {
  const match = request.headers.get("if-none-match");
  if (match && match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === copy.etag)) {
    return new Response(null, { status: 304, headers: copy.headers });
  }
  return new Response(request.method === "HEAD" ? null : copy.body, { status: 200, headers: copy.headers });
}

/** Serves the documents from a loader that computes them (the service's own route for the path). */
export function staticDocuments(
  load: (path: string) => Promise<Response>,
  now: () => number = Date.now,
): StaticDocuments {
  const copies = new Map<string, Promise<Copy | undefined>>();
  /** The loaded copies, for the synchronous path. */
  const loaded = new Map<string, Copy>();

  const fresh = async (path: string, ttlMs: number): Promise<Copy | undefined> => {
    const cached = copies.get(path);
    if (cached) {
      const copy = await cached;
      if (copy && now() - copy.loadedAt < ttlMs) return copy;
      if (copies.get(path) !== cached) return await copies.get(path);
    }
    const loading = (async () => {
      const response = await load(path);
      if (response.status !== 200) {
        await response.body?.cancel();
        return undefined;
      }
      const body = new Uint8Array(await response.arrayBuffer());
      // 96 bits of the body's SHA-256 (lib/crypto.ts): a strong validator for these bytes.
      const etag = `"${sha256Base64url(body).slice(0, 16)}"`;
      const headers = {
        "content-type": response.headers.get("content-type") ?? "application/json",
        "cache-control": DOCUMENTS.get(path)!.cacheControl,
        etag,
        "access-control-allow-origin": "*",
      };
      return { body, etag, headers, loadedAt: now() };
    })();
    copies.set(path, loading);
    loading.then((copy) => {
      if (copies.get(path) !== loading) return;
      if (copy) loaded.set(path, copy);
      else copies.delete(path);
    }, () => copies.delete(path));
    return await loading;
  };

  const documentOf = (request: Request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const path = pathOf(request.url);
    const document = DOCUMENTS.get(path);
    return document ? { path, document } : undefined;
  };

  const serve = async (request: Request): Promise<Response | undefined> => {
    const asked = documentOf(request);
    if (!asked) return undefined;
    const copy = await fresh(asked.path, asked.document.ttlMs);
    return copy ? answer(request, copy) : undefined;
  };
  return Object.assign(serve, {
    cached(request: Request): Response | undefined {
      const asked = documentOf(request);
      if (!asked) return undefined;
      const copy = loaded.get(asked.path);
      if (!copy || !(now() - copy.loadedAt < asked.document.ttlMs)) return undefined;
      return answer(request, copy);
    },
  });
}
