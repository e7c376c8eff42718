/**
 * The gateway with its admin console in front of a real auth service in local mode (both on loopback, port
 * 0), the console's client registered as `oauth:register` does, and a cookie-jar browser that signs in with
 * "Continue as local developer".
 */
import { createLogger } from "@switchyard/lib/log.ts";
import { openDatabase } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { createGatewayApp } from "../../gateway/app.ts";
import { readGatewayConfig } from "../../gateway/config/mod.ts";
import { ApiKeyStore, type KeysDatabase } from "../../gateway/keys/store.ts";
import { KeyVerifier } from "../../gateway/keys/verifier.ts";
import { type UsageDatabase, UsageLedger } from "../../gateway/usage/ledger.ts";
import type { ConsoleDatabase } from "../../gateway/console/session_store.ts";
import type { Kysely } from "kysely";
import {
  authorizeInBrowser,
  type AuthService,
  Browser,
  locationOf,
  startAuthService,
} from "../auth/harness.ts";

/** A running console with its auth service. */
export interface ConsoleHarness extends AsyncDisposable {
  /** Gateway origin (`http://127.0.0.1:<port>`). */
  url: string;
  auth: AuthService;
  db: Kysely<KeysDatabase & UsageDatabase & ConsoleDatabase>;
  store: ApiKeyStore;
  ledger: UsageLedger;
}

/** Starts auth + gateway with the console; `admins` is GATEWAY_ADMINS, `env` adds gateway settings. */
export async function startConsoleHarness(
  admins = "local-developer",
  env: Record<string, string> = {},
): Promise<ConsoleHarness> {
  const auth = await startAuthService();
  const dir = await Deno.makeTempDir({ prefix: "gateway-console-" });
  let handler: (request: Request) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: (a) => resolve(a.port) },
    (r) => handler(r),
  );
  const url = `http://127.0.0.1:${await promise}`;
  const client = await auth.register({
    name: "Gateway console",
    redirectUris: [`${url}/admin/callback`],
    postLogoutRedirectUris: [`${url}/admin/signed-out`],
    enableEndSession: true,
    skipConsent: true,
  });
  const config = readGatewayConfig({
    GATEWAY_DATABASE_URL: `file:${dir}/gateway.db`,
    AUTH_ISSUER: auth.issuer,
    GATEWAY_CONSOLE_URL: url,
    GATEWAY_CONSOLE_CLIENT_ID: client.client_id,
    GATEWAY_CONSOLE_CLIENT_SECRET: client.client_secret!,
    GATEWAY_ADMINS: admins,
    LOG_LEVEL: "silent",
    ...env,
  });
  const opened = await openDatabase<KeysDatabase & UsageDatabase & ConsoleDatabase>({
    url: config.GATEWAY_DATABASE_URL,
  });
  await migrateDirectory(opened.client, DATABASE_TARGETS.find((t) => t.name === "gateway")!.migrationsDir);
  const db = opened.db;
  const store = new ApiKeyStore(db);
  const keys = new KeyVerifier(() => store.activeHashes(), { ttlMs: 150 });
  const logger = createLogger({ level: "silent" });
  const ledger = new UsageLedger({ db: () => Promise.resolve(db), logger, retentionDays: 90, flushMs: 50 });
  const app = createGatewayApp(config, { logger, keys, usage: { ledger, db: () => Promise.resolve(db) } });
  handler = (request) => app.fetch(request);
  return {
    url,
    auth,
    db,
    store,
    ledger,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await app.close();
      opened.client.close();
      await auth[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** Follows the console's redirect to the OP and back; returns the callback URL the OP sent the browser to. */
export async function authorizeConsole(
  h: ConsoleHarness,
  browser: Browser,
  path: string,
  tamper?: (authorize: URL) => void,
): Promise<URL> {
  let url = `${h.url}${path}`;
  for (let hop = 0; hop < 4; hop++) {
    const response = await browser.request(url);
    await response.body?.cancel();
    if (response.status !== 303) throw new Error(`${url} answered ${response.status}`);
    url = locationOf(response, url);
    if (!url.startsWith(h.url)) break;
  }
  const authorize = new URL(url);
  tamper?.(authorize);
  const { callback } = await authorizeInBrowser(browser, authorize.href, `${h.url}/admin/callback`);
  return callback;
}

/** Signs in from `path` and returns where the console finally sent the browser. */
export async function signIn(h: ConsoleHarness, browser: Browser, path = "/admin/keys"): Promise<Response> {
  const callback = await authorizeConsole(h, browser, path);
  const done = await browser.request(callback.href);
  await done.body?.cancel();
  return done;
}

/** The CSRF token of a console page. */
export async function csrfOf(h: ConsoleHarness, browser: Browser, path = "/admin/keys"): Promise<string> {
  const html = await (await browser.request(`${h.url}${path}`)).text();
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF token on ${path}: ${html.slice(0, 300)}`);
  return match[1];
}

export { Browser, locationOf };
