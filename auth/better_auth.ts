/**
 * The only Better Auth configuration of the service: OAuth 2.1 / OIDC provider with RS256 ID tokens, GitHub
 * sign-in outside local mode, the one-click developer account in local mode, Kysely over libSQL bridged to
 * the snake_case, integer-date schema of migrations/0001_initial.sql.
 */
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { jwt } from "better-auth/plugins";
import { oauthProvider } from "@better-auth/oauth-provider";
import type { Kysely } from "kysely";
import { type AuthConfig, issuerOf } from "./config.ts";
import { localDeveloper } from "./local_developer.ts";
import { singleSigningKeyAdapter } from "./signing_key.ts";
import { RETIRED_KEY_PUBLISH_SECONDS } from "./operations/signing_keys.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import { betterAuthErrorLogger, betterAuthLogger } from "./better_auth_logger.ts";

/** Prefix of every auth cookie (`svc.session_token`, `__Secure-svc.session_token`). */
export const COOKIE_PREFIX = "svc";

/** Header an app's dev proxy sends in local mode with the browser's origin. */
export const DEV_ORIGIN_HEADER = "x-svc-auth-dev-origin";

/** The scopes the provider offers. */
const SCOPES = ["openid", "profile", "email", "offline_access"] as const;

/**
 * Secret used in local mode when AUTH_SECRET is unset. Local mode only serves loopback with a local file
 * database, so this signs nothing a deployed service would accept (deployed mode requires AUTH_SECRET).
 */
export const LOCAL_MODE_SECRET = "switchyard-local-mode-only-secret-never-deployed";

/** Inputs of {@link createBetterAuth}. */
export interface BetterAuthInputs {
  /** Validated configuration. */
  config: AuthConfig;
  /** Kysely over the auth database, with CamelCasePlugin + EpochMsDatePlugin. */
  db: Kysely<unknown>;
  /** Whether cookies are `Secure` with the `__Secure-` prefix (always outside local mode). */
  secureCookies: boolean;
  /** Overrides the secret (the registration command uses a throwaway one). */
  secret?: string;
  /** Where Better Auth's own log lines go (the service's JSON logger); silent when absent. */
  logger?: Logger;
}

/** Origins trusted for a request: the local dev origin header, or the cookie domain and its subdomains. */
export function trustedOriginsFor(config: AuthConfig, request?: Request): string[] {
  if (config.AUTH_LOCAL_MODE) {
    // The Hono guard has already checked Origin against these (auth/local_mode.ts).
    const devOrigin = request?.headers.get(DEV_ORIGIN_HEADER);
    if (devOrigin) return [devOrigin];
    const base = new URL(config.AUTH_BASE_URL);
    const port = base.port ? `:${base.port}` : "";
    return ["localhost", "127.0.0.1", "[::1]"].map((host) => `${base.protocol}//${host}${port}`);
  }
  if (config.AUTH_FIRST_PARTY_ORIGINS) {
    return [new URL(config.AUTH_BASE_URL).origin, ...config.AUTH_FIRST_PARTY_ORIGINS];
  }
  const domain = (config.AUTH_COOKIE_DOMAIN ?? "").replace(/^\./, "");
  return domain ? [`https://${domain}`, `https://*.${domain}`] : [];
}

/** Builds the Better Auth options (exported for the schema generator, which needs no database). */
export function betterAuthOptions(inputs: Omit<BetterAuthInputs, "db"> & { db?: Kysely<unknown> }) {
  const { config } = inputs;
  const local = config.AUTH_LOCAL_MODE;
  const plugins = [
    jwt({
      // A key that stopped signing stays in the JWKS until what it signed has expired (auth:keys rotate).
      jwks: {
        keyPairConfig: { alg: "RS256", modulusLength: 2048 },
        gracePeriod: RETIRED_KEY_PUBLISH_SECONDS,
      },
      jwt: { issuer: issuerOf(config) },
      disableSettingJwtHeader: true,
      // Concurrent first requests must not mint two keys (auth/signing_key.ts).
      ...(inputs.db ? { adapter: singleSigningKeyAdapter(inputs.db) } : {}),
    }),
    oauthProvider({
      loginPage: "/sign-in",
      consentPage: "/consent",
      scopes: [...SCOPES],
      grantTypes: ["authorization_code", "refresh_token"],
      allowDynamicClientRegistration: false,
      allowUnauthenticatedClientRegistration: false,
      // CamelCasePlugin maps requirePKCE to require_pkce but reads it back as requirePkce.
      schema: { oauthClient: { fields: { requirePKCE: "requirePkce" } } },
      silenceWarnings: { oauthAuthServerConfig: true, openidConfig: true },
    }),
    ...(local ? [localDeveloper()] : []),
  ];
  return {
    appName: "Switchyard",
    baseURL: config.AUTH_BASE_URL,
    basePath: "/api/auth",
    secret: inputs.secret ?? config.AUTH_SECRET ?? LOCAL_MODE_SECRET,
    database: inputs.db ? { db: inputs.db, type: "sqlite" as const } : undefined,
    disabledPaths: ["/token"],
    socialProviders: local || !config.SOCIAL_CLIENT_ID || !config.SOCIAL_CLIENT_SECRET ? {} : {
      github: { clientId: config.SOCIAL_CLIENT_ID, clientSecret: config.SOCIAL_CLIENT_SECRET },
    },
    emailAndPassword: { enabled: false },
    trustedOrigins: (request?: Request) => trustedOriginsFor(config, request),
    // The service limits requests itself, by the client identity the operator configured (auth/edge/).
    rateLimit: { enabled: false },
    logger: inputs.logger ? betterAuthLogger(inputs.logger) : { disabled: true },
    onAPIError: inputs.logger ? { onError: betterAuthErrorLogger(inputs.logger) } : undefined,
    telemetry: { enabled: false },
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: inputs.secureCookies,
      crossSubDomainCookies: local || !config.AUTH_COOKIE_DOMAIN
        ? { enabled: false }
        : { enabled: true, domain: config.AUTH_COOKIE_DOMAIN },
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" as const },
    },
    plugins,
  } satisfies BetterAuthOptions;
}

/** Creates a Better Auth instance over `db`. */
export function createBetterAuth(inputs: BetterAuthInputs) {
  return betterAuth(betterAuthOptions(inputs));
}

/** A Better Auth instance of this service. */
export type AuthInstance = ReturnType<typeof createBetterAuth>;
