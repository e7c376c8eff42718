/**
 * The local suite in one process: applies pending migrations to the local databases, then serves the auth
 * service (127.0.0.1:37960) and the gateway (127.0.0.1:37961). Each service is the same fetch handler its
 * edge entrypoint exports, so local and deployed behaviour cannot drift (the gateway behind the connection
 * guard of gateway/serve.ts, which an edge platform replaces with its own socket limits).
 */
import { ConfigError, type ConfigProblem, type Env } from "@switchyard/lib/config.ts";
import { openClient } from "@switchyard/lib/db.ts";
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS, resolveTargetUrl } from "@switchyard/lib/database_targets.ts";
import { type FetchHandler, type RunningServer, startServer } from "@switchyard/lib/serve.ts";
import auth from "./auth/main.ts";
import gateway from "./gateway/main.ts";
import { type AuthConfig, readAuthConfig } from "./auth/config.ts";
import { type GatewayConfig, readGatewayConfig } from "./gateway/config/mod.ts";
import { startGatewayServer } from "./gateway/serve.ts";
import { readSuiteConfig } from "./suite_config.ts";
import { withPreviewHostRules } from "./auth/local/preview_host_rules.ts";
import { wireLocalConsole } from "./suite_console.ts";

/** Validates every service's configuration up front so one run reports all bad keys. */
function validateAll(
  env: Env,
): { suite: ReturnType<typeof readSuiteConfig>; auth: AuthConfig; gateway: GatewayConfig } {
  const problems = new Map<string, ConfigProblem>();
  let suite: ReturnType<typeof readSuiteConfig> | undefined;
  let authConfig: AuthConfig | undefined;
  let gatewayConfig: GatewayConfig | undefined;
  for (
    const read of [
      () => (suite = readSuiteConfig(env)),
      () => (authConfig = readAuthConfig(env)),
      () => (gatewayConfig = readGatewayConfig(env)),
    ]
  ) {
    try {
      read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) problems.set(`${problem.key}\0${problem.message}`, problem);
    }
  }
  if (problems.size) throw new ConfigError([...problems.values()], "configuration");
  return { suite: suite!, auth: authConfig!, gateway: gatewayConfig! };
}

/** Applies pending migrations to each local (`file:`) database; remote ones are migrated by deploy tooling. */
async function migrateLocalDatabases(env: Env): Promise<void> {
  for (const target of DATABASE_TARGETS) {
    const local = resolveTargetUrl(target, env, false);
    if ("error" in local) continue;
    const client = await openClient({ url: local.url });
    try {
      const result = await migrateDirectory(client, target.migrationsDir);
      if (result.applied.length) console.error(`migrated ${target.name}: ${result.applied.join(", ")}`);
    } finally {
      client.close();
    }
  }
}

/** Starts the suite and returns its running servers; `preview` applies the preview's host rules. */
export async function startSuite(
  env: Env,
  options: { preview?: boolean } = {},
): Promise<{ auth: RunningServer; gateway: RunningServer }> {
  const { suite: config, auth: authConfig, gateway: gatewayConfig } = validateAll(env);
  await migrateLocalDatabases(env);
  const hostname = config.LISTEN_HOSTNAME;
  const authFetch = options.preview
    ? withPreviewHostRules(auth.fetch as FetchHandler)
    : auth.fetch as FetchHandler;
  const [authServer, gatewayServer] = await Promise.all([
    startServer(authFetch, { hostname, port: config.AUTH_PORT }),
    // Self-hosted, the gateway's sockets are bounded by the connection guard (GATEWAY_CONNECTION_GUARD).
    startGatewayServer(gateway.fetch as FetchHandler, gatewayConfig, { hostname, port: config.GATEWAY_PORT }),
  ]);
  // The gateway reads its environment on its first request, so the console keys set here reach it.
  for (const [key, value] of Object.entries(await wireLocalConsole(env, gatewayServer.url))) {
    Deno.env.set(key, value);
  }
  const authOnBoth = authConfig.AUTH_LOCAL_MODE
    ? await alsoOnIpv6Loopback(hostname, authServer, authFetch)
    : authServer;
  return { auth: authOnBoth, gateway: gatewayServer };
}

/**
 * In auth local mode the base URL is `http://localhost:37960`, which browsers and clients may resolve to
 * `::1` first; when the suite binds 127.0.0.1 the auth service is also bound to [::1] on the same port
 * (best effort: a machine without IPv6 keeps the IPv4 listener only).
 */
async function alsoOnIpv6Loopback(
  hostname: string,
  server: RunningServer,
  handler: FetchHandler,
): Promise<RunningServer> {
  if (hostname !== "127.0.0.1") return server;
  try {
    const v6 = await startServer(handler, { hostname: "::1", port: server.port });
    return { ...server, shutdown: async () => void await Promise.all([server.shutdown(), v6.shutdown()]) };
  } catch {
    return server;
  }
}

if (import.meta.main) {
  // `deno task preview` passes --preview (auth/local/preview_host_rules.ts); nothing else is accepted.
  const unknown = Deno.args.filter((arg) => arg !== "--preview");
  if (unknown.length) {
    console.error(`error: unknown argument ${JSON.stringify(unknown[0])} (only --preview)`);
    Deno.exit(2);
  }
  try {
    const preview = Deno.args.includes("--preview");
    const { auth, gateway } = await startSuite(Deno.env.toObject(), { preview });
    if (preview) console.error("preview: health answers any host; pages and auth routes loopback hosts only");
    console.error(`auth    listening on ${auth.url}  (health: ${auth.url}/api/health)`);
    console.error(`gateway listening on ${gateway.url}  (health: ${gateway.url}/api/health)`);
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
