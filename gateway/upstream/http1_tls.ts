/**
 * TLS for the built-in upstream client (http1_client.ts): `Deno.startTls` (rustls) over a TCP_NODELAY
 * socket, the handshake awaited; and the one place that recognises a refused certificate in an error chain,
 * so the gateway can say so in its `api_error` (whichever client, built-in or `fetch`, met it).
 */

/**
 * A TLS connection with its handshake done (so the connect timeout covers it and a refused certificate fails
 * here, as a {@link TlsRefusedError}): certificate chain and host name verified by rustls against the root
 * store (or `caCerts`), SNI sent for host names, ALPN `http/1.1` only. `signal` (the request's abort and the
 * connect timeout) ends the wait at any stage; a socket in mid-handshake is only released when the server
 * hangs up (Deno's `close()` leaves it to the pending handshake), measured in tls_upstream_test.ts.
 */
export async function connectTls(
  hostname: string,
  port: number,
  caCerts: string[] | undefined,
  signal: AbortSignal,
): Promise<Deno.TlsConn> {
  // TCP first, so Nagle can be turned off (a TlsConn has no setNoDelay), then TLS over it.
  const tcp = await Deno.connect({ hostname, port, signal });
  tcp.setNoDelay(true);
  const conn = await Deno.startTls(tcp, { hostname, caCerts, alpnProtocols: ["http/1.1"] });
  // Closing a TlsConn does not settle a pending handshake, so the abort both closes it and rejects.
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    signal.throwIfAborted();
    await Promise.race([conn.handshake(), aborted]);
    return conn;
  } catch (error) {
    try {
      conn.close();
    } catch {
      // already closed
    }
    if (signal.aborted) throw signal.reason;
    const reason = tlsRefusal(error);
    throw reason ? new TlsRefusedError(reason, error) : error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
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
