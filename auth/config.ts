/**
 * The auth service's configuration, validated once at start-up from the environment. Every bad key is
 * reported at once, including the cross-key rules of local mode (which a deployed configuration can never
 * satisfy) and the keys a deployed configuration must have.
 */
import { z } from "zod";
import {
  ConfigError,
  type ConfigProblem,
  databaseUrlSetting,
  type Env,
  flagSetting,
  httpUrlSetting,
  isFlagOn,
  logLevelSetting,
  readConfig,
} from "@switchyard/lib/config.ts";
import { isLocalDatabaseUrl } from "@switchyard/lib/db.ts";
import { CLIENT_IP_FORMS, type ClientIpSource, parseClientIpSource } from "./edge/client_ip.ts";
import {
  type AccessPolicy,
  accessPolicyOf,
  parseDurationSeconds,
  policyProblems,
} from "./membership/policy.ts";

/** How long audit rows are kept when AUTH_AUDIT_RETENTION_DAYS is unset. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

/** The keys of which a deployed configuration needs at least one (who may sign in). */
export const ALLOWLIST_KEYS = [
  "AUTH_GITHUB_ALLOWED_ORGS",
  "AUTH_GITHUB_ALLOWED_TEAMS",
  "AUTH_GITHUB_ALLOWED_USERS",
  "AUTH_GITHUB_ALLOW_ANY",
] as const;

/** A duration key (`900`, `900s`, `15m`, `1h`) in seconds, with a default. */
function durationSetting() {
  return z.string().transform((raw, ctx) => {
    const seconds = parseDurationSeconds(raw);
    if (seconds === undefined || seconds < 1) {
      ctx.addIssue({
        code: "custom",
        message: `expected a duration such as 900, 15m or 1h, got ${JSON.stringify(raw)}`,
      });
      return z.NEVER;
    }
    return seconds;
  }).optional();
}

/** Host names that count as loopback for local mode. */
const LOOPBACK_HOSTNAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** The port local mode listens on. */
export const LOCAL_MODE_PORT = 37960;

/** True when `hostname` (as in `URL#hostname`, IPv6 in brackets) is a loopback name. */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.includes(hostname.toLowerCase());
}

/** Schema of the auth service's environment. */
const authConfigSchema = z.object({
  AUTH_BASE_URL: httpUrlSetting(),
  AUTH_COOKIE_DOMAIN: z.string().regex(/^\.?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i, {
    error: (issue) => `expected a domain such as .example.com, got ${JSON.stringify(issue.input)}`,
  }).optional(),
  AUTH_SECRET: z.string().min(32, { error: "must be at least 32 characters (use `deno task auth:secret`)" })
    .optional(),
  SOCIAL_CLIENT_ID: z.string().optional(),
  SOCIAL_CLIENT_SECRET: z.string().optional(),
  AUTH_DATABASE_URL: databaseUrlSetting("file:.data/auth.db"),
  AUTH_DATABASE_AUTH_TOKEN: z.string().optional(),
  AUTH_LOCAL_MODE: flagSetting(false),
  /**
   * First-party app origins allowed credentialed CORS on get-session/sign-out (comma-separated https
   * origins on the cookie domain); unset: every https origin on the cookie domain.
   */
  AUTH_FIRST_PARTY_ORIGINS: z.string().transform((raw) => raw.split(",").map((o) => o.trim()).filter(Boolean))
    .optional(),
  /** Test-only: a loopback origin standing in for GitHub's server-side endpoints (auth/local/github_stand_in.ts). */
  AUTH_GITHUB_STAND_IN: httpUrlSetting().optional(),
  /** How a deployed service identifies a client for rate limiting (auth/edge/client_ip.ts). */
  AUTH_CLIENT_IP: z.string().transform((raw, ctx): ClientIpSource => {
    const parsed = parseClientIpSource(raw);
    if (typeof parsed === "string") {
      ctx.addIssue({ code: "custom", message: parsed });
      return z.NEVER;
    }
    return parsed;
  }).optional(),
  /**
   * How ID tokens the service signs itself are signed (auth/signing/key_signer.ts): unset or `auto` uses the
   * system's libcrypto 3 when it loads, a path names the library, `off` keeps WebCrypto.
   */
  AUTH_SIGNING_LIBCRYPTO: z.string().optional(),
  /**
   * Seconds during which a just-rotated refresh token presented again gets the same token response instead
   * of revoking its grant (two tabs, a lost response); unset or 0 is strict rotation, at most 60.
   */
  AUTH_REFRESH_REUSE_SECONDS: z.coerce.number({ error: "must be a whole number of seconds from 0 to 60" })
    .int({ error: "must be a whole number of seconds from 0 to 60" })
    .min(0, { error: "must be a whole number of seconds from 0 to 60" })
    .max(60, { error: "must be at most 60 seconds (a longer window lets a stolen token be replayed)" })
    .optional(),
  /** Read by Better Auth itself; must stay unset in local mode so the environment cannot widen trust. */
  BETTER_AUTH_TRUSTED_ORIGINS: z.string().optional(),
  /** Who may sign in with GitHub (auth/membership/policy.ts): org logins, `org/team-slug`, logins. */
  AUTH_GITHUB_ALLOWED_ORGS: z.string().optional(),
  AUTH_GITHUB_ALLOWED_TEAMS: z.string().optional(),
  AUTH_GITHUB_ALLOWED_USERS: z.string().optional(),
  /** Admit every GitHub account; must be said explicitly. */
  AUTH_GITHUB_ALLOW_ANY: flagSetting(false).optional(),
  /** How long a membership check is trusted before GitHub is asked again (seconds, or `15m`; default 15m). */
  AUTH_MEMBERSHIP_TTL: durationSetting(),
  /** How long access survives GitHub being unreachable after the last successful check (default 1h). */
  AUTH_MEMBERSHIP_GRACE: durationSetting(),
  /** Days the audit log keeps a row (default {@link DEFAULT_AUDIT_RETENTION_DAYS}). */
  AUTH_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).optional(),
  LOG_LEVEL: logLevelSetting,
});

