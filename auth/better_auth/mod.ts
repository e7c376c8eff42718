/**
 * The only Better Auth configuration of the service: OAuth 2.1 / OIDC provider with RS256 ID tokens, GitHub
 * sign-in outside local mode, the one-click developer account in local mode, Kysely over libSQL bridged to
 * the snake_case, integer-date schema of migrations/0001_initial.sql.
 */
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { jwt } from "better-auth/plugins";
import { oauthProvider } from "@better-auth/oauth-provider";
import type { Kysely } from "kysely";
import { type AuthConfig, issuerOf } from "../config.ts";
import { localDeveloper } from "../local/developer.ts";
import { singleSigningKeyAdapter } from "./signing_key.ts";
import { RETIRED_KEY_PUBLISH_SECONDS } from "../signing/lifetimes.ts";
import type { Logger } from "@switchyard/lib/log.ts";
import { betterAuthErrorLogger, betterAuthLogger } from "./logger.ts";
import { github } from "better-auth/social-providers";
import { APIError } from "better-auth/api";
import type { MembershipGate } from "../membership/access.ts";
import { needsOrgData } from "../membership/policy.ts";
import { issueOpaqueToken, storedTokenHash } from "../grants/token_storage.ts";
import { sha256Base64url } from "@switchyard/lib/crypto.ts";

/** Prefix of every auth cookie (`svc.session_token`, `__Secure-svc.session_token`). */
export const COOKIE_PREFIX = "svc";

/** Header an app's dev proxy sends in local mode with the browser's origin. */
export const DEV_ORIGIN_HEADER = "x-svc-auth-dev-origin";

/** The scopes the provider offers. */
const SCOPES = ["openid", "profile", "email", "offline_access", "groups"] as const;

/** Where a refused GitHub sign-in lands: the sign-in page, which explains the `error` code in plain words. */
export const SIGN_IN_ERROR_PATH = "/sign-in";

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
  /** The membership gate (auth/membership/access.ts); absent for the commands, which sign nobody in. */
  gate?: MembershipGate;
}

/**
 * GitHub sign-in with the membership gate in `getUserInfo`: Better Auth calls it after the code exchange and
 * before it writes any user, account or session row, so a refused user leaves nothing behind but an audit
 * row. The refusal is a redirect to the sign-in page with the denial code.
 */
function githubProvider(config: AuthConfig, clientId: string, clientSecret: string, gate?: MembershipGate) {
  const policy = gate?.policy;
  const base = github({ clientId, clientSecret });
  return {
    clientId,
    clientSecret,
    // read:org only when organisations or teams decide who may sign in.
    ...(policy && needsOrgData(policy) ? { scope: ["read:org"] } : {}),
    getUserInfo: async (tokens: Parameters<typeof base.getUserInfo>[0]) => {
      const info = await base.getUserInfo(tokens);
      if (!info || !gate) return info;
      const login = (info.data as { login?: unknown }).login;
      const denial = (reason: string) =>
        new APIError("FOUND", undefined, {
          location: new URL(`${SIGN_IN_ERROR_PATH}?error=${reason}`, config.AUTH_BASE_URL).href,
        });
      if (typeof login !== "string" || !tokens.accessToken) throw denial("github_unavailable");
      const decision = await gate.admitSignIn({
        token: tokens.accessToken,
        login,
        githubId: String(info.user.id),
      });
      if (!decision.ok) throw denial(decision.reason);
      return info;
    },
  };
}

/** Origins trusted for a request: the local dev origin header, or the cookie domain and its subdomains. */
export function trustedOriginsFor(config: AuthConfig, request?: Request): string[] {
  if (config.AUTH_LOCAL_MODE) {
    // The Hono guard has already checked Origin against these (auth/local/mode.ts).
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
      // Concurrent first requests must not mint two keys (auth/better_auth/signing_key.ts).
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
      // The `groups` claim: the user's memberships among the allowed organisations and teams only.
      customIdTokenClaims: async ({ user, scopes }) =>
        scopes.includes("groups") && inputs.gate ? { groups: await inputs.gate.groups(user.id) } : {},
      // The code exchange's tokens have the service's form (auth/grants/token_storage.ts: time-ordered, stored
      // as the time and the hash); codes stay stored as their plain hash, as the token endpoint reads them.
      generateOpaqueAccessToken: () => issueOpaqueToken(),
      generateRefreshToken: () => issueOpaqueToken(),
      storeTokens: {
        hash: (token, type) =>
          type === "authorization_code" ? sha256Base64url(token) : storedTokenHash(token),
      },
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
      github: githubProvider(config, config.SOCIAL_CLIENT_ID, config.SOCIAL_CLIENT_SECRET, inputs.gate),
    },
    // The GitHub token re-validation reads is stored encrypted with the secret, never in the clear.
    account: { encryptOAuthTokens: true },
    databaseHooks: inputs.gate ? membershipHooks(inputs.gate) : undefined,
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

/**
 * The gate's hooks on Better Auth's session writes: a session is created only for an admitted, enabled
 * user (the refusal redirects to the sign-in page before any session row exists); a session is extended
 * only while membership holds (re-validated at most every AUTH_MEMBERSHIP_TTL).
 */
function membershipHooks(gate: MembershipGate): NonNullable<BetterAuthOptions["databaseHooks"]> {
  return {
    session: {
      create: {
        before: async (session) => {
          const reason = await gate.onSessionCreate(String(session.userId));
          if (reason) throw new APIError("FORBIDDEN", { code: reason, message: reason });
        },
      },
      update: {
        before: async (data, ctx) => {
          if (!ctx || !("expiresAt" in data)) return;
          const token = await ctx.getSignedCookie(
            ctx.context.authCookies.sessionToken.name,
            ctx.context.secret,
          );
          if (token && !(await gate.revalidateSessionToken(token))) return false;
        },
      },
    },
  };
}

/** Creates a Better Auth instance over `db`. */
export function createBetterAuth(inputs: BetterAuthInputs) {
  return betterAuth(betterAuthOptions(inputs));
}

/** A Better Auth instance of this service. */
export type AuthInstance = ReturnType<typeof createBetterAuth>;
