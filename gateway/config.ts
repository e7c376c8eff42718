/** The gateway's configuration, validated once at start-up from the environment. */
import { z } from "zod";
import { databaseUrlSetting, type Env, logLevelSetting, readConfig } from "@switchyard/lib/config.ts";

/** Schema of the gateway's environment. */
export const gatewayConfigSchema = z.object({
  GATEWAY_DATABASE_URL: databaseUrlSetting("file:.data/gateway.db"),
  GATEWAY_DATABASE_AUTH_TOKEN: z.string().optional(),
  LOG_LEVEL: logLevelSetting,
});

/** Validated gateway configuration. */
export type GatewayConfig = Readonly<z.output<typeof gatewayConfigSchema>>;

/** Reads the gateway configuration from `env`, throwing a ConfigError naming every bad key. */
export function readGatewayConfig(env: Env): GatewayConfig {
  return readConfig(gatewayConfigSchema, env, "gateway configuration");
}