/** The raw keys the cross-key rules read. */
type RawAuthEnv = Partial<Record<keyof z.input<typeof authConfigSchema>, string>>;

/**
 * Rules spanning several keys: local mode's refusals and what a deployed configuration must have. They run
 * on the raw environment, next to the per-key schema, so one start-up reports every problem.
 */
function crossKeyProblems(raw: RawAuthEnv): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (key: string, message: string) => problems.push({ key, message });
  let base: URL | undefined;
  try {
    base = raw.AUTH_BASE_URL ? new URL(raw.AUTH_BASE_URL) : undefined;
  } catch {
    base = undefined; // reported by the field schema
  }
  if (base && (base.pathname !== "/" || base.search || base.hash)) {
    problem("AUTH_BASE_URL", `must be an origin without path, query or fragment, got ${raw.AUTH_BASE_URL}`);
  }
  const local = isFlagOn(raw.AUTH_LOCAL_MODE);
  const databaseUrl = raw.AUTH_DATABASE_URL ?? "file:.data/auth.db";
  if (local) {
    if (base && !isLoopbackHostname(base.hostname)) {
      problem(
        "AUTH_LOCAL_MODE",
        `local mode refused: AUTH_BASE_URL ${raw.AUTH_BASE_URL} is not a loopback address ` +
          `(use http://localhost:${LOCAL_MODE_PORT})`,
      );
    }
    if (raw.AUTH_COOKIE_DOMAIN) {
      problem(
        "AUTH_LOCAL_MODE",
        `local mode refused: AUTH_COOKIE_DOMAIN is set (${raw.AUTH_COOKIE_DOMAIN}); local cookies are host-only`,
      );
    }
    if (!isLocalDatabaseUrl(databaseUrl)) {
      problem(
        "AUTH_LOCAL_MODE",
        "local mode refused: AUTH_DATABASE_URL is a remote database; local mode uses a file: database",
      );
    }
    if (raw.AUTH_GITHUB_STAND_IN) {
      problem("AUTH_GITHUB_STAND_IN", "is test-only and for deployed mode; local mode has no GitHub sign-in");
    }
    if (raw.AUTH_FIRST_PARTY_ORIGINS) {
      problem(
        "AUTH_FIRST_PARTY_ORIGINS",
        "is for deployed mode; local mode trusts its loopback origins only",
      );
    }
    if (raw.BETTER_AUTH_TRUSTED_ORIGINS) {
      problem("AUTH_LOCAL_MODE", "local mode refused: BETTER_AUTH_TRUSTED_ORIGINS is set; unset it");
    }
    return problems;
  }
  for (
    const key of ["AUTH_SECRET", "SOCIAL_CLIENT_ID", "SOCIAL_CLIENT_SECRET", "AUTH_COOKIE_DOMAIN"] as const
  ) {
    if (!raw[key]) problem(key, "is required outside local mode");
  }
  if (raw.AUTH_FIRST_PARTY_ORIGINS && raw.AUTH_COOKIE_DOMAIN) {
    const domain = raw.AUTH_COOKIE_DOMAIN.replace(/^\./, "").toLowerCase();
    for (const entry of raw.AUTH_FIRST_PARTY_ORIGINS.split(",").map((o) => o.trim()).filter(Boolean)) {
      let url: URL | undefined;
      try {
        url = new URL(entry);
      } catch {
        url = undefined;
      }
      const host = url?.hostname.toLowerCase() ?? "";
      if (
        !url || url.protocol !== "https:" || url.origin !== entry ||
        (host !== domain && !host.endsWith(`.${domain}`))
      ) {
        problem(
          "AUTH_FIRST_PARTY_ORIGINS",
          `${
            JSON.stringify(entry)
          } is not an https origin on ${raw.AUTH_COOKIE_DOMAIN} (e.g. https://app.${domain})`,
        );
      }
    }
  }
  if (raw.AUTH_GITHUB_STAND_IN) {
    let standIn: URL | undefined;
    try {
      standIn = new URL(raw.AUTH_GITHUB_STAND_IN);
    } catch {
      standIn = undefined; // reported by the field schema
    }
    if (standIn && (!isLoopbackHostname(standIn.hostname) || standIn.pathname !== "/")) {
      problem(
        "AUTH_GITHUB_STAND_IN",
        `is test-only and must be a loopback origin (http://127.0.0.1:<port>), got ${raw.AUTH_GITHUB_STAND_IN}`,
      );
    }
  }
  if (
    !ALLOWLIST_KEYS.some((key) => key === "AUTH_GITHUB_ALLOW_ANY" ? isFlagOn(raw[key]) : raw[key]?.trim())
  ) {
    problem(
      "AUTH_GITHUB_ALLOWED_ORGS",
      `deny by default: set who may sign in with AUTH_GITHUB_ALLOWED_ORGS, AUTH_GITHUB_ALLOWED_TEAMS or ` +
        `AUTH_GITHUB_ALLOWED_USERS, or AUTH_GITHUB_ALLOW_ANY=true to admit every GitHub account`,
    );
  }
  for (
    const message of policyProblems({
      orgs: raw.AUTH_GITHUB_ALLOWED_ORGS,
      teams: raw.AUTH_GITHUB_ALLOWED_TEAMS,
      users: raw.AUTH_GITHUB_ALLOWED_USERS,
    })
  ) {
    const [key, ...rest] = message.split(": ");
    problem(key, rest.join(": "));
  }
  if (!raw.AUTH_CLIENT_IP) {
    problem(
      "AUTH_CLIENT_IP",
      `is required outside local mode: how your edge identifies a client (${CLIENT_IP_FORMS})`,
    );
  }
  if (base && base.protocol !== "https:") {
    problem("AUTH_BASE_URL", `must use https outside local mode, got ${raw.AUTH_BASE_URL}`);
  }
  if (base && raw.AUTH_COOKIE_DOMAIN) {
    const domain = raw.AUTH_COOKIE_DOMAIN.replace(/^\./, "").toLowerCase();
    const host = base.hostname.toLowerCase();
    if (host !== domain && !host.endsWith(`.${domain}`)) {
      problem(
        "AUTH_COOKIE_DOMAIN",
        `${raw.AUTH_COOKIE_DOMAIN} does not contain the AUTH_BASE_URL host ${host}`,
      );
    }
  }
  return problems;
}

