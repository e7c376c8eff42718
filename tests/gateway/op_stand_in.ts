/**
 * A stand-in for the suite's OP as the gateway sees it: discovery and RFC 7662 introspection (Basic client
 * authentication checked) answering from a table of tokens, with switches to revoke a token, take the OP
 * down (connection refused) and count round trips.
 */

/** A running stand-in OP. */
export interface OpStandIn {
  issuer: string;
  /** Introspection round trips so far. */
  calls: number;
  /** Issues an access token for `sub` (in `groups`) to `clientId`, meant for `aud`. */
  issue(
    sub: string,
    groups?: string[],
    options?: { clientId?: string; aud?: string[]; ttlS?: number },
  ): string;
  /** Revokes a token. */
  revoke(token: string): void;
  /** Stops answering (connections refused) until {@link up}. */
  down(): Promise<void>;
  /** Answers again (same port). */
  up(): void;
  close(): Promise<void>;
}

/** Starts the stand-in; introspection requires client `clientId` with `secret`. */
export function startOpStandIn(clientId: string, secret: string): Promise<OpStandIn> {
  const tokens = new Map<string, Record<string, unknown>>();
  let issuer = "";
  let port = 0;
  const handler = async (request: Request) => {
    const path = new URL(request.url).pathname;
    if (path === "/.well-known/openid-configuration") {
      return Response.json({ issuer, introspection_endpoint: `${issuer}/oauth2/introspect` });
    }
    if (path !== "/oauth2/introspect" || request.method !== "POST") {
      return new Response(null, { status: 404 });
    }
    if (request.headers.get("authorization") !== `Basic ${btoa(`${clientId}:${secret}`)}`) {
      return Response.json({ error: "invalid_client" }, { status: 401 });
    }
    state.calls++;
    const token = new URLSearchParams(await request.text()).get("token") ?? "";
    const answer = tokens.get(token);
    const live = answer && Number(answer.exp) * 1000 > Date.now();
    return Response.json(live ? answer : { active: false });
  };
  let server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  port = server.addr.port;
  issuer = `http://127.0.0.1:${port}`;
  const state: OpStandIn = {
    issuer,
    calls: 0,
    issue(sub, groups = [], options = {}) {
      const token = `op_${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID().replaceAll("-", "")}`;
      tokens.set(token, {
        active: true,
        token_type: "Bearer",
        iss: issuer,
        client_id: options.clientId ?? clientId,
        ...(options.aud ? { aud: options.aud } : {}),
        sub,
        groups,
        scope: "openid groups",
        exp: Math.floor(Date.now() / 1000) + (options.ttlS ?? 3600),
        iat: Math.floor(Date.now() / 1000),
      });
      return token;
    },
    revoke(token) {
      tokens.delete(token);
    },
    async down() {
      await server.shutdown();
    },
    up() {
      server = Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, handler);
    },
    close: () => server.shutdown().catch(() => {}),
  };
  return Promise.resolve(state);
}
