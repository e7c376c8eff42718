/**
 * The suite's databases: which migrations folder belongs to which database and where its URL comes from.
 * The auth service owns the spec's single initial migration in `migrations/`; the gateway keeps its own
 * tables (API keys) in a separate database migrated from `migrations/gateway/`.
 */
import { isDatabaseUrl } from "./config.ts";

/** One database of the suite. */
export interface DatabaseTarget {
  /** Short name used on the command line. */
  name: "auth" | "gateway";
  /** Absolute path of the migrations folder. */
  migrationsDir: string;
  /** Environment variable holding the database URL. */
  urlKey: string;
  /** Environment variable holding the remote auth token. */
  tokenKey: string;
  /** URL used when the variable is unset (local development). */
  defaultUrl: string;
}

const root = new URL("../", import.meta.url);

/** Every database of the suite, in migration order. */
export const DATABASE_TARGETS: readonly DatabaseTarget[] = [
  {
    name: "auth",
    migrationsDir: new URL("migrations", root).pathname,
    urlKey: "AUTH_DATABASE_URL",
    tokenKey: "AUTH_DATABASE_AUTH_TOKEN",
    defaultUrl: "file:.data/auth.db",
  },
  {
    name: "gateway",
    migrationsDir: new URL("migrations/gateway", root).pathname,
    urlKey: "GATEWAY_DATABASE_URL",
    tokenKey: "GATEWAY_DATABASE_AUTH_TOKEN",
    defaultUrl: "file:.data/gateway.db",
  },
];

/** Where a task script may write: the target's URL, or the one-line reason it refuses. */
export type TargetUrl = { url: string } | { error: string };

/**
 * The database URL a task script uses for `target`. Locally (`remote` false) it is the configured URL or
 * the `file:` default, and a remote URL is refused; with `remote` it must be a configured libsql:// or
 * https:// URL, and a `file:` URL is refused, so a script never writes to the wrong database by accident.
 * Refusals never show an auth token carried in the URL.
 */
export function resolveTargetUrl(
  target: DatabaseTarget,
  env: Record<string, string | undefined>,
  remote: boolean,
): TargetUrl {
  const configured = env[target.urlKey];
  if (remote) {
    if (!configured || configured.startsWith("file:") || !isDatabaseUrl(configured)) {
      return {
        error: `--remote needs ${target.urlKey} set to the remote libsql:// or https:// URL (got ${
          JSON.stringify(configured === undefined ? null : redactUrl(configured))
        })`,
      };
    }
    return { url: configured };
  }
  const url = configured || target.defaultUrl;
  if (!url.startsWith("file:")) {
    return {
      error: `${target.urlKey} is remote (${redactUrl(url)}); pass --remote to use a remote database`,
    };
  }
  return { url };
}

/** `url` with the value of an `authToken` query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  return url.replace(/(authToken=)[^&]+/gi, "$1[redacted]");
}
