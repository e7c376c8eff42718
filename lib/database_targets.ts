/**
 * The suite's databases: which migrations folder belongs to which database and where its URL comes from.
 * The auth service owns the spec's single initial migration in `migrations/`; the gateway keeps its own
 * tables (API keys) in a separate database migrated from `migrations/gateway/`.
 */

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
