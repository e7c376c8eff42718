/**
 * The auth database as the operations commands (`auth:keys`, `oauth:clients`, `auth:sessions`) open it, the
 * way `oauth:register` does: locally the `file:` database of local.env, migrated first; with `--remote`
 * AUTH_DATABASE_URL / AUTH_DATABASE_AUTH_TOKEN, never a local file.
 */
import { migrateDirectory } from "@switchyard/lib/migrate.ts";
import { DATABASE_TARGETS, resolveTargetUrl } from "@switchyard/lib/database_targets.ts";
import { commandError } from "../service_errors.ts";
import { type AuthDatabase, openAuthDatabase } from "../better_auth/database.ts";
import { createBetterAuth, LOCAL_MODE_SECRET } from "../better_auth/mod.ts";
import type { AuthConfig } from "../config.ts";

/** Opens the auth database a command targets; throws AppError naming what is missing. */
export async function openCommandDatabase(
  env: Record<string, string | undefined>,
  remote: boolean,
): Promise<AuthDatabase> {
  const target = DATABASE_TARGETS.find((t) => t.name === "auth")!;
  const resolved = resolveTargetUrl(target, env, remote);
  if ("error" in resolved) throw commandError("BAD_REQUEST", resolved.error);
  const database = await openAuthDatabase(resolved.url, remote ? env.AUTH_DATABASE_AUTH_TOKEN : undefined);
  try {
    if (!remote) await migrateDirectory(database.client, target.migrationsDir);
  } catch (error) {
    database.client.close();
    throw error;
  }
  return database;
}

/**
 * A Better Auth instance over `database` with the service's secret: AUTH_SECRET, or locally the local-mode
 * secret the dev server uses when it is unset. A remote database needs AUTH_SECRET (its keys are encrypted
 * with it).
 */
export function commandBetterAuth(
  database: AuthDatabase,
  env: Record<string, string | undefined>,
  remote: boolean,
) {
  if (remote && !env.AUTH_SECRET) {
    throw commandError("BAD_REQUEST", "--remote needs AUTH_SECRET: the deployed service's secret");
  }
  const config: AuthConfig = Object.freeze({
    AUTH_BASE_URL: env.AUTH_BASE_URL ?? "http://localhost:37960",
    AUTH_DATABASE_URL: "file:unused",
    AUTH_LOCAL_MODE: false,
    LOG_LEVEL: "silent",
  });
  return createBetterAuth({
    config,
    db: database.db,
    secureCookies: false,
    secret: env.AUTH_SECRET ?? LOCAL_MODE_SECRET,
  });
}

/** Formats rows as an aligned text table under `headers`. */
export function textTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [headers, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd())
    .join("\n");
}
