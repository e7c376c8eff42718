/** Configuration of the one-process local suite: where each service listens and which databases to migrate. */
import { z } from "zod";
import { databaseUrlSetting, type Env, portSetting, readConfig } from "@switchyard/lib/config.ts";

/** Schema of the suite's own environment keys. */
const suiteConfigSchema = z.object({
  AUTH_PORT: portSetting(37960),
  GATEWAY_PORT: portSetting(37961),
  LISTEN_HOSTNAME: z.string().default("127.0.0.1"),
  AUTH_DATABASE_URL: databaseUrlSetting("file:.data/auth.db"),
  GATEWAY_DATABASE_URL: databaseUrlSetting("file:.data/gateway.db"),
});

/** Validated suite configuration. */
export type SuiteConfig = Readonly<z.output<typeof suiteConfigSchema>>;

/** Reads the suite configuration, throwing a ConfigError naming every bad key. */
export function readSuiteConfig(env: Env): SuiteConfig {
  return readConfig(suiteConfigSchema, env, "local suite configuration");
}
