/**
 * TLS for the built-in upstream client (http1_client.ts): `Deno.connectTls` (rustls) with the handshake
 * awaited, and the one place that recognises a refused certificate in an error chain, so the gateway can say
 * so in its `api_error` (whichever client, built-in or `fetch`, met it).
 */

/**
 * A TLS connection with its handshake done (so the connect timeout covers it and a refused certificate fails
 * here, as a {@link TlsRefusedError}): certificate chain and host name verified by rustls against the root
 * store (or `caCerts`), SNI sent for host names, ALPN `http/1.1` only.
 */
export async function connectTls(hostname: string, port: number, caCerts?: string[]): Promise<Deno.TlsConn> {
  // TCP first, so Nagle can be turned off (a TlsConn has no setNoDelay), then TLS over it.
  const tcp = await Deno.connect({ hostname, port });
  tcp.setNoDelay(true);
  const conn = await Deno.startTls(tcp, { hostname, caCerts, alpnProtocols: ["http/1.1"] });
  try {
    await conn.handshake();
  } catch (error) {
    conn.close();
    const reason = tlsRefusal(error);
    throw reason ? new TlsRefusedError(reason, error) : error;
  }
  return conn;
}

/** The upstream's TLS certificate was refused (unknown issuer, wrong host name, expired, ...). */
export class TlsRefusedError extends Error {
  /** `reason`: a short, credential-free description, e.g. "certificate not trusted (UnknownIssuer)". */
  constructor(readonly reason: string, cause: unknown) {
    super(`TLS certificate refused: ${reason}`, { cause });
    this.name = "TlsRefusedError";
  }
}

/**
 * A short description of a certificate refusal found in `error` or its causes (rustls's messages, as both
 * `Deno.connectTls` and `fetch` report them), or undefined when the error is not one.
 */
export function tlsRefusal(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof TlsRefusedError) return e.reason;
    const m = /invalid peer certificate: (.*)$/m.exec(e.message);
    if (!m) continue;
    if (/not valid for name/.test(m[1])) return "certificate not valid for the host name";
    const kind = /^(\w+)/.exec(m[1])?.[1] ?? "invalid";
    return kind === "UnknownIssuer"
      ? "certificate not trusted (UnknownIssuer)"
      : `certificate refused (${kind})`;
  }
  return undefined;
}