/** Validated auth configuration. */
export type AuthConfig = Readonly<z.output<typeof authConfigSchema>>;

/** Reads the auth configuration from `env`, throwing a ConfigError naming every bad key. */
export function readAuthConfig(env: Env): AuthConfig {
  const raw: RawAuthEnv = {};
  for (const key of Object.keys(authConfigSchema.shape) as (keyof RawAuthEnv)[]) {
    if (env[key]) raw[key] = env[key];
  }
  const problems = crossKeyProblems(raw);
  let config: AuthConfig | undefined;
  try {
    config = readConfig(authConfigSchema, env, "auth configuration");
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length) {
    problems.sort((a, b) => a.key.localeCompare(b.key));
    throw new ConfigError(problems, "auth configuration");
  }
  return config!;
}

/** Who may sign in (auth/membership/policy.ts); undefined in local mode, which has no GitHub sign-in. */
export function accessPolicyFor(config: AuthConfig): AccessPolicy | undefined {
  if (config.AUTH_LOCAL_MODE) return undefined;
  return accessPolicyOf({
    orgs: config.AUTH_GITHUB_ALLOWED_ORGS,
    teams: config.AUTH_GITHUB_ALLOWED_TEAMS,
    users: config.AUTH_GITHUB_ALLOWED_USERS,
    allowAny: config.AUTH_GITHUB_ALLOW_ANY ?? false,
    ttlSeconds: config.AUTH_MEMBERSHIP_TTL ?? 900,
    graceSeconds: config.AUTH_MEMBERSHIP_GRACE ?? 3600,
  });
}

/** The issuer: `{AUTH_BASE_URL}/api/auth`. */
export function issuerOf(config: AuthConfig): string {
  return `${config.AUTH_BASE_URL}/api/auth`;
}
