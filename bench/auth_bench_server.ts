/**
 * The auth service as `deno task bench:auth` runs it: a fresh migrated libSQL file, local mode or the
 * deployed configuration (`deployed` argument), one confidential skip-consent client, served on a free
 * loopback port. Prints one JSON line `{url, client_id, client_secret, redirect_uri}` when ready.
 */
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS } from "@switchyard/lib/database_targets.ts";
import { silentLogger } from "@switchyard/lib/log.ts";
import { createAuthApp } from "../auth/app.tsx";
import { readAuthConfig } from "../auth/config.ts";
import { openAuthDatabase } from "../auth/better_auth/database.ts";
import { registerClient } from "../auth/operations/register_client.ts";
import { LOCAL_MODE_SECRET } from "../auth/better_auth/mod.ts";

const deployed = Deno.args.includes("deployed");
const dir = await Deno.makeTempDir({ prefix: "switchyard-auth-bench-" });
const { promise: listening, resolve } = Promise.withResolvers<number>();
let handler: (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response> =
  () => new Response("starting", { status: 503 });
Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: (addr) => resolve(addr.port) },
  (r, i) => handler(r, i),
);
const port = await listening;
const url = `http://127.0.0.1:${port}`;
const config = readAuthConfig(
  deployed
    ? {
      AUTH_LOCAL_MODE: "false",
      // Deployed mode demands https issuers; the bench reaches the same app over loopback http.
      AUTH_BASE_URL: "https://auth.bench.test",
      AUTH_COOKIE_DOMAIN: ".bench.test",
      AUTH_SECRET: "bench-secret-bench-secret-bench-secret-0123",
      SOCIAL_CLIENT_ID: "bench",
      SOCIAL_CLIENT_SECRET: "bench",
      // Membership re-validation on (issue 25): every refresh and authorization checks the user's access
      // record, cached within AUTH_MEMBERSHIP_TTL (seeded below: no GitHub call during the run).
      AUTH_GITHUB_ALLOWED_ORGS: "bench-org",
      AUTH_CLIENT_IP: "header:x-bench-client",
      AUTH_DATABASE_URL: `file:${dir}/auth.db`,
      LOG_LEVEL: "silent",
    }
    : {
      AUTH_LOCAL_MODE: "true",
      AUTH_BASE_URL: url,
      AUTH_DATABASE_URL: `file:${dir}/auth.db`,
      LOG_LEVEL: "silent",
    },
);
const database = await openAuthDatabase(config.AUTH_DATABASE_URL);
await migrateDirectory(database.client, DATABASE_TARGETS.find((t) => t.name === "auth")!.migrationsDir);
const app = createAuthApp(config, { logger: silentLogger, database });
const redirectUri = "http://127.0.0.1:9/cb";
const client = await registerClient(database, config.AUTH_BASE_URL, {
  name: "bench",
  redirectUris: [redirectUri],
  skipConsent: true,
});
// A signed-in browser session (GitHub sign-in cannot run here; local mode could use the developer button,
// but both modes get the same seeded session so they are measured alike).
const now = Date.now();
const sessionToken = crypto.randomUUID().replaceAll("-", "");
await database.client.batch([
  {
    sql:
      "INSERT INTO user (id, name, email, email_verified, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
    args: ["bench-user", "Bench User", "bench@example.test", now, now],
  },
  {
    sql:
      "INSERT INTO session (id, expires_at, token, created_at, updated_at, user_id) VALUES (?, ?, ?, ?, ?, ?)",
    args: ["bench-session", now + 86_400_000, sessionToken, now, now, "bench-user"],
  },
  // A membership check that succeeded just now (as after a GitHub sign-in), for the deployed gate.
  {
    sql: "INSERT INTO svc_user_access (user_id, github_login, checked_at, check_status, ok_at, groups) " +
      "VALUES (?, ?, ?, 'member', ?, ?)",
    args: ["bench-user", "bench", now, now, JSON.stringify(["bench-org"])],
  },
], "write");
const key = await crypto.subtle.importKey(
  "raw",
  new TextEncoder().encode(config.AUTH_SECRET ?? LOCAL_MODE_SECRET),
  { name: "HMAC", hash: "SHA-256" },
  false,
  ["sign"],
);
const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(sessionToken)));
const cookieName = deployed ? "__Secure-svc.session_token" : "svc.session_token";
const cookie = `${cookieName}=${encodeURIComponent(`${sessionToken}.${btoa(String.fromCharCode(...mac))}`)}`;
handler = (request, info) => app.fetch(request, { info });
// Exit normally on SIGTERM so that `--cpu-prof` (AUTH_BENCH_CPU_PROF) writes its profile.
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
console.log(JSON.stringify({
  url,
  issuer: `${config.AUTH_BASE_URL}/api/auth`,
  client_id: client.client_id,
  client_secret: client.client_secret,
  redirect_uri: redirectUri,
  cookie,
}));
