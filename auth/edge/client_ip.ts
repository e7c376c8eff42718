/**
 * How the deployed service identifies a client for rate limiting, behind whatever edge it runs: one setting,
 * `AUTH_CLIENT_IP`, because only the operator knows which part of a request the edge vouches for. Trusting a
 * header the client can set (a raw `X-Forwarded-For`) would let a client pick its own bucket; sharing one
 * bucket between every caller would let one client lock out everyone.
 */

/** A parsed `AUTH_CLIENT_IP` value. */
export type ClientIpSource =
  | { kind: "socket" }
  | { kind: "header"; name: string }
  | { kind: "forwarded-for"; hopFromRight: number };

/** The accepted forms, for error messages and docs. */
export const CLIENT_IP_FORMS = "socket, header:<name> (e.g. header:cf-connecting-ip) or forwarded-for:<n>";

/** Parses `AUTH_CLIENT_IP`; returns an error message for a bad value. */
export function parseClientIpSource(raw: string): ClientIpSource | string {
  const value = raw.trim();
  if (value === "socket") return { kind: "socket" };
  const header = /^header:([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/.exec(value);
  if (header) return { kind: "header", name: header[1].toLowerCase() };
  const hops = /^forwarded-for:(\d{1,2})$/.exec(value);
  if (hops && Number(hops[1]) >= 1) return { kind: "forwarded-for", hopFromRight: Number(hops[1]) };
  return `expected ${CLIENT_IP_FORMS}, got ${JSON.stringify(raw)}`;
}

/** The peer address of a `Deno.serve` connection, if known. */
export function peerAddress(info: Deno.ServeHandlerInfo | undefined): string | undefined {
  const addr = info?.remoteAddr;
  return addr && "hostname" in addr ? addr.hostname : undefined;
}

/**
 * The client address of a request under `source`, or undefined when the request does not carry what the
 * edge should have added (the caller then refuses or limits it under a bucket of its own).
 */
export function clientAddress(
  request: Request,
  source: ClientIpSource,
  info: Deno.ServeHandlerInfo | undefined,
): string | undefined {
  switch (source.kind) {
    case "socket":
      return peerAddress(info);
    case "header": {
      const value = request.headers.get(source.name)?.trim();
      return value && value.length <= 100 && !value.includes(",") ? value : undefined;
    }
    case "forwarded-for": {
      const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim())
        .filter(Boolean);
      // The n-th address from the right was written by the n-th proxy of ours; anything left of it is
      // whatever the client claimed.
      const hop = hops[hops.length - source.hopFromRight];
      return hop && hop.length <= 100 ? hop : undefined;
    }
  }
}
