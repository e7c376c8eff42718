/**
 * OAuth client registration without any HTTP surface: calls Better Auth's server-only
 * `adminCreateOAuthClient` with a one-use user, account and session that are deleted in the same call,
 * after detaching the new client from them (`oauth_client.user_id` cascades on delete).
 */
import { makeSignature } from "better-auth/crypto";
import { commandError } from "../service_errors.ts";
import { createBetterAuth } from "../better_auth/mod.ts";
import type { AuthConfig } from "../config.ts";
import type { AuthDatabase } from "../better_auth/database.ts";
import { DEVICE_CODE_GRANT } from "../device/device_client.ts";
import { LOOPBACK, redirectUriProblem } from "./redirect_uri.ts";
import { backchannelUriProblem, saveBackchannelStatement } from "../logout/backchannel_clients.ts";

/** What to register. */
export interface ClientRegistration {
  /** Display name shown on the consent page. */
  name: string;
  /** Exact redirect URIs. */
  redirectUris: string[];
  /** Exact post-logout redirect URIs (end-session). */
  postLogoutRedirectUris?: string[];
  /** First-party client: no consent page. */
  skipConsent?: boolean;
  /** Allow RP-initiated logout. */
  enableEndSession?: boolean;
  /** A client that cannot hold a secret (token endpoint auth method `none`). */
  public?: boolean;
  /** May use the RFC 8628 device authorization grant (auth/device/); redirect URIs become optional. */
  device?: boolean;
  /**
   * Client ids of resource servers its access tokens are meant for: they may introspect them (and see
   * themselves in `aud`), e.g. the gateway for `gateway:login`'s device client.
   */
  audience?: string[];
  /** Where back-channel logout tokens are POSTed (auth/logout/). */
  backchannelLogoutUri?: string;
  /** The RP needs `sid` in logout tokens. */
  backchannelLogoutSessionRequired?: boolean;
}

/** The registered client's credentials; the secret exists only for confidential clients. */
export interface RegisteredClient {
  /** The new client id. */
  client_id: string;
  /** The secret, shown once (stored hashed). */
  client_secret?: string;
}

/** Checks a registration, listing every problem at once. */
export function registrationProblems(reg: ClientRegistration): string[] {
  const problems: string[] = [];
  if (!reg.name.trim()) problems.push("--name must not be empty");
  if (reg.redirectUris.length === 0 && !reg.device) problems.push("--redirect-uri is required (or --device)");
  for (const aud of reg.audience ?? []) {
    if (!/^[\w.:-]{1,128}$/.test(aud)) problems.push(`--audience ${JSON.stringify(aud)} is not a client id`);
  }
  for (const uri of reg.redirectUris) {
    const problem = redirectUriProblem(uri, !!reg.public);
    if (problem) problems.push(`--redirect-uri ${problem}`);
  }
  for (const uri of reg.postLogoutRedirectUris ?? []) {
    const problem = redirectUriProblem(uri, !!reg.public);
    if (problem) problems.push(`--post-logout-redirect-uri ${problem}`);
  }
  if (reg.postLogoutRedirectUris?.length && !reg.enableEndSession) {
    problems.push("--post-logout-redirect-uri needs --enable-end-session");
  }
  if (reg.backchannelLogoutUri !== undefined) {
    const problem = backchannelUriProblem(reg.backchannelLogoutUri);
    if (problem) problems.push(problem);
  } else if (reg.backchannelLogoutSessionRequired) {
    problems.push("--backchannel-logout-session-required needs --backchannel-logout-uri");
  }
  return problems;
}

/** Registers a client in `database`. Throws AppError `BAD_REQUEST` (nothing written) on bad input. */
export async function registerClient(
  database: AuthDatabase,
  baseUrl: string,
  reg: ClientRegistration,
): Promise<RegisteredClient> {
  const problems = registrationProblems(reg);
  if (problems.length) throw commandError("BAD_REQUEST", problems.join("\n"));
  const secret = crypto.getRandomValues(new Uint8Array(32)).toBase64();
  const config: AuthConfig = Object.freeze({
    AUTH_BASE_URL: baseUrl,
    AUTH_DATABASE_URL: "file:unused",
    AUTH_LOCAL_MODE: false,
    LOG_LEVEL: "silent",
  });
  const auth = createBetterAuth({ config, db: database.db, secureCookies: false, secret });
  const ctx = await auth.$context;
  const adapter = ctx.internalAdapter;
  const user = await adapter.createUser({
    name: "oauth:register",
    email: `oauth-register+${crypto.randomUUID()}@invalid`,
    emailVerified: false,
  });
  try {
    await adapter.createAccount({ userId: user.id, providerId: "oauth-register", accountId: user.id });
    const session = await adapter.createSession(user.id);
    const signature = await makeSignature(session.token, ctx.secret);
    const cookie = `${ctx.authCookies.sessionToken.name}=${
      encodeURIComponent(`${session.token}.${signature}`)
    }`;
    const publicClient = !!reg.public;
    const native = reg.redirectUris.some((u) => !/^https?:/i.test(u) || LOOPBACK.has(new URL(u).hostname));
    const created = await auth.api.adminCreateOAuthClient({
      headers: new Headers({ cookie }),
      body: {
        client_name: reg.name,
        // A device-only client has no redirect URI; the library needs one, cleared right after.
        redirect_uris: reg.redirectUris.length ? reg.redirectUris : ["http://127.0.0.1/device-only"],
        ...(reg.postLogoutRedirectUris?.length
          ? { post_logout_redirect_uris: reg.postLogoutRedirectUris }
          : {}),
        token_endpoint_auth_method: publicClient ? "none" : "client_secret_basic",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        type: publicClient ? (native ? "native" : "user-agent-based") : "web",
        skip_consent: !!reg.skipConsent,
        enable_end_session: !!reg.enableEndSession,
        require_pkce: true,
      },
    });
    // The library's registration knows neither the device grant type nor audiences.
    const grants = ["authorization_code", "refresh_token", ...(reg.device ? [DEVICE_CODE_GRANT] : [])];
    await database.client.batch([
      { sql: "UPDATE oauth_client SET user_id = NULL WHERE client_id = ?", args: [created.client_id] },
      ...(reg.device || reg.audience?.length
        ? [{
          sql: "UPDATE oauth_client SET grant_types = ?, redirect_uris = ?, metadata = ? WHERE client_id = ?",
          args: [
            JSON.stringify(grants),
            JSON.stringify(reg.redirectUris),
            JSON.stringify({ audience: reg.audience ?? [] }),
            created.client_id,
          ],
        }]
        : []),
      ...(reg.backchannelLogoutUri === undefined ? [] : [
        saveBackchannelStatement(created.client_id, {
          uri: reg.backchannelLogoutUri,
          sessionRequired: !!reg.backchannelLogoutSessionRequired,
        }),
      ]),
    ], "write");
    return publicClient || !created.client_secret
      ? { client_id: created.client_id }
      : { client_id: created.client_id, client_secret: created.client_secret };
  } finally {
    await adapter.deleteUser(user.id);
  }
}
