/**
 * The discovery documents and the JWKS, served from memory. They are the same bytes for every caller: the
 * discovery metadata for the life of the process (it follows from the configuration), the JWKS for one
 * second at a time (a key added by rotation in another process is published within a second). Each has an
 * ETag; a matching `If-None-Match` gets a 304. Served before the rest of the middleware (local mode's Host
 * allow-list still applies), and not rate-limited: a cached answer costs less than counting it.
 */

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
  contentType: string;
  loadedAt: number;
}

/** Serves the documents from a loader that computes them (the service's own route for the path). */
export function staticDocuments(load: (path: string) => Promise<Response>, now: () => number = Date.now) {
  const copies = new Map<string, Promise<Copy | undefined>>();

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
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
      const etag = `"${btoa(String.fromCharCode(...digest.slice(0, 12)))}"`;
      return {
        body,
        etag,
        contentType: response.headers.get("content-type") ?? "application/json",
        loadedAt: now(),
      };
    })();
    copies.set(path, loading);
    loading.then((copy) => {
      if (!copy && copies.get(path) === loading) copies.delete(path);
    }, () => copies.delete(path));
    return await loading;
  };

  /** The answer for `request` when it asks for one of the documents, else undefined. */
  return async (request: Request): Promise<Response | undefined> => {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const path = new URL(request.url).pathname;
    const document = DOCUMENTS.get(path);
    if (!document) return undefined;
    const copy = await fresh(path, document.ttlMs);
    if (!copy) return undefined;
    const headers = {
      "content-type": copy.contentType,
      "cache-control": document.cacheControl,
      etag: copy.etag,
      "access-control-allow-origin": "*",
    };
    const match = request.headers.get("if-none-match");
    if (match && match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === copy.etag)) {
      return new Response(null, { status: 304, headers });
    }
    return new Response(request.method === "HEAD" ? null : copy.body, { status: 200, headers });
  };
}
