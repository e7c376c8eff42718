/**
 * Test harness: starts the real auth service (the same `createAuthApp` the entrypoint serves) on loopback
 * with port 0 and a fresh migrated database, and a tiny browser stand-in (cookie jar + redirects) that
 * signs in with the local developer account and answers the consent page.
 */
import { type Logger, silentLogger } from "@switchyard/lib/log.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { type AuthDeps, createAuthApp } from "../../auth/app.tsx";
import type { BackchannelDelivery } from "../../auth/logout/delivery.ts";
import { type AuthConfig, readAuthConfig } from "../../auth/config.ts";
import { LOCAL_MODE_SECRET } from "../../auth/better_auth/mod.ts";
import { type AuthDatabase, openAuthDatabase } from "../../auth/better_auth/database.ts";
import {
  type ClientRegistration,
  registerClient,
  type RegisteredClient,
} from "../../auth/operations/register_client.ts";

/** A running auth service. */
export interface AuthService extends AsyncDisposable {
  /** Base URL, for example `http://127.0.0.1:40123`. */
  url: string;
  /** The issuer `{url}/api/auth`. */
  issuer: string;
  /** The validated configuration it runs with. */
  config: AuthConfig;
  /** Its open database. */
  database: AuthDatabase;
  /** Path of the database file. */
  dbPath: string;
  /** Calls the app in-process, as if from peer `peer` (defaults to 127.0.0.1). */
  handle(request: Request, peer?: string): Promise<Response>;
  /** The back-channel logout delivery of the app (stopped on dispose). */
  logoutDelivery: BackchannelDelivery;
  /** Registers a client directly (as `oauth:register` does). */
  register(reg: Partial<ClientRegistration> & { redirectUris: string[] }): Promise<RegisteredClient>;
}

/**
 * Starts the service in local mode on `hostname` (127.0.0.1) with a free port; `env` adds or overrides keys,
 * `deps` passes test clocks and timeouts, and `deps.backchannel` tunes back-channel logout delivery.
 */
