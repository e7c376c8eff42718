/** The auth service's configuration, validated once at start-up from the environment. */
import { z } from "zod";
import { databaseUrlSetting, type Env, logLevelSetting, readConfig } from "@switchyard/lib/config.ts";

/** Schema of the auth service's environment. */
export const authConfigSchema = z.object({
  AUTH_DATABASE_URL: databaseUrlSetting("file:.data/auth.db"),
  AUTH_DATABASE_AUTH_TOKEN: z.string().optional(),
  LOG_LEVEL: logLevelSetting,
});

/** Validated auth configuration. */
export type AuthConfig = Readonly<z.output<typeof authConfigSchema>>;

/** Reads the auth configuration from `env`, throwing a ConfigError naming every bad key. */
export function readAuthConfig(env: Env): AuthConfig {
  return readConfig(authConfigSchema, env, "auth configuration");
}
