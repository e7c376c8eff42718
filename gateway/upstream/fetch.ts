/**
 * The upstream client the gateway calls providers with, chosen by GATEWAY_UPSTREAM_CLIENT: `builtin` (the
 * pooled HTTP/1.1 client of http1_client.ts, for `http://` and `https://` upstreams alike) or `fetch` (Deno's,
 * which honours HTTP_PROXY / HTTPS_PROXY and is chosen automatically when one is set).
 */
import type { UpstreamFetch } from "./response.ts";
import { createHttp1Client } from "./http1_client.ts";

/** Options of {@link createUpstreamFetch}. */
export interface UpstreamFetchOptions {
  /** Longest wait for a new connection, TLS handshake included. */
  connectTimeoutMs: number;
  /**
   * PEM certificates trusted for `https://` upstreams in place of the process's root store. Test-only: in
   * production the root store is Deno's (Mozilla's roots), extended by `DENO_CERT=<pem file>` or replaced by
   * `DENO_TLS_CA_STORE=system`, for both clients alike.
   */
  caCerts?: string[];
}

/**
 * The upstream fetch for `client`. The built-in client serves TLS upstreams too: through Deno's fetch a
 * streamed body costs tens of µs per frame more, and one more task per request (docs/gateway.md, "HTTPS").
 */
export function createUpstreamFetch(
  client: "builtin" | "fetch",
  options: UpstreamFetchOptions,
): UpstreamFetch {
  if (client === "fetch") {
    if (!options.caCerts) return globalThis.fetch;
    const httpClient = Deno.createHttpClient({ caCerts: options.caCerts });
    return (url, init) => globalThis.fetch(url, { ...init, client: httpClient });
  }
  return createHttp1Client({ connectTimeoutMs: options.connectTimeoutMs, caCerts: options.caCerts }).fetch;
}