export async function startAuthService(
  env: Record<string, string> = {},
  hostname = "127.0.0.1",
  logger: Logger = silentLogger,
  deps: { now?: () => number; githubTimeoutMs?: number; backchannel?: AuthDeps["backchannel"] } = {},
): Promise<AuthService> {
  const dir = await Deno.makeTempDir({ prefix: "switchyard-auth-" });
  const dbPath = `${dir}/auth.db`;
  let handler: (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response> =
    () => new Response("starting", { status: 503 });
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname, port: 0, onListen: (addr) => resolve(addr.port) },
    (request, info) => handler(request, info),
  );
  const port = await listening;
  const url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  const config = readAuthConfig({
    AUTH_LOCAL_MODE: "true",
    AUTH_BASE_URL: url,
    AUTH_DATABASE_URL: `file:${dbPath}`,
    LOG_LEVEL: "silent",
    ...env,
  });
  const database = await openAuthDatabase(config.AUTH_DATABASE_URL);
  await migrateDirectory(database.client, DATABASE_TARGETS.find((t) => t.name === "auth")!.migrationsDir);
  let logoutDelivery: BackchannelDelivery | undefined;
  const app = createAuthApp(config, {
    logger,
    database,
    ...deps,
    backchannel: { ...deps.backchannel, expose: (delivery) => (logoutDelivery = delivery) },
  });
  handler = (request, info) => app.fetch(request, { info });
  return {
    url,
    issuer: `${url}/api/auth`,
    config,
    database,
    dbPath,
    logoutDelivery: logoutDelivery!,
    handle: async (request, peer = "127.0.0.1") =>
      await app.fetch(request, { info: { remoteAddr: { transport: "tcp", hostname: peer, port: 50000 } } }),
    register: (reg) => registerClient(database, url, { name: "Test client", ...reg }),
    async [Symbol.asyncDispose]() {
      await logoutDelivery?.stop();
      await server.shutdown();
      database.client.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** A minimal browser: a cookie jar and manual redirects, so each hop can be inspected. */
export class Browser {
  /** Cookies by name. */
  readonly cookies = new Map<string, string>();
  /** Extra headers sent with every request. */
  readonly headers: Record<string, string>;

  constructor(headers: Record<string, string> = {}) {
    this.headers = headers;
  }

  /** Sends one request with the jar's cookies and stores the response's cookies. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.headers)) if (!headers.has(k)) headers.set(k, v);
    if (this.cookies.size) {
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Posts a form, with the service's own Origin as a browser on the page would. */
  async postForm(
    url: string,
    fields: Record<string, string>,
    origin = new URL(url).origin,
  ): Promise<Response> {
    return await this.request(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** Location of a redirect response, resolved against `base`. */
export function locationOf(response: Response, base: string): string {
  const location = response.headers.get("location");
  if (!location) throw new Error(`expected a redirect, got ${response.status}`);
  return new URL(location, base).href;
}

/** What happened when a browser followed an authorization request to the client's redirect URI. */
export interface AuthorizationOutcome {
  /** The final redirect to the client, with `code`/`error`, `state` and `iss`. */
  callback: URL;
  /** Pages the browser saw on the way, by path. */
  pages: Record<string, string>;
}

/**
 * Follows an authorization URL like a user: signs in as the local developer when asked, answers the consent
 * page with `decision`, and stops at the first redirect to `redirectUri`.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizationUrl: string,
  redirectUri: string,
  decision: "allow" | "deny" = "allow",
): Promise<AuthorizationOutcome> {
  const pages: Record<string, string> = {};
  let url = authorizationUrl;
  for (let hop = 0; hop < 12; hop++) {
    if (url.startsWith(redirectUri)) return { callback: new URL(url), pages };
    const target = new URL(url);
    const response = await browser.request(url);
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      url = locationOf(response, url);
      continue;
    }
    const html = await response.text();
    pages[target.pathname] = html;
    const oauthQuery = target.search.slice(1);
    let next: Response;
    if (target.pathname === "/sign-in") {
      next = await browser.postForm(`${target.origin}/sign-in/local-developer`, { oauth_query: oauthQuery });
    } else if (target.pathname === "/consent") {
      next = await browser.postForm(`${target.origin}/consent`, { oauth_query: oauthQuery, decision });
    } else {
      throw new Error(`unexpected page ${url} (${response.status}): ${html.slice(0, 300)}`);
    }
    if (next.status !== 303) {
      throw new Error(`form answered ${next.status}: ${(await next.text()).slice(0, 300)}`);
    }
    url = locationOf(next, target.href);
  }
  throw new Error("too many redirects");
}

/**
 * A test-only seeded sign-in (deployed sign-in is GitHub; local mode has one account): inserts a user and a
 * session, and returns the `Cookie` pair signed as Better Auth signs its session cookie.
 */
export async function seedSession(
  svc: AuthService,
  user: { id: string; name: string; email: string },
  cookieName = "svc.session_token",
): Promise<string> {
  const now = Date.now();
  const token = crypto.randomUUID().replaceAll("-", "");
  await svc.database.client.batch([
    {
      sql:
        "INSERT INTO user (id, name, email, email_verified, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
      args: [user.id, user.name, user.email, now, now],
    },
    {
      sql:
        "INSERT INTO session (id, expires_at, token, created_at, updated_at, user_id) VALUES (?, ?, ?, ?, ?, ?)",
      args: [`seeded-${crypto.randomUUID()}`, now + 3_600_000, token, now, now, user.id],
    },
  ], "write");
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(svc.config.AUTH_SECRET ?? LOCAL_MODE_SECRET),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(token)));
  return `${cookieName}=${encodeURIComponent(`${token}.${btoa(String.fromCharCode(...mac))}`)}`;
}
