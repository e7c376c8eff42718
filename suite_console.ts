/**
 * Wires the gateway's admin console to the local auth service in `deno task dev`: on first start it registers
 * the console as an OAuth client of the local auth database (as `deno task oauth:register` would, with
 * end-session and no consent page) and keeps its credentials beside that database; later starts reuse them
 * while the client still exists and its redirect URI still matches the gateway's address. The local
 * developer is the console's admin unless GATEWAY_ADMINS says otherwise. Only in auth local mode, and only
 * when the operator has not configured the console's client themselves. The same client introspects the OP's
 * access tokens for the gateway (GATEWAY_OIDC_*), and a public device client meant for it (`gateway:login`)
 * is registered beside it, unless the operator set GATEWAY_OIDC_ISSUER.
 */
import type { Env } from "@switchyard/lib/config.ts";
import { DATABASE_TARGETS, resolveTargetUrl } from "@switchyard/lib/database_targets.ts";
import { openAuthDatabase } from "./auth/better_auth/database.ts";
import { registerClient } from "./auth/operations/register_client.ts";

/** The stored credentials of the local console client. */
interface StoredClient {
  client_id: string;
  client_secret: string;
  redirect_uri: string;
  /** The public device client of `gateway:login` (older files lack it: registered then). */
  device_client_id?: string;
}

/** The console keys for the gateway (empty when nothing is to be wired). */
export async function wireLocalConsole(env: Env, gatewayUrl: string): Promise<Record<string, string>> {
  if (env.AUTH_LOCAL_MODE !== "true" || env.GATEWAY_CONSOLE_CLIENT_ID) return {};
  const target = DATABASE_TARGETS.find((t) => t.name === "auth")!;
  const resolved = resolveTargetUrl(target, env, false);
  if ("error" in resolved) return {};
  const dbPath = resolved.url.slice("file:".length).replace(/\?.*$/, "");
  const file = `${
    dbPath.includes("/") ? dbPath.slice(0, dbPath.lastIndexOf("/")) : "."
  }/gateway-console-client.json`;
  const baseUrl = env.AUTH_BASE_URL ?? "http://localhost:37960";
  const redirectUri = `${gatewayUrl}/admin/callback`;
  const database = await openAuthDatabase(resolved.url);
  try {
    let stored: StoredClient | undefined;
    try {
      stored = JSON.parse(await Deno.readTextFile(file));
    } catch {
      stored = undefined;
    }
    const exists = stored && stored.redirect_uri === redirectUri &&
      (await database.client.execute({
          sql: "SELECT 1 FROM oauth_client WHERE client_id = ?",
          args: [stored.client_id],
        })).rows.length > 0;
    if (!exists) {
      const created = await registerClient(database, baseUrl, {
        name: "Switchyard gateway console",
        redirectUris: [redirectUri],
        postLogoutRedirectUris: [`${gatewayUrl}/admin/signed-out`],
        enableEndSession: true,
        skipConsent: true,
      });
      stored = {
        client_id: created.client_id,
        client_secret: created.client_secret!,
        redirect_uri: redirectUri,
      };
      await Deno.writeTextFile(file, JSON.stringify(stored), { mode: 0o600 });
      console.error(`registered the gateway console's OAuth client ${created.client_id} (${file})`);
    }
    const deviceExists = stored!.device_client_id !== undefined &&
      (await database.client.execute({
          sql: "SELECT 1 FROM oauth_client WHERE client_id = ?",
          args: [stored!.device_client_id],
        })).rows.length > 0;
    if (!deviceExists && !env.GATEWAY_OIDC_ISSUER) {
      const device = await registerClient(database, baseUrl, {
        name: "Switchyard gateway CLI",
        redirectUris: [],
        public: true,
        device: true,
        audience: [stored!.client_id],
      });
      stored = { ...stored!, device_client_id: device.client_id };
      await Deno.writeTextFile(file, JSON.stringify(stored), { mode: 0o600 });
    }
    const identities: Record<string, string> = env.GATEWAY_OIDC_ISSUER ? {} : {
      GATEWAY_OIDC_ISSUER: `${baseUrl}/api/auth`,
      GATEWAY_OIDC_CLIENT_ID: stored!.client_id,
      GATEWAY_OIDC_CLIENT_SECRET: stored!.client_secret,
      GATEWAY_OIDC_TOKEN_CLIENTS: stored!.device_client_id!,
    };
    if (identities.GATEWAY_OIDC_ISSUER) {
      console.error(
        `people sign in to the gateway with: deno task gateway:login --issuer ${baseUrl}/api/auth ` +
          `--client-id ${
            stored!.device_client_id
          } (then set a policy: deno task gateway:policies set --default-user)`,
      );
    }
    return {
      ...identities,
      AUTH_ISSUER: `${baseUrl}/api/auth`,
      GATEWAY_CONSOLE_URL: gatewayUrl,
      GATEWAY_CONSOLE_CLIENT_ID: stored!.client_id,
      GATEWAY_CONSOLE_CLIENT_SECRET: stored!.client_secret,
      GATEWAY_ADMINS: env.GATEWAY_ADMINS ?? "local-developer",
    };
  } finally {
    database.client.close();
  }
}
